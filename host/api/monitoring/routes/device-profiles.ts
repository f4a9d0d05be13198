// Device profiles (tag "device", 1.14.0). Stored: the catalogue is the store's
// (addDeviceProfile); applying one records, per device, the profile it now follows, with an
// activity-log entry. The modules' settings are the cloud's and are not reproduced here.
import type { FastifyInstance } from 'fastify';
import { getAgent } from '../../../store/fleet/agents.js';
import { applyDeviceProfile, devicesWithIds, getDeviceProfile, listDeviceProfiles, type DeviceProfileRow } from '../../../store/account/device-profiles.js';
import { formatApiTime } from '../../../store/db/time.js';
import { ApiError, notFound, type ErrorDetail } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import { deviceProfileApplyRequestSchema, deviceProfileSchema, type DeviceProfile, type DeviceProfileApplyRequest } from '../schemas/device-profiles.js';

const TAGS = ['device'];
const route = (schema: ApiRouteSchema) => ({ schema });

export function deviceProfileRecord(row: DeviceProfileRow): DeviceProfile {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    creation_time: formatApiTime(row.creationTime),
    last_modified: formatApiTime(row.lastModified),
    modified_by: { ...row.modifiedBy },
    modules: row.modules.map((m) => ({
      id: m.id,
      module_type: m.moduleType,
      apply_mode: m.applyMode,
      is_active: m.isActive,
      creation_time: formatApiTime(m.creationTime),
      last_modified: formatApiTime(m.lastModified),
    })),
  };
}

export function registerDeviceProfileRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  app.get(
    '/device-profile',
    route({
      operationId: 'listDeviceProfiles',
      tags: TAGS,
      summary: 'The device profiles of the account',
      response: { 200: { type: 'array', items: deviceProfileSchema } },
    }),
    async () => (await listDeviceProfiles(store)).map(deviceProfileRecord),
  );

  app.post<{ Params: { device_profile_id: number }; Body: DeviceProfileApplyRequest }>(
    '/device-profile/:device_profile_id/apply',
    route({
      operationId: 'applyDeviceProfile',
      tags: TAGS,
      summary: 'Applies a device profile to devices (each then follows it; recorded in the activity log)',
      description: 'Every id must name a device of an agent that allows API access; otherwise nothing is applied (422 naming each).',
      params: idParams('device_profile_id'),
      body: deviceProfileApplyRequestSchema,
      response: { 204: { type: 'null' } },
    }),
    async (request, reply) => {
      const profileId = request.params.device_profile_id;
      if (!await getDeviceProfile(store, profileId)) throw notFound('device profile', profileId);
      const wanted = [...new Set(request.body.device_ids)];
      const found = new Map((await devicesWithIds(store, wanted)).map((d) => [d.id, d]));
      const detail: ErrorDetail[] = [];
      for (const [i, id] of request.body.device_ids.entries()) {
        const device = found.get(id);
        if (!device) detail.push({ loc: ['body', 'device_ids', i], msg: `device ${id} not found`, type: 'value_error.not_found' });
        else if (!(await getAgent(store, device.agentId))?.apiEnabled) {
          detail.push({ loc: ['body', 'device_ids', i], msg: `device ${id} is of agent ${device.agentId}, which does not allow API access`, type: 'value_error.access' });
        }
      }
      if (detail.length > 0) throw new ApiError(422, 'VALIDATION_ERROR', detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '), detail);
      await applyDeviceProfile(store, profileId, wanted.map((id) => found.get(id)!), ctx.user);
      return reply.code(204).send();
    },
  );
}
