// Power actions on devices. Emulated: no PDU or PoE port is switched; each action is recorded
// with an activity-log entry (power_on, power_off, power_cycle, device_reboot).
import type { FastifyInstance } from 'fastify';
import { getPowerAvailability, performPowerAction, POWER_ACTIONS, type PowerAction } from '../../../store/monitoring/power.js';
import type { ApiContext } from '../context.js';
import { requireDevice } from '../access.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import { devicePowerActionSchema, type DevicePowerAction } from '../schemas/power.js';

const route = (schema: ApiRouteSchema) => ({ schema });

export function registerPowerRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  app.get<{ Params: { agent_id: number; device_id: number } }>(
    '/agent/:agent_id/device/:device_id/action/power',
    route({
      operationId: 'getDevicePowerActions',
      tags: ['device'],
      summary: 'The power actions the device offers now',
      params: idParams('agent_id', 'device_id'),
      response: { 200: devicePowerActionSchema },
    }),
    async (request): Promise<DevicePowerAction> => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const a = await getPowerAvailability(store, device.id);
      return { on: a.on, off: a.off, cycle: a.cycle, software_reboot: a.softwareReboot };
    },
  );

  app.post<{ Params: { agent_id: number; device_id: number; field: PowerAction } }>(
    '/agent/:agent_id/device/:device_id/action/power/:field',
    route({
      operationId: 'powerActionOnDevice',
      tags: ['device'],
      summary: 'Performs a power action on the device (recorded and logged; 409 when the device does not offer it)',
      params: {
        type: 'object',
        required: ['agent_id', 'device_id', 'field'],
        properties: { ...idParams('agent_id', 'device_id').properties, field: { type: 'string', enum: [...POWER_ACTIONS] } },
      },
      response: { 204: { type: 'null' } },
    }),
    async (request, reply) => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      await performPowerAction(store, device, request.params.field, ctx.user);
      return reply.code(204).send();
    },
  );
}
