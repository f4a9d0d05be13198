// The agent's schedule as the console's schedule page reads it (GET …/agent/{id}/schedule): the
// scheduler's own figures per association (next due time, state, due and started counts,
// lateness), read through the agent's read-only accessor, plus what the scheduler only tells as
// events: skipped due times by reason and each association's last run. Those are counted here,
// from the agent's events, so the scheduler stays as it is (one map entry per association).
import type { EventEmitter } from 'node:events';
import type { ScheduleSource } from '../api/driverbox/schedule-routes.js';
import type { ScheduleEntry, ScheduleLastRun, SkipCounts } from '../api/driverbox/run-records.js';
import { formatApiTime } from '../store/time.js';
import type { SampleSummary, SkipReason } from './scheduler.js';

/** One scheduled association, as Agent.scheduledJobs() reads it from the scheduler. */
export interface ScheduledJob {
  associationId: number;
  /** driver@device */
  name: string;
  deviceId: number;
  driverId: number;
  actions: string[];
  periodMs: number;
  /** Wall-clock ms of the next due time; null once unscheduled or stopping. */
  nextDueAt: number | null;
  running: boolean;
  waiting: boolean;
  due: number;
  started: number;
  lateness: SampleSummary;
}

/** The part of the agent the view reads: its events and its accessor. */
export interface ScheduleViewAgent extends Pick<EventEmitter, 'on'> {
  readonly agentId: number | null;
  stats(): { mode: 'embedded' | 'queue' };
  scheduledJobs(): ScheduledJob[] | null;
}

interface Seen {
  skipped: SkipCounts;
  lastRun: ScheduleLastRun | null;
}

const noSkips = (): SkipCounts => ({ running: 0, waiting: 0, missed: 0, total: 0 });

export function createScheduleView(agent: ScheduleViewAgent): ScheduleSource {
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

  return {
    agentId: () => agent.agentId,
    mode: () => agent.stats().mode,
    entries: (): ScheduleEntry[] =>
      (agent.scheduledJobs() ?? []).map((job) => {
        const known = seen.get(job.associationId);
        return {
          association_id: job.associationId,
          device_id: job.deviceId,
          custom_driver_id: job.driverId,
          name: job.name,
          actions: job.actions,
          sample_period: job.periodMs / 1000,
          next_due: job.nextDueAt === null ? null : formatApiTime(job.nextDueAt),
          state: job.running ? 'running' : job.waiting ? 'waiting' : 'idle',
          due: job.due,
          started: job.started,
          skipped: known ? { ...known.skipped } : noSkips(),
          lateness_ms: { p50: Math.round(job.lateness.p50), p99: Math.round(job.lateness.p99), max: Math.round(job.lateness.max) },
          last_run: known?.lastRun ?? null,
        };
      }),
  };
}
