// Errors the scale-out run source throws at its caller: a bad queue URL, a Redis that may evict
// BullMQ's keys, options that break the rules of docs/SCALE-OUT-QUEUE.md, a call on a closed part.
export type ScaleOutErrorCode =
  /** The --queue URL is not a usable redis:// or rediss:// URL (the message names what is wrong). */
  | 'INVALID_QUEUE_URL'
  /** The Redis server answers, but its maxmemory-policy is not noeviction. */
  | 'REDIS_EVICTION_POLICY'
  /** The Redis server did not answer (connect, PING or INFO) in time. */
  | 'REDIS_UNREACHABLE'
  /** An option has the wrong type or range. */
  | 'INVALID_OPTIONS'
  /** Config rule: the run deadline D must be shorter than the association's period. */
  | 'DEADLINE_NOT_BELOW_PERIOD'
  /** Config rule: D + margin must be shorter than the BullMQ lock duration. */
  | 'DEADLINE_NOT_BELOW_LOCK'
  /** A schedule entry from loadSchedules() is malformed (the message names the entry and field). */
  | 'INVALID_SCHEDULE'
  /** The worker or reconciler was stopped. */
  | 'CLOSED'
  /** waitForReconcile: the reconcile job did not finish in time. */
  | 'RECONCILE_TIMEOUT';

export class ScaleOutError extends Error {
  readonly code: ScaleOutErrorCode;
  constructor(code: ScaleOutErrorCode, message: string) {
    super(message);
    this.name = 'ScaleOutError';
    this.code = code;
  }
}

export function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : String(reason));
}
