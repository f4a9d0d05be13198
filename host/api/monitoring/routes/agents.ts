// Agents (tag "agent"): list with paging and filters, count, detail, delete. Agents whose
// access_right.api_enabled is false are listed and counted, but every other operation on them
// answers 403 (see access.ts).
import type { FastifyInstance } from 'fastify';
import { countAgents, deleteAgent, listAgents, type AgentFilter, type AgentRow } from '../../../store/fleet/agents.js';
import { formatApiTime } from '../../../store/db/time.js';
import { requireAgent } from '../access.js';
import type { ApiContext } from '../context.js';
import { page } from '../query.js';
import { idParams, pagingQuery, type ApiRouteSchema } from '../route-schema.js';
import { withoutNulls } from '../present.js';
import { agentDetailSchema, agentSchema, type Agent, type AgentDetail, type AgentListQuery } from '../schemas/agents.js';

const TAGS = ['agent'];
const filterQuery = {
  display_name: { type: 'string', description: 'Only agents whose display_name contains this text (case-insensitive)' },
  team_name: { type: 'string', description: 'Only agents of the team with this name (case-insensitive; companies only)' },
} as const;

/** The API record of an agent; the nested objects kept in `extra` are shown as stored. */
export function agentRecord(row: AgentRow): Agent {
  return withoutNulls(agentFields(row));
}

function agentFields(row: AgentRow): Agent {
  const extra = row.extra as Partial<Record<'installation_info' | 'licence' | 'location' | 'organization' | 'team', Record<string, unknown>>>;
  return {
    id: row.id,
    display_name: row.displayName,
    creation_time: formatApiTime(row.creationTime),
    access_right: {
      api_enabled: row.apiEnabled,
      ...(row.grantingUser ? { granting_user: { name: row.grantingUser } } : {}),
      status: row.accessStatus,
    },
    status: { value: row.status, last_change: formatApiTime(row.statusLastChange) },
    version: { agent: row.agentVersion ?? undefined, package: row.packageVersion ?? undefined },
    timezone: row.timezone,
    ...(extra.installation_info ? { installation_info: extra.installation_info } : {}),
    ...(extra.licence ? { licence: extra.licence } : {}),
    ...(extra.location ? { location: extra.location } : {}),
    ...(extra.organization ? { organization: extra.organization } : {}),
    ...(extra.team ? { team: extra.team } : {}),
  };
}

export function agentDetailRecord(row: AgentRow): AgentDetail {
  return { ...agentRecord(row), ...(row.listenOn === null ? {} : { listen_on: row.listenOn }) };
}

function filterOf(query: AgentListQuery): AgentFilter {
  return { displayName: query.display_name, teamName: query.team_name };
}

export function registerAgentRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  const list: ApiRouteSchema = {
    operationId: 'listAgents',
    tags: TAGS,
    summary: 'Returns the agents list',
    querystring: { type: 'object', properties: { ...pagingQuery(100, 10), ...filterQuery } },
    response: { 200: { type: 'array', items: agentSchema } },
  };
  app.get<{ Querystring: AgentListQuery }>('/agent', { schema: list }, async (request) =>
    (await listAgents(store, filterOf(request.query), page(request.query, 10))).map(agentRecord),
  );

  const count: ApiRouteSchema = {
    operationId: 'countAgents',
    tags: TAGS,
    summary: 'Counts the agents',
    countHeader: true,
    querystring: { type: 'object', properties: filterQuery },
    response: { 204: { type: 'null' } },
  };
  app.head<{ Querystring: AgentListQuery }>('/agent', { schema: count }, async (request, reply) => {
    return reply.header('X-Entities-Count', await countAgents(store, filterOf(request.query))).code(204).send();
  });

  const get: ApiRouteSchema = {
    operationId: 'getAgent',
    tags: TAGS,
    summary: 'Returns the details of an agent',
    params: idParams('agent_id'),
    response: { 200: agentDetailSchema },
  };
  app.get<{ Params: { agent_id: number } }>('/agent/:agent_id', { schema: get }, async (request) =>
    agentDetailRecord(await requireAgent(store, request.params.agent_id)),
  );

  const remove: ApiRouteSchema = {
    operationId: 'deleteAgent',
    tags: TAGS,
    summary: 'Deletes an agent with its devices, variables and histories',
    params: idParams('agent_id'),
    response: { 204: { type: 'null' } },
  };
  app.delete<{ Params: { agent_id: number } }>('/agent/:agent_id', { schema: remove }, async (request, reply) => {
    await requireAgent(store, request.params.agent_id);
    await deleteAgent(store, request.params.agent_id);
    return reply.code(204).send();
  });
}
