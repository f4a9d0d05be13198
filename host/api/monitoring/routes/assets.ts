// assets (reference 1.14.0): the device type catalogue (host/store/fleet/device-types.ts), and the
// detected types devices of the store carry beyond it.
import type { FastifyInstance } from 'fastify';
import { DEVICE_BASE_TYPES, listDetectedDeviceTypes, type DetectedDeviceType, type DeviceBaseType } from '../../../store/fleet/device-types.js';
import type { ApiContext } from '../context.js';
import type { ApiRouteSchema } from '../route-schema.js';
import { detectedDeviceTypeSchema, deviceBaseTypeSchema } from '../schemas/assets.js';

const route = (schema: ApiRouteSchema) => ({ schema });

export function registerAssetRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.get(
    '/type/device/base',
    route({
      operationId: 'listDeviceBaseTypes',
      tags: ['assets'],
      summary: 'The device base types (the ids of a device\'s type.id)',
      response: { 200: { type: 'array', items: deviceBaseTypeSchema } },
    }),
    async (): Promise<readonly DeviceBaseType[]> => DEVICE_BASE_TYPES,
  );

  app.get(
    '/type/device/detected',
    route({
      operationId: 'listDeviceDetectedTypes',
      tags: ['assets'],
      summary: "The detected device types (the ids of a device's type.detected_id): the catalogue's, then those of the store's devices",
      response: { 200: { type: 'array', items: detectedDeviceTypeSchema } },
    }),
    async (): Promise<DetectedDeviceType[]> => listDetectedDeviceTypes(ctx.store),
  );
}
