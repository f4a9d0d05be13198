// The rules that make "no double runs" hold with BullMQ (SCALE-OUT.md 4.2, docs/architecture/scale-out.md).
// D is a run's wall deadline: the longest one job's callback may take (all its actions together).
//
// 1. Config rule: D < period and D + margin < lockDuration. A live worker renews its lock, and a lock
//    cannot expire before start + lockDuration, so a cut-off worker's run has ended (start + D) before
//    any other worker can re-queue the job.
// 2. Start rule: a job starts only while now ≤ slot + period − D; otherwise it is skipped-late. A
//    re-queued stale job therefore never runs into its successor's slot.
// 3. Write rule: the store refuses a second result for (association, slot); the worker only counts it.
import { ScaleOutError } from '../contract/errors.js';

/** Default margin between D and the lock duration: clock rates, GC pauses, the last lock renewal. */
export const DEFAULT_LOCK_MARGIN_MS = 5_000;

export interface DeadlineOptions {
  /** D: a job's wall deadline, ms. */
  deadlineMs: number;
  /** BullMQ's lockDuration, ms. */
  lockDurationMs: number;
  /** Safety margin, ms (default 5 s). */
  marginMs?: number;
}

function positive(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ScaleOutError('INVALID_OPTIONS', `${name} must be a positive number of ms (got ${String(value)})`);
  }
}

/** Config rule, the lock half: D + margin < lockDuration. Throws DEADLINE_NOT_BELOW_LOCK. */
export function checkLockRule(options: DeadlineOptions): void {
  const marginMs = options.marginMs ?? DEFAULT_LOCK_MARGIN_MS;
  positive('deadlineMs', options.deadlineMs);
  positive('lockDurationMs', options.lockDurationMs);
  if (typeof marginMs !== 'number' || !Number.isFinite(marginMs) || marginMs < 0) {
    throw new ScaleOutError('INVALID_OPTIONS', `marginMs must be a number ≥ 0 (got ${String(marginMs)})`);
  }
  if (options.deadlineMs + marginMs >= options.lockDurationMs) {
    throw new ScaleOutError(
      'DEADLINE_NOT_BELOW_LOCK',
      `run deadline ${options.deadlineMs} ms + margin ${marginMs} ms must be below the lock duration ${options.lockDurationMs} ms ` +
        `(raise lockDurationMs to more than ${options.deadlineMs + marginMs} ms, or shorten the deadline): ` +
        'otherwise a stalled run could still be going when another agent takes its job',
    );
  }
}

/** Config rule, the period half: D < period. Throws DEADLINE_NOT_BELOW_PERIOD naming the association. */
export function checkPeriodRule(deadlineMs: number, periodMs: number, associationId?: number): void {
  positive('deadlineMs', deadlineMs);
  positive('periodMs', periodMs);
  if (deadlineMs >= periodMs) {
    const who = associationId === undefined ? 'a schedule' : `association ${associationId}`;
    throw new ScaleOutError(
      'DEADLINE_NOT_BELOW_PERIOD',
      `${who}: the run deadline ${deadlineMs} ms must be shorter than the period ${periodMs} ms ` +
        '(a run must end before its next slot may start; lengthen the period or shorten the deadline)',
    );
  }
}

/** Start rule: the last moment a run of this slot may start (epoch ms). */
export function latestStartMs(slotMs: number, periodMs: number, deadlineMs: number): number {
  return slotMs + periodMs - deadlineMs;
}

/** Start rule: true when a run of this slot must not start at `now` (skipped-late). */
export function tooLateToStart(nowMs: number, slotMs: number, periodMs: number, deadlineMs: number): boolean {
  return nowMs > latestStartMs(slotMs, periodMs, deadlineMs);
}
