// The WinRM bridge's errors: an option the driver got wrong, the transport's failures (the
// connection, a timeout, an answer past its bound) and the shell sequence's (a status, a fault,
// a malformed answer). Codes are the registry's (contract/driver-error-codes.ts), or a socket's
// passed through; the runtime hands the driver { outcome: null, error }.
import type { DriverCode, DriverErrorCode } from '../../contract/driver-error-codes.js';
import type { ProtocolAnswer } from '../core/protocol-handler.js';

/** An option the driver got wrong: answered as INVALID_OPTIONS, nothing sent. */
export class WinrmOptionError extends Error {}

/** One HTTP exchange with the WinRM service failed. */
export class TransportError extends Error {
  constructor(
    readonly code: DriverCode,
    message: string,
    /** Whether the request's own time (`timeoutMs` of post) ran out. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** The shell sequence failed: the service's answer, the call's time, the run's bound. */
export class CallFailure extends Error {
  constructor(
    readonly code: DriverErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** The call refused before anything was sent (options, address, bounds). */
export const winrmRefusal = (code: DriverErrorCode, message: string): ProtocolAnswer => ({ error: { code, message: `D.device.sendWinRMCommand: ${message}` } });
