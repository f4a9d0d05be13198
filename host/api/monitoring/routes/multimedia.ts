// multimedia (reference 1.14.0): a camera's snapshot. driverbox speaks no ONVIF: the image
// answered is the one recorded for the device (recordCameraSnapshot, host/store/monitoring/camera-snapshots.ts),
// and serving it is a device connection (its bytes count against the agent's consumption; 409
// once that is used up) logged as camera_snapshot. A device without one answers 404 NO_SNAPSHOT.
import type { FastifyInstance } from 'fastify';
import { takeCameraSnapshot } from '../../../store/monitoring/camera-snapshots.js';
import { requireDevice } from '../access.js';
import { ApiError } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';

export function registerMultimediaRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const schema: ApiRouteSchema = {
    operationId: 'onvifSnapshot',
    tags: ['multimedia'],
    summary: "The camera's snapshot, as a binary image (the one recorded for the device; its bytes count as connection consumption; logged as camera_snapshot)",
    params: idParams('agent_id', 'device_id'),
    produces: 'image/*',
    response: { 200: { type: 'string', format: 'binary', description: 'The image, with its own image/… content type' } },
  };
  app.get<{ Params: { agent_id: number; device_id: number } }>(
    '/agent/:agent_id/device/:device_id/multimedia/camera/snapshot',
    { schema },
    async (request, reply) => {
      const device = await requireDevice(ctx.store, request.params.agent_id, request.params.device_id);
      const snapshot = await takeCameraSnapshot(ctx.store, device, { user: ctx.user, ip: request.ip });
      if (!snapshot) {
        throw new ApiError(404, 'NO_SNAPSHOT', `device ${device.id} has no camera snapshot: driverbox takes none itself (no ONVIF), it serves one recorded for the device`);
      }
      return reply.code(200).type(snapshot.contentType).send(snapshot.image);
    },
  );
}
