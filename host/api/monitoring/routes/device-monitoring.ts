// Monitoring state and excluded devices (tag "device", 1.14.0). Real state in the store: an
// UNMANAGED device leaves listDevices and is listed by listUnmanagedDevices; an excluded one
// stays in listDevices (is_excluded, unless show_excluded=false). Neither is monitored: the
// agent runs no driver on them.
import type { FastifyInstance } from 'fastify';
import { listExcludedDevices, listUnmanagedDevices, setDeviceExcluded, setMonitoringState } from '../../../store/fleet/device-monitoring.js';
import type { DeviceRow } from '../../../store/fleet/devices.js';
import { formatApiTime } from '../../../store/db/time.js';
import { requireAgent, requireDevice } from '../access.js';
import { ApiError } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import { deviceSchema } from '../schemas/devices.js';
import { deviceMonitoringStateSchema, minimalDeviceSchema, type DeviceMonitoringState, type MinimalDevice } from '../schemas/device-monitoring.js';
import { deviceRecord } from './devices.js';

const TAGS = ['device'];
type DevicePath = { agent_id: number; device_id: number };
const noContent = { 204: { type: 'null' } } as const;
const route = (schema: ApiRouteSchema) => ({ schema });

/** The minimal record of a device: only fields the store knows (none as null). */
export function minimalDeviceRecord(row: DeviceRow): MinimalDevice {
  const record: MinimalDevice = { id: row.id, display_name: row.displayName, protocol: row.protocol, first_seen_on: formatApiTime(row.firstSeenOn) };
  if (row.protocol !== 'DUMMY') record.ip_addresses = row.ipAddresses;
  if (row.macAddress) record.mac = row.macAddress;
  if (row.model) record.model = row.model;
  if (row.vendor) record.vendor = row.vendor;
  const type: NonNullable<MinimalDevice['type']> = {};
  if (typeof row.type.detected_id === 'number') type.detected_id = row.type.detected_id;
  if (typeof row.type.id === 'number') type.id = row.type.id;
  if (typeof row.type.label === 'string') type.label = row.type.label;
  if (Object.keys(type).length > 0) record.type = type;
  return record;
}

export function registerDeviceMonitoringRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  app.get<{ Params: { agent_id: number } }>(
    '/agent/:agent_id/device/monitoring-state/unmanaged',
    route({
      operationId: 'listUnmanagedDevices',
      tags: TAGS,
      summary: 'The UNMANAGED devices of an agent (minimal records); listDevices lists the managed ones',
      params: idParams('agent_id'),
      response: { 200: { type: 'array', items: minimalDeviceSchema } },
    }),
    async (request) => {
      await requireAgent(store, request.params.agent_id);
      return (await listUnmanagedDevices(store, request.params.agent_id)).map(minimalDeviceRecord);
    },
  );

  app.put<{ Params: DevicePath; Body: DeviceMonitoringState }>(
    '/agent/:agent_id/device/:device_id/monitoring-state',
    route({
      operationId: 'updateDeviceMonitoringState',
      tags: TAGS,
      summary: 'Sets the monitoring state of a device: MANAGED (listed, monitored) or UNMANAGED (neither)',
      params: idParams('agent_id', 'device_id'),
      body: deviceMonitoringStateSchema,
      response: noContent,
    }),
    async (request, reply) => {
      const { agent_id, device_id } = request.params;
      await requireDevice(store, agent_id, device_id);
      await setMonitoringState(store, agent_id, device_id, request.body.monitoring_state);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { agent_id: number } }>(
    '/agent/:agent_id/network/excluded-device',
    route({
      operationId: 'listExcludedDevices',
      tags: TAGS,
      summary: 'The devices on the agent’s excluded-device list (not monitored)',
      params: idParams('agent_id'),
      response: { 200: { type: 'array', items: deviceSchema } },
    }),
    async (request) => {
      await requireAgent(store, request.params.agent_id);
      return (await listExcludedDevices(store, request.params.agent_id)).map(deviceRecord);
    },
  );

  app.post<{ Params: DevicePath }>(
    '/agent/:agent_id/network/excluded-device/:device_id',
    route({
      operationId: 'addExcludedDevice',
      tags: TAGS,
      summary: 'Puts a device on the excluded-device list (already there: nothing changes)',
      params: idParams('agent_id', 'device_id'),
      response: noContent,
    }),
    async (request, reply) => {
      const { agent_id, device_id } = request.params;
      await requireDevice(store, agent_id, device_id);
      await setDeviceExcluded(store, agent_id, device_id, true);
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: DevicePath }>(
    '/agent/:agent_id/network/excluded-device/:device_id',
    route({
      operationId: 'deleteExcludedDevice',
      tags: TAGS,
      summary: 'Takes a device off the excluded-device list (404 when it is not on it)',
      params: idParams('agent_id', 'device_id'),
      response: noContent,
    }),
    async (request, reply) => {
      const { agent_id, device_id } = request.params;
      await requireDevice(store, agent_id, device_id);
      if (!await setDeviceExcluded(store, agent_id, device_id, false)) {
        throw new ApiError(404, 'NOT_FOUND', `device ${device_id} is not on the excluded-device list of agent ${agent_id}`);
      }
      return reply.code(204).send();
    },
  );
}
