// SNMP/TCP SENSORS: SNMP sensors and their triggers (stored; samples come from
// recordSnmpSample), TCP sensors (probed for real at creation and by the monitor prober), and
// sensor usage against the agent's limit.
import type { FastifyInstance } from 'fastify';
import { probeDevicePort } from '../../../monitor/tcp-probe.js';
import { recordProbes } from '../../../monitor/prober.js';
import {
  createSnmpSensor,
  createTcpSensor,
  deleteSnmpSensor,
  deleteTcpSensor,
  getSnmpSensor,
  listAgentSnmpSensors,
  listAgentTcpSensors,
  listDeviceSnmpSensors,
  listDeviceTcpSensors,
  sensorUsage,
  snmpSensorHistory,
  type SnmpSensorRow,
  type TcpSensorRow,
} from '../../../store/monitoring/sensors.js';
import {
  createSnmpTrigger,
  deleteSnmpTrigger,
  getSnmpTrigger,
  listSnmpTriggers,
  setSnmpTriggerAlert,
  triggerFunctionsFor,
  type AlertMedium,
  type SnmpTriggerRow,
} from '../../../store/monitoring/snmp-triggers.js';
import { formatApiTime, formatApiTimeOrNull } from '../../../store/db/time.js';
import { conflict, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { timeWindow } from '../query.js';
import { requireAgent, requireDevice } from '../access.js';
import { idParams, timeWindowQuery, type ApiRouteSchema } from '../route-schema.js';
import {
  eyesUsageSchema,
  snmpAgentEyeSchema,
  snmpEyeCreationSchema,
  snmpEyeSchema,
  snmpHistorySampleSchema,
  snmpTriggerAlertCreationSchema,
  snmpTriggerCreationSchema,
  snmpTriggerFunctionSchema,
  snmpTriggerSchema,
  tcpEyeCreationSchema,
  tcpEyeSchema,
  type SnmpAgentEye,
  type SnmpEye,
  type SnmpEyeCreation,
  type SnmpTrigger,
  type SnmpTriggerCreation,
  type TcpEye,
  type TcpEyeCreation,
} from '../schemas/sensors.js';

const TAG = ['SNMP/TCP SENSORS'];
/** Route options with a schema typed as the API's (operationId, tags…). */
const route = (schema: ApiRouteSchema) => ({ schema });
const noContent = { 204: { type: 'null' } } as const;
const created = { 201: { type: 'null', description: 'Created' } } as const;
const mediumParams = {
  type: 'object',
  required: ['agent_id', 'device_id', 'sensor_id', 'trigger_id', 'medium_name'],
  properties: {
    ...idParams('agent_id', 'device_id', 'sensor_id', 'trigger_id').properties,
    medium_name: { type: 'string', enum: ['email', 'mobile'] },
  },
} as const;

interface AgentPath {
  agent_id: number;
}
interface DevicePath extends AgentPath {
  device_id: number;
}
interface SensorPath extends DevicePath {
  sensor_id: number;
}
interface TriggerPath extends SensorPath {
  trigger_id: number;
}

function agentEye(row: SnmpSensorRow): SnmpAgentEye {
  return { id: row.id, device_id: row.deviceId, name: row.name, oid: row.oid, category: row.category, value_type: row.valueType };
}

function deviceEye(row: SnmpSensorRow): SnmpEye {
  return { ...agentEye(row), last_update: formatApiTimeOrNull(row.lastUpdate), latest_value: row.latestValue, ...(row.latestEnumValue === null ? {} : { latest_enum_value: row.latestEnumValue }) };
}

function tcpEye(row: TcpSensorRow): TcpEye {
  return { id: row.id, device_id: row.deviceId, port: row.port, status: row.status, last_update: formatApiTime(row.lastUpdate) };
}

function trigger(row: SnmpTriggerRow): SnmpTrigger {
  return { id: row.id, name: row.name, function_id: row.functionId, operands: row.operands, creation_time: formatApiTime(row.creationTime), alert: row.alert };
}

export function registerSensorRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  const requireSensor = async (p: SensorPath): Promise<SnmpSensorRow> => {
    await requireDevice(store, p.agent_id, p.device_id);
    const sensor = await getSnmpSensor(store, p.device_id, p.sensor_id);
    if (!sensor) throw notFound('SNMP sensor', p.sensor_id);
    return sensor;
  };

  const requireTrigger = async (p: TriggerPath): Promise<SnmpTriggerRow> => {
    await requireSensor(p);
    const found = await getSnmpTrigger(store, p.sensor_id, p.trigger_id);
    if (!found) throw notFound('SNMP trigger', p.trigger_id);
    return found;
  };

  app.get<{ Params: AgentPath }>(
    '/agent/:agent_id/device/eye/snmp',
    route({
      operationId: 'listAgentEyesSNMP',
      tags: TAG,
      summary: 'The SNMP sensors of every device of the agent',
      params: idParams('agent_id'),
      response: { 200: { type: 'array', items: snmpAgentEyeSchema } },
    }),
    async (request) => {
      await requireAgent(store, request.params.agent_id);
      return (await listAgentSnmpSensors(store, request.params.agent_id)).map(agentEye);
    },
  );

  app.get<{ Params: AgentPath }>(
    '/agent/:agent_id/device/eye/tcp',
    route({
      operationId: 'listAgentEyesTCP',
      tags: TAG,
      summary: 'The TCP sensors of every device of the agent, with their latest status',
      params: idParams('agent_id'),
      response: { 200: { type: 'array', items: tcpEyeSchema } },
    }),
    async (request) => {
      await requireAgent(store, request.params.agent_id);
      return (await listAgentTcpSensors(store, request.params.agent_id)).map(tcpEye);
    },
  );

  app.get<{ Params: DevicePath }>(
    '/agent/:agent_id/device/:device_id/eye/snmp',
    route({
      operationId: 'listEyesSNMP',
      tags: TAG,
      summary: 'The SNMP sensors of the device with their latest values',
      params: idParams('agent_id', 'device_id'),
      response: { 200: { type: 'array', items: snmpEyeSchema } },
    }),
    async (request) => {
      await requireDevice(store, request.params.agent_id, request.params.device_id);
      return (await listDeviceSnmpSensors(store, request.params.device_id)).map(deviceEye);
    },
  );

  app.post<{ Params: DevicePath; Body: SnmpEyeCreation }>(
    '/agent/:agent_id/device/:device_id/eye/snmp',
    route({
      operationId: 'createEyeSNMP',
      tags: TAG,
      summary: 'Adds an SNMP sensor to the device (409 past the agent sensor limit)',
      params: idParams('agent_id', 'device_id'),
      body: snmpEyeCreationSchema,
      response: created,
    }),
    async (request, reply) => {
      await requireDevice(store, request.params.agent_id, request.params.device_id);
      const { name, oid, category, value_type } = request.body;
      await createSnmpSensor(store, request.params.device_id, { name, oid, category, valueType: value_type });
      return reply.code(201).send();
    },
  );

  app.delete<{ Params: SensorPath }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id',
    route({
      operationId: 'deleteEyeSNMP',
      tags: TAG,
      summary: 'Deletes the SNMP sensor with its history and triggers',
      params: idParams('agent_id', 'device_id', 'sensor_id'),
      response: noContent,
    }),
    async (request, reply) => {
      await requireSensor(request.params);
      await deleteSnmpSensor(store, request.params.device_id, request.params.sensor_id);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: SensorPath }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id/function',
    route({
      operationId: 'listEyesSNMPTriggerFunction',
      tags: TAG,
      summary: "The trigger functions for the sensor's value type",
      params: idParams('agent_id', 'device_id', 'sensor_id'),
      response: { 200: { type: 'array', items: snmpTriggerFunctionSchema } },
    }),
    async (request) => {
      const sensor = await requireSensor(request.params);
      return triggerFunctionsFor(sensor.valueType).map((f) => ({ id: f.id, name: f.name, cardinality: f.cardinality, value_types: f.valueTypes }));
    },
  );

  app.get<{ Params: SensorPath; Querystring: { from?: string; to?: string } }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id/history',
    route({
      operationId: 'getEyesSNMPHistory',
      tags: TAG,
      summary: 'The samples of the SNMP sensor between from and to',
      params: idParams('agent_id', 'device_id', 'sensor_id'),
      querystring: { type: 'object', properties: timeWindowQuery },
      response: { 200: { type: 'array', items: snmpHistorySampleSchema } },
    }),
    async (request) => {
      const sensor = await requireSensor(request.params);
      const { from, to } = timeWindow(request.query, store.now());
      return (await snmpSensorHistory(store, sensor.id, from, to)).map((s) => ({ timestamp: formatApiTime(s.timestamp), value: s.value, ...(s.enumValue === null ? {} : { enum_value: s.enumValue }) }));
    },
  );

  app.get<{ Params: SensorPath }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id/trigger',
    route({
      operationId: 'listEyesSNMPTrigger',
      tags: TAG,
      summary: 'The triggers of the SNMP sensor',
      params: idParams('agent_id', 'device_id', 'sensor_id'),
      response: { 200: { type: 'array', items: snmpTriggerSchema } },
    }),
    async (request) => {
      const sensor = await requireSensor(request.params);
      return (await listSnmpTriggers(store, sensor.id)).map(trigger);
    },
  );

  app.post<{ Params: SensorPath; Body: SnmpTriggerCreation }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id/trigger',
    route({
      operationId: 'createEyeSNMPTrigger',
      tags: TAG,
      summary: 'Adds a trigger: function_id from listEyesSNMPTriggerFunction, as many operands as its cardinality',
      params: idParams('agent_id', 'device_id', 'sensor_id'),
      body: snmpTriggerCreationSchema,
      response: created,
    }),
    async (request, reply) => {
      const sensor = await requireSensor(request.params);
      const { name, function_id, operands } = request.body;
      await createSnmpTrigger(store, sensor.id, { name, functionId: function_id, operands });
      return reply.code(201).send();
    },
  );

  app.delete<{ Params: TriggerPath }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id/trigger/:trigger_id',
    route({
      operationId: 'deleteEyeSNMPTrigger',
      tags: TAG,
      summary: 'Deletes the trigger',
      params: idParams('agent_id', 'device_id', 'sensor_id', 'trigger_id'),
      response: noContent,
    }),
    async (request, reply) => {
      await requireTrigger(request.params);
      await deleteSnmpTrigger(store, request.params.sensor_id, request.params.trigger_id);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: TriggerPath & { medium_name: AlertMedium }; Body: Record<string, never> }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id/trigger/:trigger_id/alert/:medium_name',
    route({
      operationId: 'createEyeSNMPTriggerAlert',
      tags: TAG,
      summary: 'Switches on the alert of the trigger on a medium (email or mobile); 409 when already on',
      params: mediumParams,
      body: snmpTriggerAlertCreationSchema,
      response: created,
    }),
    async (request, reply) => {
      const found = await requireTrigger(request.params);
      if (!await setSnmpTriggerAlert(store, found.id, request.params.medium_name, true)) {
        throw conflict(`the ${request.params.medium_name} alert of SNMP trigger ${found.id} is already on`);
      }
      return reply.code(201).send();
    },
  );

  app.delete<{ Params: TriggerPath & { medium_name: AlertMedium } }>(
    '/agent/:agent_id/device/:device_id/eye/snmp/:sensor_id/trigger/:trigger_id/alert/:medium_name',
    route({
      operationId: 'deleteEyeSNMPTriggerAlert',
      tags: TAG,
      summary: 'Switches off the alert of the trigger on a medium; 404 when it is not on',
      params: mediumParams,
      response: noContent,
    }),
    async (request, reply) => {
      const found = await requireTrigger(request.params);
      if (!await setSnmpTriggerAlert(store, found.id, request.params.medium_name, false)) {
        throw notFound(`${request.params.medium_name} alert of SNMP trigger`, found.id);
      }
      return reply.code(204).send();
    },
  );

  app.get<{ Params: DevicePath }>(
    '/agent/:agent_id/device/:device_id/eye/tcp',
    route({
      operationId: 'listEyesTCP',
      tags: TAG,
      summary: 'The TCP sensors of the device with their latest status',
      params: idParams('agent_id', 'device_id'),
      response: { 200: { type: 'array', items: tcpEyeSchema } },
    }),
    async (request) => {
      await requireDevice(store, request.params.agent_id, request.params.device_id);
      return (await listDeviceTcpSensors(store, request.params.device_id)).map(tcpEye);
    },
  );

  app.post<{ Params: DevicePath; Body: TcpEyeCreation }>(
    '/agent/:agent_id/device/:device_id/eye/tcp',
    route({
      operationId: 'createEyeTCP',
      tags: TAG,
      summary: "Adds a TCP sensor on a port of the device, probed at once so its first status is real (409 for a port already watched or past the sensor limit)",
      params: idParams('agent_id', 'device_id'),
      body: tcpEyeCreationSchema,
      response: created,
    }),
    async (request, reply) => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const { port } = request.body;
      // Refuse a duplicate or a full quota before spending a probe on it.
      if ((await listDeviceTcpSensors(store, device.id)).some((s) => s.port === port)) {
        throw conflict(`device ${device.id} already has a TCP sensor on port ${port}`);
      }
      const { limit, usage } = await sensorUsage(store, device.agentId);
      if (usage.total >= limit) throw conflict(`agent ${device.agentId} already has ${usage.total} sensors and its limit is ${limit}; delete a sensor or raise the limit`);
      const probe = await probeDevicePort(device, port);
      const checkedAt = store.now();
      const sensor = await createTcpSensor(store, device.id, { port, status: probe.status, checkedAt });
      await recordProbes(store, [{ ...probe, sensorId: sensor.id, deviceId: device.id }], checkedAt);
      return reply.code(201).send();
    },
  );

  app.delete<{ Params: DevicePath & { service_id: number } }>(
    '/agent/:agent_id/device/:device_id/eye/tcp/:service_id',
    route({
      operationId: 'deleteEyeTCP',
      tags: TAG,
      summary: 'Deletes the TCP sensor',
      params: idParams('agent_id', 'device_id', 'service_id'),
      response: noContent,
    }),
    async (request, reply) => {
      await requireDevice(store, request.params.agent_id, request.params.device_id);
      if (!await deleteTcpSensor(store, request.params.device_id, request.params.service_id)) throw notFound('TCP sensor', request.params.service_id);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: AgentPath }>(
    '/agent/:agent_id/eye-statistics',
    route({
      operationId: 'eyesUsageInfo',
      tags: TAG,
      summary: "The agent's sensor count (SNMP, TCP, total) and limit",
      params: idParams('agent_id'),
      response: { 200: eyesUsageSchema },
    }),
    async (request) => {
      await requireAgent(store, request.params.agent_id);
      return sensorUsage(store, request.params.agent_id);
    },
  );
}
