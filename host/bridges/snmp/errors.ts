// net-snmp's errors as the driver sees them: the error's name (RequestTimedOutError,
// RequestFailedError…) and message kept, as the platform passes net-snmp's error through;
// RequestFailedError's status too. The code names the failure in the run's transcript.
import type { ProtocolAnswer } from '../core/protocol-handler.js';

type AnswerError = NonNullable<ProtocolAnswer['error']>;

export function snmpError(error: unknown): AnswerError {
  if (!(error instanceof Error)) return { code: 'SNMP_ERROR', name: 'Error', message: String(error) };
  const out: AnswerError = { code: error.name || 'SNMP_ERROR', name: error.name || 'Error', message: error.message };
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') out.status = status;
  // A socket error (EHOSTUNREACH, ENOTFOUND…): its code says more than "Error".
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') out.code = code;
  return out;
}

/** A failure of driverbox's own (bad options, a bound): a code, and name Error. */
export function hostError(code: string, message: string): AnswerError {
  return { code, name: 'Error', message };
}
