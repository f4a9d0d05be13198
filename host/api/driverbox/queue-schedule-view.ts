// The schedule page in scale-out mode (`driverbox agent --queue …`): the agent's associations as
// the store has them (the ones the reconciler schedules: enabled, on a monitored device), each with
// its job scheduler in the shared queue (next slot, period, offset, iterations), whether a run of
// it is in flight or waiting on any agent, its last finished run from the store with the agent
// process that ran it, and the due times this agent process skipped. Everything is read for the
// page asked for only: one store query for the list, one for the last runs, one Redis call per
// scheduler of the page and two for the jobs in flight and waiting.
import type { SchedulePage } from './schedule-routes.js';
import type { ScheduleEntry, SkipCounts } from './run-records.js';
import type { ScheduleReader } from '../../scale-out/schedule-reader.js';
import { listAssociationSchedules } from '../../store/drivers/associations.js';
import { lastRunsOf } from '../../store/runs/last-runs.js';
import type { Store } from '../../store/store.js';
import { formatApiTime } from '../../store/db/time.js';

export interface QueueScheduleContext {
  store: Store;
  agentId: number;
  reader: ScheduleReader;
  /** This agent process's name on the queue. */
  name: string;
  /** The due times this agent process skipped (its worker's start rule), by association. */
  skippedOf(associationId: number): SkipCounts;
  /** The actions an association runs (the inventory's, else get_status). */
  actionsOf(associationId: number): string[];
}

export async function queueSchedulePage(context: QueueScheduleContext, query: { deviceId?: number; offset: number; limit: number }): Promise<SchedulePage> {
  const { store, agentId, reader } = context;
  // What the reconciler schedules (queue-runs.ts loadSchedules), by association id.
  const all = (await listAssociationSchedules(store, agentId)).filter((s) => s.enabled && s.deviceMonitored && (query.deviceId === undefined || s.deviceId === query.deviceId));
  const shown = all.slice(query.offset, query.offset + query.limit);
  const ids = shown.map((s) => s.id);
  const [schedulers, now, lastRuns, agents] = await Promise.all([reader.schedulers(ids), reader.now(), lastRunsOf(store, agentId, ids), reader.agents()]);
  const entries = shown.map((s): ScheduleEntry => {
    const scheduler = schedulers.get(s.id);
    const last = lastRuns.get(s.id);
    return {
      association_id: s.id,
      device_id: s.deviceId,
      custom_driver_id: s.customDriverId,
      name: `${s.driverName}@${s.deviceName}`,
      // The reconciler upserts the store's period; until it has, the store's is the one that will apply.
      sample_period: scheduler ? scheduler.everyMs / 1000 : s.samplePeriod,
      actions: context.actionsOf(s.id),
      next_due: scheduler?.nextMs == null ? null : formatApiTime(scheduler.nextMs),
      ...(scheduler ? { offset_ms: scheduler.offsetMs } : {}),
      state: now.running.has(s.id) ? 'running' : now.waiting.has(s.id) ? 'waiting' : 'idle',
      due: scheduler?.iterations ?? 0,
      started: null,
      skipped: context.skippedOf(s.id),
      lateness_ms: null,
      last_run: last
        ? { run_id: last.id, action: last.action, started: formatApiTime(last.started), elapsed_ms: last.elapsedMs, outcome: last.outcome, error_type: last.errorType, runner: last.runner }
        : null,
    };
  });
  // This agent is on the queue even between its worker's connections (it answers this request).
  const sharing = agents.includes(context.name) ? agents : [...agents, context.name].sort();
  return { total: all.length, entries, queue: { agents: sharing, this_agent: context.name } };
}
