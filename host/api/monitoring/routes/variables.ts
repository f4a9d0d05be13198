// The variables operations: device variables (one device's, or all of an agent's devices'),
// the agent's own variables, their counts and their histories.
import type { FastifyInstance } from 'fastify';
import { checkedWhenEmpty, requireAgent, requireDevice } from '../access.js';
import type { Store } from '../../../store/store.js';
import { formatApiTime, formatApiTimeOrNull } from '../../../store/db/time.js';
import {
  countVariables,
  getVariable,
  listVariables,
  type VariableFilters,
  type VariableRow,
  type VariableScope,
  type VariableSortBy,
} from '../../../store/results/variables.js';
import { apiVisibleVariableHistory } from '../../../store/results/variable-history.js';
import { ApiError, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { page, timeWindow } from '../query.js';
import { withoutNulls } from '../present.js';
import { idParams, pagingQuery, timeWindowQuery, type ApiRouteSchema } from '../route-schema.js';
import {
  agentDeviceVariableSchema,
  variableHistorySampleSchema,
  variableSchema,
  type AgentDeviceVariable,
  type Variable,
  type VariableHistorySample,
} from '../schemas/variables.js';

const TAGS = ['variables'];

/** Checks a route's schema as an ApiRouteSchema (Fastify's own type does not know operationId…). */
export const routeSchema = (schema: ApiRouteSchema): ApiRouteSchema => schema;
const SORT_BY = ['path', 'id', 'value', 'label', 'value_update_time', 'creation_time'] as const;

const filterQuery = {
  value: { type: 'string', description: 'Only variables with exactly this value' },
  path: { type: 'string', description: 'Only the variable with exactly this path' },
  has_history: { type: 'boolean', description: 'Only variables whose has_history is this' },
  metric: { type: 'string', description: 'Only variables with exactly this metric' },
} as const;

function listQuery(sortBy: readonly string[]) {
  return {
    type: 'object',
    properties: {
      ...pagingQuery(1000, 100),
      ...filterQuery,
      sort_by: { type: 'string', enum: sortBy, default: 'id', description: `Ordering: ${sortBy.join(', ')}` },
      sorting_direction: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
    },
  } as const;
}

const countQuery = { type: 'object', properties: filterQuery } as const;
const historyQuery = { type: 'object', properties: timeWindowQuery } as const;

interface FilterQuery {
  value?: string;
  path?: string;
  has_history?: boolean;
  metric?: string;
}

interface ListQuery extends FilterQuery {
  page_size?: number;
  page_number?: number;
  sort_by?: VariableSortBy;
  sorting_direction?: 'asc' | 'desc';
}

function filtersOf(query: FilterQuery): VariableFilters {
  return { value: query.value, path: query.path, hasHistory: query.has_history, metric: query.metric };
}

function toVariable(row: VariableRow): Variable {
  return withoutNulls({
    id: row.id,
    path: row.path,
    label: row.label,
    unit: row.unit,
    value: row.value,
    previous_value: row.previousValue,
    metric: row.metric,
    has_history: row.hasHistory,
    creation_time: formatApiTimeOrNull(row.creationTime),
    value_update_time: formatApiTimeOrNull(row.valueUpdateTime),
  });
}

/**
 * A page of variables, the agent (and device) checked inside the query: one statement when it
 * finds rows; the reason for a 404 / 403 is looked for (`check`) only when it finds none.
 */
async function list(store: Store, scope: VariableScope, query: ListQuery, check: () => Promise<unknown>): Promise<VariableRow[]> {
  return await checkedWhenEmpty(async () => {
    const { limit, offset } = page(query, 100);
    return await listVariables(store, scope, { ...filtersOf(query), sortBy: query.sort_by, direction: query.sorting_direction, limit, offset, apiVisible: true });
  }, check);
}

/**
 * A variable's samples in the request's window, the agent, device and variable checked inside
 * the query (one statement when there are samples); the reason for a 404 / 403 is looked for
 * only when there are none. `owner.deviceId` null: one of the agent's own variables.
 */
async function history(
  store: Store,
  owner: { agentId: number; deviceId: number | null },
  variableId: number,
  query: { from?: string; to?: string },
): Promise<VariableHistorySample[]> {
  const check = async () => {
    if (owner.deviceId === null) await requireAgent(store, owner.agentId);
    else await requireDevice(store, owner.agentId, owner.deviceId);
    const variable = await getVariable(store, variableId);
    if (!variable || variable.agentId !== owner.agentId || variable.deviceId !== owner.deviceId) throw notFound('variable', variableId);
  };
  const samples = await checkedWhenEmpty(async () => {
    const { from, to } = timeWindow(query, store.now());
    return await apiVisibleVariableHistory(store, owner, variableId, from, to);
  }, check);
  return samples.map((s) => ({ timestamp: formatApiTime(s.timestamp), value: s.value }));
}

export function registerVariableRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  app.get<{ Params: { agent_id: number }; Querystring: ListQuery }>('/agent/:agent_id/device/variable', {
    schema: routeSchema({
      operationId: 'listAgentDeviceVariables',
      tags: TAGS,
      summary: 'Retrieves the list of all device variables of the agent',
      params: idParams('agent_id'),
      querystring: listQuery([...SORT_BY, 'device_id']),
      response: { 200: { type: 'array', items: agentDeviceVariableSchema } },
    }),
    handler: async (request): Promise<AgentDeviceVariable[]> => {
      const agentId = request.params.agent_id;
      const rows = await list(store, { kind: 'agent-devices', agentId }, request.query, () => requireAgent(store, agentId));
      return rows.map((row) => ({ ...toVariable(row), device_id: row.deviceId! }));
    },
  });

  app.head<{ Params: { agent_id: number }; Querystring: FilterQuery }>('/agent/:agent_id/device/variable', {
    schema: routeSchema({
      operationId: 'countAgentDeviceVariables',
      tags: TAGS,
      summary: 'Returns the device variables count of the agent',
      params: idParams('agent_id'),
      querystring: countQuery,
      countHeader: true,
    }),
    handler: async (request, reply) => {
      const agentId = request.params.agent_id;
      await requireAgent(store, agentId);
      const n = await countVariables(store, { kind: 'agent-devices', agentId }, filtersOf(request.query));
      return reply.header('X-Entities-Count', n).code(204).send();
    },
  });

  app.get<{ Params: { agent_id: number; device_id: number }; Querystring: ListQuery }>('/agent/:agent_id/device/:device_id/variable', {
    schema: routeSchema({
      operationId: 'listDeviceVariables',
      tags: TAGS,
      summary: 'Retrieves the list of device variables',
      params: idParams('agent_id', 'device_id'),
      querystring: listQuery(SORT_BY),
      response: { 200: { type: 'array', items: variableSchema } },
    }),
    handler: async (request): Promise<Variable[]> => {
      const { agent_id: agentId, device_id: deviceId } = request.params;
      return (await list(store, { kind: 'device', agentId, deviceId }, request.query, () => requireDevice(store, agentId, deviceId))).map(toVariable);
    },
  });

  app.head<{ Params: { agent_id: number; device_id: number }; Querystring: FilterQuery }>('/agent/:agent_id/device/:device_id/variable', {
    schema: routeSchema({
      operationId: 'countDeviceVariables',
      tags: TAGS,
      summary: 'Returns device variables count',
      params: idParams('agent_id', 'device_id'),
      querystring: countQuery,
      countHeader: true,
    }),
    handler: async (request, reply) => {
      const { agent_id: agentId, device_id: deviceId } = request.params;
      await requireDevice(store, agentId, deviceId);
      const n = await countVariables(store, { kind: 'device', agentId, deviceId }, filtersOf(request.query));
      return reply.header('X-Entities-Count', n).code(204).send();
    },
  });

  app.get<{ Params: { agent_id: number; device_id: number; variable_id: number }; Querystring: { from?: string; to?: string } }>(
    '/agent/:agent_id/device/:device_id/variable/:variable_id/history',
    {
      schema: routeSchema({
        operationId: 'getVariableHistory',
        tags: TAGS,
        summary: 'Returns the variable history',
        params: idParams('agent_id', 'device_id', 'variable_id'),
        querystring: historyQuery,
        response: { 200: { type: 'array', items: variableHistorySampleSchema } },
      }),
      handler: async (request): Promise<VariableHistorySample[]> => {
        const { agent_id: agentId, device_id: deviceId, variable_id: variableId } = request.params;
        return await history(store, { agentId, deviceId }, variableId, request.query);
      },
    },
  );

  app.get<{ Params: { agent_id: number }; Querystring: ListQuery }>('/agent/:agent_id/variable', {
    schema: routeSchema({
      operationId: 'listAgentVariables',
      tags: TAGS,
      summary: 'Retrieves the list of all agent variables of the agent',
      params: idParams('agent_id'),
      querystring: listQuery(SORT_BY),
      response: { 200: { type: 'array', items: variableSchema } },
    }),
    handler: async (request): Promise<Variable[]> => {
      const agentId = request.params.agent_id;
      return (await list(store, { kind: 'agent', agentId }, request.query, () => requireAgent(store, agentId))).map(toVariable);
    },
  });

  app.head<{ Params: { agent_id: number }; Querystring: FilterQuery }>('/agent/:agent_id/variable', {
    schema: routeSchema({
      operationId: 'countAgentVariables',
      tags: TAGS,
      summary: 'Returns the agent variables count of the agent',
      params: idParams('agent_id'),
      querystring: countQuery,
      countHeader: true,
    }),
    handler: async (request, reply) => {
      const agentId = request.params.agent_id;
      await requireAgent(store, agentId);
      const n = await countVariables(store, { kind: 'agent', agentId }, filtersOf(request.query));
      return reply.header('X-Entities-Count', n).code(204).send();
    },
  });

  app.get<{ Params: { agent_id: number; variable_id: number }; Querystring: { from?: string; to?: string } }>(
    '/agent/:agent_id/variable/:variable_id/history',
    {
      schema: routeSchema({
        operationId: 'getAgentVariableHistory',
        tags: TAGS,
        summary: 'Returns the agent variable history',
        params: idParams('agent_id', 'variable_id'),
        querystring: historyQuery,
        response: { 200: { type: 'array', items: variableHistorySampleSchema } },
      }),
      handler: async (request): Promise<VariableHistorySample[]> => {
        const { agent_id: agentId, variable_id: variableId } = request.params;
        return await history(store, { agentId, deviceId: null }, variableId, request.query);
      },
    },
  );
}
