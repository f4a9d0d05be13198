// Errors the store throws at its callers: a file it cannot open, a schema from a newer
// driverbox, a missing or wrong secret key.
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

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
  }
}
