// The answers of the SSH handlers: a ProtocolAnswer whose error carries, besides the code the
// transcript shows, `fields`: exactly what the driver's error gets (runtime/ssh.ts copies them
// onto an Error for sendSSHCommand, into a plain object for sendSSHCommands). The driver-visible
// shapes are those of shared/PROTOCOLS.md; docs/reference/driver-api/ssh.md lists every one.
import type { DriverCode, DriverErrorCode } from '../../contract/driver-error-codes.js';
import type { ProtocolAnswer } from '../core/protocol-handler.js';

/** What the driver's error object holds besides `message`. */
export type DriverFields = { code?: number | string | null; output?: string; command?: string; signal?: string };

export interface SshError {
  /** The transcript's code (and what tests match on). */
  code: DriverCode;
  /** The driver's error message. */
  message: string;
  fields: DriverFields;
}

export const sshAnswer = (error: SshError): ProtocolAnswer => ({ error: { code: error.code, message: error.message, fields: error.fields } });

/**
 * driverbox's own refusals (options, bounds, no address, the run's end): the driver's error
 * gets the code as text, so a driver's `error.code === 5` tests stay false.
 */
export const refusal = (code: DriverErrorCode, message: string): SshError => ({ code, message, fields: { code } });

/** ssh2's failure to connect or log in, as sendSSHCommand reports it (the ssh client's exit codes). */
export function execConnectError(error: Error & { level?: string }): SshError {
  if (error.level === 'client-authentication') return { code: 'AUTHENTICATION_FAILED', message: 'Permission denied', fields: { code: 5 } };
  return { code: 'CONNECTION_FAILED', message: error.message, fields: { code: 255 } };
}

/** The same failure as sendSSHCommands reports it: ssh2's message, no code. */
export function shellConnectError(error: Error & { level?: string }): SshError {
  return { code: error.level === 'client-authentication' ? 'AUTHENTICATION_FAILED' : 'CONNECTION_FAILED', message: error.message, fields: {} };
}

/** What ends a shell sequence early, as the driver's plain error object (no `code`, as the collector's). */
export const shellError = (code: DriverErrorCode, message: string, extra: { command?: string } = {}): SshError => ({ code, message, fields: { ...extra } });

export const runEnded = (): SshError => refusal('ABORTED', 'the run ended before the command did');

/** An option the driver got wrong: answered as INVALID_OPTIONS through its callback, nothing sent. */
export class SshOptionError extends Error {}
