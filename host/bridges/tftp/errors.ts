// The TFTP bridge's errors: a call refused (options, address, bounds, a receiver already open) and
// why an upload ended without a file. Codes are the registry's (contract/driver-error-codes.ts).
import type { DriverErrorCode } from '../../contract/driver-error-codes.js';
import type { ProtocolAnswer } from '../core/protocol-handler.js';

/** Why a receiver delivers no file: its timeout, the run's bound, the device's ERROR, close(). */
export interface UploadError {
  code: Extract<DriverErrorCode, 'TFTP_TIMEOUT' | 'OUTPUT_TOO_LARGE' | 'TFTP_ERROR' | 'ABORTED'>;
  message: string;
}

export const tftpError = (code: DriverErrorCode, message: string): ProtocolAnswer => ({ error: { code, message } });
