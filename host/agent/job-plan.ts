// The embedded mode's plan: one scheduler job per enabled association of a monitored device,
// keyed `association-<id>`, brought in line with the store's associations at each refresh (new
// ones added, gone or disabled ones removed, a changed period, device or action list applied).
import type { AssociationSchedule } from '../store/drivers/associations.js';
import type { PlannedJob } from './agent-types.js';
import type { BackoffJob } from './backoff-tracker.js';
import type { Scheduler } from './scheduler/scheduler.js';

export const jobKey = (associationId: number): string => `association-${associationId}`;

/** What the backoff tracker knows of a planned job. */
export const backoffJob = (key: string, job: PlannedJob): BackoffJob => ({ key, associationId: job.schedule.id, name: job.name, periodMs: job.schedule.samplePeriod * 1000 });

/** The jobs the store's associations ask for, by key. */
export function wantedJobs(schedules: readonly AssociationSchedule[], actionsOf: (associationId: number) => string[]): Map<string, PlannedJob> {
  const wanted = new Map<string, PlannedJob>();
  for (const schedule of schedules) {
    // A device that is UNMANAGED or on the excluded list is not monitored: no driver runs on it.
    if (!schedule.enabled || !schedule.deviceMonitored) continue;
    wanted.set(jobKey(schedule.id), { schedule, name: `${schedule.driverName}@${schedule.deviceName}`, actions: actionsOf(schedule.id) });
  }
  return wanted;
}

/** Brings `planned` and the scheduler in line with `wanted`; `run` runs a job by its key. */
export function applyJobs(scheduler: Scheduler, planned: Map<string, PlannedJob>, wanted: ReadonlyMap<string, PlannedJob>, run: (key: string, signal: AbortSignal) => Promise<number>): void {
  for (const key of [...planned.keys()]) {
    if (wanted.has(key)) continue;
    scheduler.remove(key);
    planned.delete(key);
  }
  for (const [key, job] of wanted) {
    const before = planned.get(key);
    if (before && sameJob(before, job)) continue;
    planned.set(key, job);
    scheduler.upsert({ key, deviceKey: `device-${job.schedule.deviceId}`, periodMs: job.schedule.samplePeriod * 1000, run: (signal) => run(key, signal) });
  }
}

function sameJob(a: PlannedJob, b: PlannedJob): boolean {
  return (
    a.schedule.samplePeriod === b.schedule.samplePeriod &&
    a.schedule.deviceId === b.schedule.deviceId &&
    a.name === b.name &&
    a.actions.length === b.actions.length &&
    a.actions.every((action, i) => action === b.actions[i])
  );
}
