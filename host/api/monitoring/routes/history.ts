// Uptime and status histories of agents and devices (tag "metrics"), computed from the status
// events the store keeps (status-history.ts) within the request's time window.
import type { FastifyInstance } from 'fastify';
import { listAgents } from '../../../store/fleet/agents.js';
import { agentUptime, deviceUptime, listAgentEvents, listDeviceEvents, type Uptime } from '../../../store/fleet/status-history.js';
import { formatApiTime } from '../../../store/db/time.js';
import { requireAgent, requireDevice } from '../access.js';
import type { ApiContext } from '../context.js';
import { timeWindow } from '../query.js';
import { idParams, timeWindowQuery, type ApiRouteSchema } from '../route-schema.js';
import {
  agentHistoryEventSchema,
  agentUptimeSchema,
  deviceHistoryEventSchema,
  deviceUptimeSchema,
  type AgentHistoryEvent,
  type AgentUptime,
  type DeviceHistoryEvent,
  type DeviceUptime,
  type TimeWindowQuery,
} from '../schemas/history.js';

const TAGS = ['metrics'];
const windowQuery = { type: 'object', properties: timeWindowQuery } as const;
type DevicePath = { agent_id: number; device_id: number };

function uptimeFields(uptime: Uptime): Omit<AgentUptime, 'agent_id'> {
  return {
    online_seconds: uptime.onlineSeconds,
    total_seconds: uptime.totalSeconds,
    uptime: uptime.uptime,
    downtime_intervals: uptime.downtimeIntervals.map((i) => ({ start: formatApiTime(i.start), end: formatApiTime(i.end) })),
  };
}

export function registerHistoryRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  const listUptime: ApiRouteSchema = {
    operationId: 'getAgentListUptime',
    tags: TAGS,
    summary: 'Returns the uptime of all agents (those with API access)',
    querystring: windowQuery,
    response: { 200: { type: 'array', items: agentUptimeSchema } },
  };
  app.get<{ Querystring: TimeWindowQuery }>('/agent/uptime', { schema: listUptime }, async (request): Promise<AgentUptime[]> => {
    const window = timeWindow(request.query, store.now());
    const agents = (await listAgents(store)).filter((agent) => agent.apiEnabled);
    return Promise.all(agents.map(async (agent) => ({ agent_id: agent.id, ...uptimeFields(await agentUptime(store, agent.id, window)) })));
  });

  const oneUptime: ApiRouteSchema = {
    operationId: 'getAgentUptime',
    tags: TAGS,
    summary: 'Returns the uptime of the agent',
    params: idParams('agent_id'),
    querystring: windowQuery,
    response: { 200: agentUptimeSchema },
  };
  app.get<{ Params: { agent_id: number }; Querystring: TimeWindowQuery }>('/agent/:agent_id/uptime', { schema: oneUptime }, async (request): Promise<AgentUptime> => {
    const agent = await requireAgent(store, request.params.agent_id);
    const window = timeWindow(request.query, store.now());
    return { agent_id: agent.id, ...uptimeFields(await agentUptime(store, agent.id, window)) };
  });

  const agentHistory: ApiRouteSchema = {
    operationId: 'getAgentStatusHistory',
    tags: TAGS,
    summary: 'Returns the time series of the state changes of the agent',
    params: idParams('agent_id'),
    querystring: windowQuery,
    response: { 200: { type: 'array', items: agentHistoryEventSchema } },
  };
  app.get<{ Params: { agent_id: number }; Querystring: TimeWindowQuery }>(
    '/agent/:agent_id/history/network/event',
    { schema: agentHistory },
    async (request): Promise<AgentHistoryEvent[]> => {
      const agent = await requireAgent(store, request.params.agent_id);
      const window = timeWindow(request.query, store.now());
      return (await listAgentEvents(store, agent.id, window)).map((e) => ({ timestamp: formatApiTime(e.timestamp), type: e.type }));
    },
  );

  const deviceHistory: ApiRouteSchema = {
    operationId: 'getDeviceStatusHistory',
    tags: TAGS,
    summary: 'Returns the time series of the state changes of the device',
    params: idParams('agent_id', 'device_id'),
    querystring: windowQuery,
    response: { 200: { type: 'array', items: deviceHistoryEventSchema } },
  };
  app.get<{ Params: DevicePath; Querystring: TimeWindowQuery }>(
    '/agent/:agent_id/device/:device_id/history/network/event',
    { schema: deviceHistory },
    async (request): Promise<DeviceHistoryEvent[]> => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const window = timeWindow(request.query, store.now());
      return (await listDeviceEvents(store, device.id, window)).map((e) => ({
        timestamp: formatApiTime(e.timestamp),
        type: e.type,
        ...(e.details ? { details: e.details } : {}),
      }));
    },
  );

  const deviceUptimeRoute: ApiRouteSchema = {
    operationId: 'getDeviceUptime',
    tags: TAGS,
    summary: 'Returns the uptime of the device, with its agent\'s over the same window',
    params: idParams('agent_id', 'device_id'),
    querystring: windowQuery,
    response: { 200: deviceUptimeSchema },
  };
  app.get<{ Params: DevicePath; Querystring: TimeWindowQuery }>(
    '/agent/:agent_id/device/:device_id/uptime',
    { schema: deviceUptimeRoute },
    async (request): Promise<DeviceUptime> => {
      const device = await requireDevice(store, request.params.agent_id, request.params.device_id);
      const window = timeWindow(request.query, store.now());
      return { agent_uptime: (await agentUptime(store, device.agentId, window)).uptime, ...uptimeFields(await deviceUptime(store, device.id, window)) };
    },
  );
}
