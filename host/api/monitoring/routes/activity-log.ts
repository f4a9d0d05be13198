// The activity log of an agent (getAgentActivityLog): what ran or was done, by whom, when.
import type { FastifyInstance } from 'fastify';
import { ACTIVITY_TYPES, listActivity, type ActivityRow } from '../../../store/fleet/activity-log.js';
import { formatApiTime } from '../../../store/db/time.js';
import type { ApiContext } from '../context.js';
import { timeWindow } from '../query.js';
import { idParams, timeWindowQuery } from '../route-schema.js';
import { activityLogEntrySchema, type ActivityLogEntry } from '../schemas/activity-log.js';
import { requireAgent } from '../access.js';
import { routeSchema } from './variables.js';

function toEntry(row: ActivityRow): ActivityLogEntry {
  return {
    timestamp: formatApiTime(row.timestamp),
    type: row.type as ActivityLogEntry['type'],
    user: row.user,
    description: row.description,
    ...(row.deviceId !== null ? { device_id: row.deviceId } : {}),
    ...(row.details !== null ? { details: row.details } : {}),
  };
}

export function registerActivityLogRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;
  app.get<{ Params: { agent_id: number }; Querystring: { from?: string; to?: string; type?: string[] } }>('/agent/:agent_id/activity-log', {
    schema: routeSchema({
      operationId: 'getAgentActivityLog',
      tags: ['Activity Log'],
      summary: 'Retrieves the activity log of an agent',
      params: idParams('agent_id'),
      querystring: {
        type: 'object',
        properties: {
          ...timeWindowQuery,
          // The reference: "only the specified type(s)": one type, or several as repeated parameters.
          type: { type: 'array', items: { type: 'string', enum: ACTIVITY_TYPES }, description: 'Only entries of these types' },
        },
      },
      response: { 200: { type: 'array', items: activityLogEntrySchema } },
    }),
    handler: async (request): Promise<ActivityLogEntry[]> => {
      const agentId = request.params.agent_id;
      await requireAgent(store, agentId);
      const { from, to } = timeWindow(request.query, store.now());
      return (await listActivity(store, agentId, { from, to, types: request.query.type })).map(toEntry);
    },
  });
}
