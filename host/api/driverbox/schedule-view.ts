// The agent's schedule as the console's schedule page reads it (GET …/agent/{id}/schedule): the
// scheduler's own figures per association (next due time, state, due and started counts,
// lateness), read through the agent's read-only accessor, plus what the scheduler only tells as
// events: skipped due times by reason and each association's last run. Those are counted here,
// from the agent's events, so the scheduler stays as it is (one map entry per association).
//
// Cost: a job's figures include its lateness summary (a sort of its recent samples), so they are
// read for the page asked for only; the list is paged in association order (cheap, and a page does
// not shift as due times pass), the console sorts a page by next due time.
//
// In scale-out mode there is no scheduler here: the page is read from the queue and the store
// (queue-schedule-view.ts), with this agent's skips counted here as well.
import type { EventEmitter } from 'node:events';
import type { ScheduleSource } from './schedule-routes.js';
import type { ScheduleReader } from '../../scale-out/schedule-reader.js';
import type { Store } from '../../store/store.js';
import { queueSchedulePage } from './queue-schedule-view.js';
import type { ScheduleEntry, ScheduleLastRun, SkipCounts } from './run-records.js';
import { formatApiTime } from '../../store/db/time.js';
import type { SkipReason } from '../../agent/scheduler/types.js';
import type { ScheduledAssociation, ScheduleFigures } from '../../agent/agent-types.js';

/** The part of the agent the view reads: its events and its accessors. */
export interface ScheduleViewAgent extends Pick<EventEmitter, 'on'> {
  readonly agentId: number | null;
  stats(): { mode: 'embedded' | 'queue' };
  scheduledAssociations(): ScheduledAssociation[] | null;
  scheduleFigures(associationId: number): ScheduleFigures | undefined;
  /** Scale-out mode: the queue's schedule, read-only, and this agent process's name on it; null otherwise. */
  queueSchedule(): { reader: ScheduleReader; name: string; actionsOf(associationId: number): string[] } | null;
}

interface Seen {
  skipped: SkipCounts;
  lastRun: ScheduleLastRun | null;
}

const noSkips = (): SkipCounts => ({ running: 0, waiting: 0, missed: 0, backoff: 0, total: 0 });

/** The view; `store` is where scale-out mode reads the associations and their last runs. */
export function createScheduleView(agent: ScheduleViewAgent, store: Store): ScheduleSource {
  const seen = new Map<number, Seen>();
  const of = (associationId: number): Seen => {
    let entry = seen.get(associationId);
    if (!entry) seen.set(associationId, (entry = { skipped: noSkips(), lastRun: null }));
    return entry;
  };
  agent.on('runSkipped', (event: { associationId: number; reason: SkipReason; count: number }) => {
    const skipped = of(event.associationId).skipped;
    skipped[event.reason] += event.count;
    skipped.total += event.count;
  });
  agent.on('runFinished', (event: { associationId: number; action: string; runId: number | null; result: { status: 'success' | 'failure'; errorType: string | null; durationMs: number } }) => {
    const elapsed = Math.max(0, Math.round(event.result.durationMs));
    of(event.associationId).lastRun = {
      run_id: event.runId,
      action: event.action,
      started: formatApiTime(Date.now() - elapsed),
      elapsed_ms: elapsed,
      outcome: event.result.status,
      error_type: event.result.errorType,
    };
  });

  const present = (association: ScheduledAssociation, figures: ScheduleFigures): ScheduleEntry => {
    const known = seen.get(association.associationId);
    return {
      association_id: association.associationId,
      device_id: association.deviceId,
      custom_driver_id: association.driverId,
      name: association.name,
      actions: association.actions,
      sample_period: figures.periodMs / 1000,
      next_due: figures.nextDueAt === null ? null : formatApiTime(figures.nextDueAt),
      state: figures.running ? 'running' : figures.waiting ? 'waiting' : 'idle',
      due: figures.due,
      started: figures.started,
      skipped: known ? { ...known.skipped } : noSkips(),
      lateness_ms: { p50: Math.round(figures.lateness.p50), p99: Math.round(figures.lateness.p99), max: Math.round(figures.lateness.max) },
      last_run: known?.lastRun ?? null,
    };
  };

  return {
    agentId: () => agent.agentId,
    mode: () => agent.stats().mode,
    page: ({ deviceId, offset, limit }) => {
      const queue = agent.queueSchedule();
      if (queue && agent.agentId !== null) {
        const skippedOf = (id: number) => ({ ...(seen.get(id)?.skipped ?? noSkips()) });
        return queueSchedulePage({ ...queue, store, agentId: agent.agentId, skippedOf }, { deviceId, offset, limit });
      }
      const all = (agent.scheduledAssociations() ?? []).filter((a) => deviceId === undefined || a.deviceId === deviceId);
      all.sort((a, b) => a.associationId - b.associationId);
      const entries: ScheduleEntry[] = [];
      for (const association of all.slice(offset, offset + limit)) {
        const figures = agent.scheduleFigures(association.associationId);
        if (figures) entries.push(present(association, figures));
      }
      return { total: all.length, entries };
    },
  };
}
