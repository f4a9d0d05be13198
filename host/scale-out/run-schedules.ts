// What the scale-out mode keeps in Redis for each association: one BullMQ job scheduler on the
// `runs` queue, its ID the association's ID, `every` its period, an `offset` that spreads the
// associations of one period over it, and the job template's data (RunJobData) that every run's job
// carries and that tells a later reconcile what was last upserted.
import { ScaleOutError } from '../contract/errors.js';

export const RUNS_QUEUE = 'runs';
export const RECONCILE_QUEUE = 'reconcile';
/** Job name of every run job (the scheduler's template name). */
export const RUN_JOB_NAME = 'run';

/** One association as the store wants it scheduled (the reconciler's desired set). */
export interface ScheduleEntry {
  associationId: number;
  periodMs: number;
  /** Changes whenever anything that needs a re-upsert changes (the agent's choice of what that is). */
  version: string;
  /** Runs with the same deviceKey share the per-agent device bound; default `association-<id>`. */
  deviceKey?: string;
}

/** The data of the scheduler's job template, hence of every run job it makes. */
export interface RunJobData {
  associationId: number;
  periodMs: number;
  version: string;
  deviceKey: string;
  /** The offset the scheduler was upserted with (ms into each period). */
  offsetMs: number;
}

export function schedulerIdOf(associationId: number): string {
  return String(associationId);
}

/** The association of a scheduler ID we made, or undefined for one we did not. */
export function associationOfSchedulerId(id: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(id)) return undefined;
  const value = Number(id);
  return Number.isSafeInteger(value) ? value : undefined;
}

export function deviceKeyOf(entry: Pick<ScheduleEntry, 'associationId' | 'deviceKey'>): string {
  return entry.deviceKey ?? `association-${entry.associationId}`;
}

/** FNV-1a (32 bit) of the text: stable across processes and releases, unlike anything seeded. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * The offset of an association's slots within its period: hash(id) mod period, in (0, period].
 * The same for every agent and every restart, so associations of one period are spread over it
 * deterministically. 0 is given as `period` (the same phase): BullMQ 6.7 reads offset 0 as "no
 * offset" and then starts the first run at once and keeps that arbitrary phase
 * (getJobSchedulerEveryNextMillis.lua).
 */
export function offsetOf(associationId: number, periodMs: number): number {
  const offset = fnv1a32(schedulerIdOf(associationId)) % periodMs;
  return offset === 0 ? periodMs : offset;
}

/**
 * The slot (scheduled time, epoch ms) of a run job: the millis in its ID `repeat:<schedulerId>:<millis>`.
 * That is the time BullMQ computed for the slot (epoch-aligned `every` plus the offset). The job's
 * timestamp + delay is not: promoting a delayed job sets its delay to 0 (promoteDelayedJobs.lua), and an
 * upsert that replaces a job already due re-creates it with timestamp = now.
 */
export function slotOfJobId(jobId: string | undefined, schedulerId: string): number | undefined {
  if (jobId === undefined) return undefined;
  const prefix = `repeat:${schedulerId}:`;
  if (!jobId.startsWith(prefix)) return undefined;
  const millis = jobId.slice(prefix.length);
  if (!/^\d{1,16}$/.test(millis)) return undefined;
  return Number(millis);
}

/** Checks one entry of loadSchedules(); throws INVALID_SCHEDULE naming it. */
export function validateEntry(entry: ScheduleEntry): void {
  const value = entry as unknown;
  if (typeof value !== 'object' || value === null) throw new ScaleOutError('INVALID_SCHEDULE', 'schedule entry: expected an object');
  const id = entry.associationId;
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new ScaleOutError('INVALID_SCHEDULE', `schedule entry: associationId must be a positive integer (got ${String(id)})`);
  }
  const name = `schedule of association ${id}`;
  if (typeof entry.periodMs !== 'number' || !Number.isSafeInteger(entry.periodMs) || entry.periodMs < 1) {
    throw new ScaleOutError('INVALID_SCHEDULE', `${name}: periodMs must be a positive integer of ms (got ${String(entry.periodMs)})`);
  }
  if (typeof entry.version !== 'string') {
    throw new ScaleOutError('INVALID_SCHEDULE', `${name}: version must be a string (got ${typeof entry.version})`);
  }
  if (entry.deviceKey !== undefined && (typeof entry.deviceKey !== 'string' || entry.deviceKey === '')) {
    throw new ScaleOutError('INVALID_SCHEDULE', `${name}: deviceKey must be a non-empty string when given`);
  }
}

/** The template data an entry is upserted with. */
export function jobDataOf(entry: ScheduleEntry): RunJobData {
  return {
    associationId: entry.associationId,
    periodMs: entry.periodMs,
    version: entry.version,
    deviceKey: deviceKeyOf(entry),
    offsetMs: offsetOf(entry.associationId, entry.periodMs),
  };
}

/** Reads a job's (or template's) data back; undefined when it is not ours or is malformed. */
export function readJobData(data: unknown): RunJobData | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  if (!Number.isSafeInteger(d.associationId) || !Number.isSafeInteger(d.periodMs)) return undefined;
  if (typeof d.version !== 'string' || typeof d.deviceKey !== 'string' || !Number.isSafeInteger(d.offsetMs)) return undefined;
  return {
    associationId: d.associationId as number,
    periodMs: d.periodMs as number,
    version: d.version,
    deviceKey: d.deviceKey,
    offsetMs: d.offsetMs as number,
  };
}
