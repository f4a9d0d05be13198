// Errors the host throws at its callers (bad input before a run starts). A driver that
// misbehaves never throws here: it yields a failed RunResult instead.
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
  /** No better-sqlite3 line loads on the running Node (host/store/better-sqlite3.ts). */
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

export class DriverboxError extends Error {
  readonly code: DriverboxErrorCode;
  constructor(code: DriverboxErrorCode, message: string) {
    super(message);
    this.name = 'DriverboxError';
    this.code = code;
  }
}
