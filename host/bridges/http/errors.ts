// The HTTP bridge's errors, with the code the driver's error gets (contract/driver-error-codes.ts):
// a request refused before it is sent (the driver's options, the target's bounds, a redirect not
// followed), and a hop that failed on the wire (a socket's code passed through, a bound, the run's end).
import type { DriverCode, DriverErrorCode } from '../../contract/driver-error-codes.js';
import type { HttpAnswer } from '../../../runtime/protocol.js';

export class RequestRefused extends Error {
  readonly code: DriverErrorCode;
  constructor(code: DriverErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** A hop that failed: `headersMs` when the headers had come before the failure. */
export class SendFailure extends Error {
  readonly code: DriverCode;
  readonly headersMs: number | null;
  constructor(code: DriverCode, message: string, headersMs: number | null = null) {
    super(message);
    this.code = code;
    this.headersMs = headersMs;
  }
}

/** The driver's answer to a request that failed. */
export function failure(code: DriverCode, message: string): HttpAnswer {
  return { error: { code, message }, response: null };
}
