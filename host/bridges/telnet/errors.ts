// The Telnet bridge's errors: an option the driver got wrong, and the answer an error makes (the
// transcript so far as result: the runtime hands the driver callback(transcript, error)). Codes
// are the registry's (contract/driver-error-codes.ts), or a socket's passed through.
import type { DriverCode, DriverErrorCode } from '../../contract/driver-error-codes.js';
import type { ProtocolAnswer } from '../core/protocol-handler.js';

/** An option the driver got wrong: answered as INVALID_OPTIONS, nothing sent. */
export class TelnetOptionError extends Error {}

/** Why a Telnet session ended early. */
export interface TelnetError {
  code: DriverCode;
  message: string;
}

/** The call refused before anything was sent (options, address, bounds): no transcript. */
export const telnetRefusal = (code: DriverErrorCode, message: string): ProtocolAnswer => ({ error: { code, message: `D.device.sendTelnetCommand: ${message}` }, result: '' });
