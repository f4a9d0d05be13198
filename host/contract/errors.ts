// Every error driverbox throws at its callers, each with its codes, in one place: what the host
// refuses before a run starts (DriverboxError), what the store, the scheduler, the scale-out run
// source, an inventory, a simulator fixture, a server config and the CLI's flags refuse. A driver
// that misbehaves never throws here: it yields a failed RunResult instead.

/** An error with a code its caller can branch on; each kind below names its own codes. */
export class CodedError<Code extends string> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string) {
    super(message);
    this.code = code;
  }
}

/** The host's codes: bad input before a run starts, or a host that cannot run at all. */
export type DriverboxErrorCode =
  | 'DRIVER_NOT_FOUND'
  | 'DRIVER_UNREADABLE'
  | 'UNKNOWN_ACTION'
  | 'INVALID_OPTIONS'
  /** A simulated device's fixture is unreadable or breaks the format (FixtureError). */
  | 'INVALID_FIXTURE'
  | 'HOST_CLOSED'
  | 'NODE_FLAG_MISSING'
  /** No isolated-vm line loads on the running Node (host/platform/isolated-vm.ts). */
  | 'ISOLATED_VM_MISSING'
  /** No better-sqlite3 line loads on the running Node (host/store/db/better-sqlite3.ts). */
  | 'SQLITE_MISSING'
  | 'RUNTIME_BUNDLE_MISSING'
  /** A sandbox thread failed (a bug or a crash of the sandbox itself, never a driver's error). */
  | 'SANDBOX_FAILED'
  /** `record`: the recording's file cannot be written (checked before the run starts). */
  | 'RECORD_UNWRITABLE'
  /** `replay`: the recording's file cannot be read. */
  | 'REPLAY_UNREADABLE'
  /** `replay`: not a recording, or a field of it is wrong (the message names the field). */
  | 'REPLAY_MALFORMED'
  /** `replay`: a recording of another format version. */
  | 'REPLAY_VERSION'
  /** `replay`: the recording's file or its number of exchanges is past its bound (checked before it is parsed). */
  | 'REPLAY_TOO_LARGE';

export class DriverboxError extends CodedError<DriverboxErrorCode> {
  override name = 'DriverboxError';
}

/** The store's codes: a file it cannot open, a schema from a newer driverbox, a missing or wrong secret key. */
export type StoreErrorCode =
  | 'STORE_UNOPENABLE'
  | 'STORE_TOO_NEW'
  /** The store was closed; nothing more can be read or written through it. */
  | 'STORE_CLOSED'
  | 'SECRET_KEY_MISSING'
  | 'SECRET_KEY_MISMATCH'
  | 'NOT_FOUND'
  | 'CONFLICT'
  /** A result for a slot that already has one (scale-out's write rule): refused, nothing written. */
  | 'DUPLICATE_RUN'
  /** A result whose run was already past its deadline (or had lost its job) when it was to commit: rolled back. */
  | 'RUN_TOO_LATE'
  | 'INVALID';

export class StoreError extends CodedError<StoreErrorCode> {
  override name = 'StoreError';
}

/** The scale-out run source's codes: a bad queue URL, a Redis that may evict BullMQ's keys, options that break the scale-out rules, a call on a closed part. */
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

export class ScaleOutError extends CodedError<ScaleOutErrorCode> {
  override name = 'ScaleOutError';
}

export function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : String(reason));
}

/** The scheduler's codes: a bad job or option, or a call it cannot honour. */
export type SchedulerErrorCode = 'INVALID_JOB' | 'INVALID_OPTIONS' | 'DUPLICATE_JOB' | 'UNKNOWN_JOB' | 'SCHEDULER_STOPPED';

export class SchedulerError extends CodedError<SchedulerErrorCode> {
  override name = 'SchedulerError';
}

/** A bad inventory, carrying every problem found so the user fixes them in one go. */
export class InventoryError extends Error {
  readonly problems: readonly string[];
  readonly file: string | null;

  constructor(file: string | null, problems: readonly string[]) {
    const where = file ?? 'inventory';
    const head = problems.length === 1 ? `${where}: 1 problem` : `${where}: ${problems.length} problems`;
    super(`${head}\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'InventoryError';
    this.file = file;
    this.problems = problems;
  }
}

/**
 * A fixture that cannot be read or breaks the format. Every problem found is listed, each naming
 * its field path (`routes[3].status: …`), so a hand-written file is fixed in one pass.
 */
export class FixtureError extends DriverboxError {
  /** The fixture file, or null for a fixture given as an object. */
  readonly file: string | null;
  /** One line per problem: "field.path: what is wrong". */
  readonly problems: string[];

  constructor(file: string | null, problems: string[]) {
    const where = file ? `fixture ${file}` : 'fixture';
    const message = problems.length === 1 ? `${where}: ${problems[0]}` : `${where} has ${problems.length} problems:\n${problems.map((p) => `  ${p}`).join('\n')}`;
    super('INVALID_FIXTURE', message);
    this.name = 'FixtureError';
    this.file = file;
    this.problems = problems;
  }
}

/** A server config (file, flags, environment) that cannot be used; the message says which setting. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A mistake in how the CLI was called: printed with a hint, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
