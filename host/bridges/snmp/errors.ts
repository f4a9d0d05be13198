// The SNMP bridge's errors as the driver sees them. net-snmp's: the error's name
// (RequestTimedOutError, RequestFailedError…) and message kept, as the platform passes net-snmp's
// error through; RequestFailedError's status too. The host's own (options, bounds): a code of the
// registry (contract/driver-error-codes.ts), name Error. The code names the failure in the transcript.
import { passedThrough, type DriverErrorCode } from '../../contract/driver-error-codes.js';
import type { ProtocolAnswer } from '../core/protocol-handler.js';

type AnswerError = NonNullable<ProtocolAnswer['error']>;

export function snmpError(error: unknown): AnswerError {
  if (!(error instanceof Error)) return { code: 'SNMP_ERROR', name: 'Error', message: String(error) };
  const out: AnswerError = { code: error.name ? passedThrough(error.name) : 'SNMP_ERROR', name: error.name || 'Error', message: error.message };
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') out.status = status;
  // A socket error (EHOSTUNREACH, ENOTFOUND…): its code says more than "Error".
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') out.code = passedThrough(code);
  return out;
}

/** A failure of driverbox's own (bad options, a bound): a code, and name Error. */
export function hostError(code: DriverErrorCode, message: string): AnswerError {
  return { code, name: 'Error', message };
}

/** A driver's mistake in its options: answered as INVALID_OPTIONS through the callback. */
export class SnmpOptionError extends Error {}
