// Applications of devices (Enterprise Plan agents only; others get 403). driverbox discovers
// no software: inventories are recorded with recordApplications and listed here.
import type { FastifyInstance } from 'fastify';
import { countApplications, listApplications, type ApplicationFilter, type ApplicationRow } from '../../../store/monitoring/applications.js';
import type { AgentRow } from '../../../store/fleet/agents.js';
import { formatApiTime, formatApiTimeOrNull } from '../../../store/db/time.js';
import { ApiError } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { page } from '../query.js';
import { requireAgent, requireDevice } from '../access.js';
import { withoutNulls } from '../present.js';
import { idParams, pagingQuery, type ApiRouteSchema } from '../route-schema.js';
import {
  agentDeviceApplicationSchema,
  applicationFilterQuery,
  deviceApplicationSchema,
  type AgentDeviceApplication,
  type ApplicationQuery,
  type DeviceApplication,
} from '../schemas/applications.js';

const TAG = ['device'];
const route = (schema: ApiRouteSchema) => ({ schema });
const listQuery = { type: 'object', properties: { ...pagingQuery(1000, 100), ...applicationFilterQuery } } as const;
const countQuery = { type: 'object', properties: applicationFilterQuery } as const;

function requireEnterprise(agent: AgentRow): void {
  if (!agent.enterprisePlan) {
    throw new ApiError(403, 'ENTERPRISE_PLAN_REQUIRED', `agent ${agent.id} is not under the Enterprise Plan; applications are only available on Enterprise Plan agents`);
  }
}

function filterOf(query: ApplicationQuery): ApplicationFilter {
  return {
    name: query.name,
    deviceIds: query.device_ids === undefined ? undefined : query.device_ids.split(',').map((id) => Number(id.trim())),
  };
}

function deviceApplication(row: ApplicationRow): DeviceApplication {
  return withoutNulls({
    application_id: row.applicationId,
    first_time_seen: formatApiTime(row.firstTimeSeen),
    name: row.name,
    publisher: row.publisher,
    version: row.version,
    info: row.info,
    install_location: row.installLocation,
    install_date: formatApiTimeOrNull(row.installDate),
    last_modified: formatApiTimeOrNull(row.lastModified),
    last_update: formatApiTimeOrNull(row.lastUpdate),
  });
}

export function registerApplicationRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;
  const enterpriseAgent = async (agentId: number) => requireEnterprise(await requireAgent(store, agentId));
  const enterpriseDevice = async (agentId: number, deviceId: number) => {
    await requireDevice(store, agentId, deviceId);
    await enterpriseAgent(agentId);
  };

  app.get<{ Params: { agent_id: number }; Querystring: ApplicationQuery }>(
    '/agent/:agent_id/device/application',
    route({
      operationId: 'listAgentDeviceApplications',
      tags: TAG,
      summary: "The applications of the agent's devices (Enterprise Plan agents only)",
      params: idParams('agent_id'),
      querystring: listQuery,
      response: { 200: { type: 'array', items: agentDeviceApplicationSchema } },
    }),
    async (request): Promise<AgentDeviceApplication[]> => {
      await enterpriseAgent(request.params.agent_id);
      return (await listApplications(store, request.params.agent_id, null, filterOf(request.query), page(request.query, 100))).map((row) => ({
        ...deviceApplication(row),
        device_id: String(row.deviceId),
      }));
    },
  );

  app.head<{ Params: { agent_id: number }; Querystring: ApplicationQuery }>(
    '/agent/:agent_id/device/application',
    route({
      operationId: 'countAgentDeviceApplications',
      tags: TAG,
      summary: "Counts the applications of the agent's devices (Enterprise Plan agents only)",
      params: idParams('agent_id'),
      querystring: countQuery,
      countHeader: true,
    }),
    async (request, reply) => {
      await enterpriseAgent(request.params.agent_id);
      const n = await countApplications(store, request.params.agent_id, null, filterOf(request.query));
      return reply.header('X-Entities-Count', n).code(204).send();
    },
  );

  app.get<{ Params: { agent_id: number; device_id: number }; Querystring: ApplicationQuery }>(
    '/agent/:agent_id/device/:device_id/application',
    route({
      operationId: 'listDeviceApplications',
      tags: TAG,
      summary: 'The applications of the device (Enterprise Plan agents only)',
      params: idParams('agent_id', 'device_id'),
      querystring: listQuery,
      response: { 200: { type: 'array', items: deviceApplicationSchema } },
    }),
    async (request) => {
      await enterpriseDevice(request.params.agent_id, request.params.device_id);
      const { agent_id, device_id } = request.params;
      return (await listApplications(store, agent_id, device_id, filterOf(request.query), page(request.query, 100))).map(deviceApplication);
    },
  );

  app.head<{ Params: { agent_id: number; device_id: number }; Querystring: ApplicationQuery }>(
    '/agent/:agent_id/device/:device_id/application',
    route({
      operationId: 'countDeviceApplications',
      tags: TAG,
      summary: 'Counts the applications of the device (Enterprise Plan agents only)',
      params: idParams('agent_id', 'device_id'),
      querystring: countQuery,
      countHeader: true,
    }),
    async (request, reply) => {
      await enterpriseDevice(request.params.agent_id, request.params.device_id);
      const { agent_id, device_id } = request.params;
      return reply.header('X-Entities-Count', await countApplications(store, agent_id, device_id, filterOf(request.query))).code(204).send();
    },
  );
}
