// The driverbox extension API's schedule: in `driverbox agent` mode, each association of the agent
// as its scheduler has it (next due time, state, due and skipped counts, last run); in scale-out
// mode as the shared queue's job schedulers and the store have it. The source is the agent's
// read-only view (schedule-view.ts); without one (`driverbox serve`, which
// schedules nothing) the answer says so with `scheduler: "none"` rather than failing, so a client
// can tell "no scheduler here" from an error.
//
//   GET /driverbox-api/v1/agent/{agent_id}/schedule
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/store.js';
import { formatApiTime } from '../../store/db/time.js';
import { requireAgent } from '../monitoring/access.js';
import { page } from '../monitoring/query.js';
import { idParams, pagingQuery } from '../monitoring/route-schema.js';
import type { ScheduleAnswer, ScheduleEntry, ScheduleQueue } from './run-records.js';

/** One page of the schedule; in scale-out mode with who shares the queue. */
export interface SchedulePage {
  total: number;
  entries: ScheduleEntry[];
  queue?: ScheduleQueue;
}

/** What the agent lends the route: read-only. */
export interface ScheduleSource {
  /** The agent whose associations this process schedules (null before it started). */
  agentId(): number | null;
  /** embedded: this process's scheduler; queue: the scale-out queue. */
  mode(): 'embedded' | 'queue';
  /** One page of the scheduled associations (of one device), by association id, and how many there are. */
  page(query: { deviceId?: number; offset: number; limit: number }): SchedulePage | Promise<SchedulePage>;
}

interface ScheduleQuery {
  device_id?: number;
  page_size?: number;
  page_number?: number;
}

/** Registers the route on an app already behind the key check (runs-routes.ts). */
export function registerSchedule(api: FastifyInstance, options: { store: Store; schedule?: ScheduleSource }): void {
  api.get<{ Params: { agent_id: number }; Querystring: ScheduleQuery }>('/agent/:agent_id/schedule', {
    schema: {
      params: idParams('agent_id'),
      querystring: { type: 'object', properties: { ...pagingQuery(1000, 100), device_id: { type: 'integer', minimum: 0, maximum: 2147483647 } } },
    },
    handler: async (request): Promise<ScheduleAnswer> => {
      const agentId = request.params.agent_id;
      await requireAgent(options.store, agentId);
      const source = options.schedule;
      if (!source || source.agentId() !== agentId) return { scheduler: 'none', now: formatApiTime(Date.now()), total: 0, associations: [] };
      const { limit, offset } = page(request.query, 100, 1000);
      const { total, entries, queue } = await source.page({ deviceId: request.query.device_id, offset, limit });
      // After the page's reads (Redis and the store in scale-out mode), so "due in …" is measured from it.
      return { scheduler: source.mode(), ...(queue ? { queue } : {}), now: formatApiTime(Date.now()), total, associations: entries };
    },
  });
}
