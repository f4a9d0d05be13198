// The TLS bridge's errors (getTLSCertificate): the answer a failed read makes, its code the
// registry's (contract/driver-error-codes.ts) or the socket's / OpenSSL's passed through.
import type { DriverCode } from '../../contract/driver-error-codes.js';

export interface TlsError {
  code: DriverCode;
  message: string;
}

export const tlsFailure = (code: DriverCode, message: string): { error: TlsError; certificate: null } => ({ error: { code, message }, certificate: null });
