// What the scheduler runs: a key, the device whose bound it counts against, a period and a function.
// The scheduler knows nothing of drivers; the agent wraps a driver run in `run`.
import { SchedulerError } from '../../contract/errors.js';

export interface SchedulerJob {
  /** Unique among the scheduler's jobs (an association id, for the agent). */
  key: string;
  /** Runs of jobs with the same deviceKey share the per-device bound. */
  deviceKey: string;
  /** Time between two due times of this job. */
  periodMs: number;
  /**
   * One run. The signal aborts when stop()'s grace runs out; a run that ignores it still counts
   * as running (and blocks its job) until its promise settles.
   */
  run: (signal: AbortSignal) => Promise<unknown>;
}

/** Throws a SchedulerError naming the job and the field when the job cannot be scheduled. */
export function validateJob(job: SchedulerJob): void {
  const value = job as unknown;
  if (typeof value !== 'object' || value === null) throw new SchedulerError('INVALID_JOB', 'scheduler job: expected an object');
  if (typeof job.key !== 'string' || job.key === '') {
    throw new SchedulerError('INVALID_JOB', `scheduler job: key must be a non-empty string (got ${describe(job.key)})`);
  }
  const name = `scheduler job "${job.key}"`;
  if (typeof job.deviceKey !== 'string' || job.deviceKey === '') {
    throw new SchedulerError('INVALID_JOB', `${name}: deviceKey must be a non-empty string (got ${describe(job.deviceKey)})`);
  }
  if (typeof job.periodMs !== 'number' || !Number.isFinite(job.periodMs) || job.periodMs <= 0) {
    throw new SchedulerError('INVALID_JOB', `${name}: periodMs must be a positive number of milliseconds (got ${describe(job.periodMs)})`);
  }
  if (typeof job.run !== 'function') {
    throw new SchedulerError('INVALID_JOB', `${name}: run must be a function (got ${describe(job.run)})`);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  return typeof value;
}
