// Power outlets of a device (tag "device", 1.14.0). Stored and emulated: a device's outlets
// are those the store defines (defineDeviceOutlets); naming them and attaching the devices they
// power is real state; an action is recorded and logged like a device power action (see
// power.ts) and the outlet answers the state it leaves, but no outlet is switched.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { getDevice } from '../../../store/fleet/devices.js';
import {
  attachDeviceToOutlet,
  detachDeviceFromOutlet,
  getDeviceOutlet,
  listDeviceOutlets,
  OUTLET_ACTIONS,
  performOutletAction,
  setOutletCustomName,
  type OutletAction,
  type OutletRow,
} from '../../../store/monitoring/outlets.js';
import { requireDevice } from '../access.js';
import { invalid, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import { deviceOutletSchema, deviceOutletUpdateSchema, type DeviceOutlet, type DeviceOutletUpdate } from '../schemas/outlets.js';

const TAGS = ['device'];
const noContent = { 204: { type: 'null' } } as const;
const route = (schema: ApiRouteSchema) => ({ schema });
const ids = idParams('agent_id', 'device_id');
const outletId = { type: 'string', minLength: 1, maxLength: 255, description: 'The outlet id (getDeviceOutlets)' } as const;
const outletParams = { type: 'object', required: ['agent_id', 'device_id', 'power_outlet_id'], properties: { ...ids.properties, power_outlet_id: outletId } } as const;
const attachParams = {
  type: 'object',
  required: ['agent_id', 'device_id', 'power_outlet_id', 'attached_device_id'],
  properties: { ...outletParams.properties, attached_device_id: idParams('attached_device_id').properties.attached_device_id },
} as const;

type OutletPath = { agent_id: number; device_id: number; power_outlet_id: string };
type AttachPath = OutletPath & { attached_device_id: number };

export function outletRecord(row: OutletRow): DeviceOutlet {
  const record: DeviceOutlet = { id: row.id, device_id: row.deviceId, name: row.name, power: row.power, can_write: row.canWrite, links: row.links };
  if (row.customName !== null) record.custom_name = row.customName;
  return record;
}

export function registerOutletRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  /** The device and its outlet of the path, or 404 for either. */
  const requireOutlet = async (p: OutletPath) => {
    const device = await requireDevice(store, p.agent_id, p.device_id);
    return { device, outlet: await getDeviceOutlet(store, device.id, p.power_outlet_id) };
  };

  /** The device to attach: of the same agent (404 otherwise), not the outlet's own device. */
  const requireAttached = async (p: AttachPath) => {
    if (p.attached_device_id === p.device_id) throw invalid(['path', 'attached_device_id'], 'a device cannot be attached to one of its own outlets');
    if (!await getDevice(store, p.agent_id, p.attached_device_id)) throw notFound('device', p.attached_device_id);
  };

  app.get<{ Params: { agent_id: number; device_id: number } }>(
    '/agent/:agent_id/device/:device_id/power-outlet',
    route({
      operationId: 'getDeviceOutlets',
      tags: TAGS,
      summary: 'The power outlets of the device (those the store defines; none for most devices)',
      params: ids,
      response: { 200: { type: 'array', items: deviceOutletSchema } },
    }),
    async (request) => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      return (await listDeviceOutlets(store, device.id)).map(outletRecord);
    },
  );

  const update: ApiRouteSchema = {
    operationId: 'updateDeviceOutlet',
    tags: TAGS,
    summary: 'Sets the outlet’s custom name (absent, null or blank: removed)',
    params: outletParams,
    body: deviceOutletUpdateSchema,
    response: noContent,
  };
  // The reference makes the body optional: none is an empty object (no custom name).
  const emptyBody = async (request: FastifyRequest) => {
    if (request.body === undefined) request.body = {};
  };
  app.put<{ Params: OutletPath; Body: DeviceOutletUpdate }>(
    '/agent/:agent_id/device/:device_id/power-outlet/:power_outlet_id',
    { schema: update, preValidation: emptyBody },
    async (request, reply) => {
      const { device, outlet } = await requireOutlet(request.params);
      const name = request.body.custom_name?.trim();
      await setOutletCustomName(store, device.id, outlet.id, name ? name : null);
      return reply.code(204).send();
    },
  );

  app.post<{ Params: OutletPath & { action: OutletAction } }>(
    '/agent/:agent_id/device/:device_id/power-outlet/:power_outlet_id/action/:action',
    route({
      operationId: 'triggerOutletAction',
      tags: TAGS,
      summary: 'Performs an action on the outlet (recorded and logged; 409 when the outlet is read-only)',
      params: {
        type: 'object',
        required: [...outletParams.required, 'action'],
        properties: { ...outletParams.properties, action: { type: 'string', enum: [...OUTLET_ACTIONS] } },
      },
      response: { 202: { type: 'null' } },
    }),
    async (request, reply) => {
      const { device, outlet } = await requireOutlet(request.params);
      await performOutletAction(store, device, outlet.id, request.params.action, ctx.user);
      return reply.code(202).send();
    },
  );

  app.post<{ Params: AttachPath }>(
    '/agent/:agent_id/device/:device_id/power-outlet/:power_outlet_id/attach/:attached_device_id',
    route({
      operationId: 'attachDeviceToOutlet',
      tags: TAGS,
      summary: 'Attaches a device of the agent to the outlet (it appears in links; already attached: nothing changes)',
      params: attachParams,
      response: noContent,
    }),
    async (request, reply) => {
      const { device, outlet } = await requireOutlet(request.params);
      await requireAttached(request.params);
      await attachDeviceToOutlet(store, device.id, outlet.id, request.params.attached_device_id);
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: AttachPath }>(
    '/agent/:agent_id/device/:device_id/power-outlet/:power_outlet_id/attach/:attached_device_id',
    route({
      operationId: 'detachDeviceFromOutlet',
      tags: TAGS,
      summary: 'Detaches a device from the outlet (404 when it is not attached)',
      params: attachParams,
      response: noContent,
    }),
    async (request, reply) => {
      const { device, outlet } = await requireOutlet(request.params);
      await detachDeviceFromOutlet(store, device.id, outlet.id, request.params.attached_device_id);
      return reply.code(204).send();
    },
  );
}
