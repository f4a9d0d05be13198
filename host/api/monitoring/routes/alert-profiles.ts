// Alert profiles (tag "alert profiles", reference 1.14.0): the account's profiles and their
// bindings to agents and devices. Stored: bindings are what the GETs answer; no alert is sent.
import type { FastifyInstance } from 'fastify';
import {
  bindAgent,
  bindDevice,
  getAlertProfile,
  listAgentBindings,
  listAlertProfiles,
  listDeviceBindings,
  unbindAgent,
  unbindDevice,
  type AlertProfileRow,
} from '../../../store/account/alert-profiles.js';
import { OWNER_USER_ID } from '../../../store/account/company.js';
import type { Store } from '../../../store/store.js';
import { requireAgent, requireDevice } from '../access.js';
import { ApiError, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import {
  alertProfileAgentBindingSchema,
  alertProfileDeviceBindingSchema,
  alertProfileSchema,
  type AlertProfile,
  type AlertProfileAgentBinding,
  type AlertProfileDeviceBinding,
} from '../schemas/alert-profiles.js';

const TAGS = ['alert profiles'];
type AgentBindingParams = { alert_profile_id: number; agent_id: number };
type DeviceBindingParams = AgentBindingParams & { device_id: number };

/** Optional fields the profile lacks are left out, never null. */
function profileRecord(p: AlertProfileRow): AlertProfile {
  return {
    id: p.id,
    name: p.name,
    ...(p.description !== null ? { description: p.description } : {}),
    ...(p.tag !== null ? { tag: p.tag } : {}),
    events: p.events,
    is_enabled: p.isEnabled,
  };
}

async function requireProfile(store: Store, id: number): Promise<void> {
  if (!await getAlertProfile(store, id)) throw notFound('alert profile', id);
}

export function registerAlertProfileRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;
  const profilesAnswer = { 200: { type: 'array', items: alertProfileSchema } };

  const list: ApiRouteSchema = {
    operationId: 'getAlertProfiles2',
    tags: TAGS,
    summary: 'Returns the list of configured alert profiles',
    description: 'By id: the built-in catalogue, then the profiles added with createAlertProfile (host/store/account/alert-profiles.ts).',
    response: profilesAnswer,
  };
  app.get('/alert-profile', { schema: list }, async (): Promise<AlertProfile[]> => (await listAlertProfiles(store)).map(profileRecord));

  const ofUser: ApiRouteSchema = {
    operationId: 'getAlertProfiles',
    tags: TAGS,
    summary: 'Returns the list of configured alert profiles (deprecated: use getAlertProfiles2)',
    description: `The same list as getAlertProfiles2; user_id must be the API key's user (${OWNER_USER_ID}, see getUser), else 404.`,
    deprecated: true,
    params: idParams('user_id'),
    response: profilesAnswer,
  };
  app.get<{ Params: { user_id: number } }>('/user/:user_id/alert-profile', { schema: ofUser }, async (request): Promise<AlertProfile[]> => {
    if (request.params.user_id !== OWNER_USER_ID) throw notFound('user', request.params.user_id);
    return (await listAlertProfiles(store)).map(profileRecord);
  });

  const agentBindings: ApiRouteSchema = {
    operationId: 'getAgentAlertProfile',
    tags: TAGS,
    summary: 'Get the alert profile bindings of an agent',
    description: 'By profile id; an empty list when none is bound.',
    params: idParams('agent_id'),
    response: { 200: { type: 'array', items: alertProfileAgentBindingSchema } },
  };
  app.get<{ Params: { agent_id: number } }>(
    '/alert-profile/binding/agent/:agent_id',
    { schema: agentBindings },
    async (request): Promise<AlertProfileAgentBinding[]> => {
      const agent = await requireAgent(store, request.params.agent_id);
      return (await listAgentBindings(store, agent.id)).map((id) => ({ alert_profile_id: id }));
    },
  );

  const deviceBindings: ApiRouteSchema = {
    operationId: 'getDevicesAlertProfile',
    tags: TAGS,
    summary: 'Get the alert profile bindings of the devices of an agent',
    description: 'By device, then profile id; an empty list when none is bound.',
    params: idParams('agent_id'),
    response: { 200: { type: 'array', items: alertProfileDeviceBindingSchema } },
  };
  app.get<{ Params: { agent_id: number } }>(
    '/alert-profile/binding/agent/:agent_id/device',
    { schema: deviceBindings },
    async (request): Promise<AlertProfileDeviceBinding[]> => {
      const agent = await requireAgent(store, request.params.agent_id);
      return (await listDeviceBindings(store, agent.id)).map((b) => ({ alert_profile_id: b.alertProfileId, device_id: b.deviceId }));
    },
  );

  const agentPath = '/alert-profile/:alert_profile_id/binding/agent/:agent_id';
  const bindToAgent: ApiRouteSchema = {
    operationId: 'bindAlertProfileToAgent',
    tags: TAGS,
    summary: 'Binds an alert profile to an agent (binding it again changes nothing)',
    params: idParams('alert_profile_id', 'agent_id'),
    response: { 204: { type: 'null' } },
  };
  app.post<{ Params: AgentBindingParams }>(agentPath, { schema: bindToAgent }, async (request, reply) => {
    const agent = await requireAgent(store, request.params.agent_id);
    await requireProfile(store, request.params.alert_profile_id);
    await bindAgent(store, request.params.alert_profile_id, agent.id);
    return reply.code(204).send();
  });

  const unbindFromAgent: ApiRouteSchema = {
    operationId: 'unbindAlertProfileFromAgent',
    tags: TAGS,
    summary: 'Unbinds an alert profile from an agent',
    description: '404 NOT_BOUND when the profile is not bound to the agent.',
    params: idParams('alert_profile_id', 'agent_id'),
    response: { 204: { type: 'null' } },
  };
  app.delete<{ Params: AgentBindingParams }>(agentPath, { schema: unbindFromAgent }, async (request, reply) => {
    const { alert_profile_id: profileId, agent_id: agentId } = request.params;
    await requireAgent(store, agentId);
    await requireProfile(store, profileId);
    if (!await unbindAgent(store, profileId, agentId)) throw new ApiError(404, 'NOT_BOUND', `alert profile ${profileId} is not bound to agent ${agentId}`);
    return reply.code(204).send();
  });

  const devicePath = `${agentPath}/device/:device_id`;
  const bindToDevice: ApiRouteSchema = {
    operationId: 'bindAlertProfileToDevice',
    tags: TAGS,
    summary: 'Binds an alert profile to a device (binding it again changes nothing)',
    params: idParams('alert_profile_id', 'agent_id', 'device_id'),
    response: { 204: { type: 'null' } },
  };
  app.post<{ Params: DeviceBindingParams }>(devicePath, { schema: bindToDevice }, async (request, reply) => {
    const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
    await requireProfile(store, request.params.alert_profile_id);
    await bindDevice(store, request.params.alert_profile_id, device.id);
    return reply.code(204).send();
  });

  const unbindFromDevice: ApiRouteSchema = {
    operationId: 'unbindAlertProfileFromDevice',
    tags: TAGS,
    summary: 'Unbinds an alert profile from a device',
    description: '404 NOT_BOUND when the profile is not bound to the device.',
    params: idParams('alert_profile_id', 'agent_id', 'device_id'),
    response: { 204: { type: 'null' } },
  };
  app.delete<{ Params: DeviceBindingParams }>(devicePath, { schema: unbindFromDevice }, async (request, reply) => {
    const { alert_profile_id: profileId, device_id: deviceId } = request.params;
    const device = await requireDevice(store, request.params.agent_id, deviceId);
    await requireProfile(store, profileId);
    if (!await unbindDevice(store, profileId, device.id)) throw new ApiError(404, 'NOT_BOUND', `alert profile ${profileId} is not bound to device ${deviceId}`);
    return reply.code(204).send();
  });
}
