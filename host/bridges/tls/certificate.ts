// D.device.http.getTLSCertificate: connects to the target, reads the peer certificate
// and says whether it verifies against the system CAs and the host name.
import tls from 'node:tls';
import type { HttpTarget } from '../http/target.js';
import type { TrustStore } from './trust.js';

export interface TlsAnswer {
  error: { code: string; message: string } | null;
  certificate: { issuer: string; expiry: string; valid: boolean; certError: string | null } | null;
}

function nameOf(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : String(v)}`)
    .join(', ');
}

export function readCertificate(target: HttpTarget, options: Record<string, unknown>, timeoutMs: number, signal: AbortSignal, trust: TrustStore): Promise<TlsAnswer> {
  const port = options.port === undefined ? 443 : Number(options.port);
  const host = (options.useHostname !== false && target.host) || target.ip;
  return new Promise((resolve) => {
    if (!host) return resolve({ error: { code: 'MISSING_DEVICE_ADDRESS', message: 'the device has no IP address or host name' }, certificate: null });
    if (!Number.isInteger(port) || port < 1 || port > 65535) return resolve({ error: { code: 'INVALID_OPTIONS', message: `invalid port ${JSON.stringify(options.port)}` }, certificate: null });
    const socket = tls.connect({ host, port: target.portMap[port] ?? port, servername: /^[\d.:]+$/.test(host) ? undefined : host, rejectUnauthorized: false, secureContext: trust.secureContext });
    const done = (answer: TlsAnswer) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(answer);
    };
    const onAbort = () => done({ error: { code: 'ABORTED', message: 'the run ended' }, certificate: null });
    const timer = setTimeout(() => done({ error: { code: 'ETIMEDOUT', message: `no TLS handshake with ${host}:${port} within ${timeoutMs} ms` }, certificate: null }), timeoutMs);
    signal.addEventListener('abort', onAbort);
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      let certError = socket.authorized ? null : String(socket.authorizationError ?? 'UNABLE_TO_VERIFY');
      if (!certError) {
        const mismatch = tls.checkServerIdentity(host, cert);
        if (mismatch) certError = (mismatch as NodeJS.ErrnoException).code ?? 'ERR_TLS_CERT_ALTNAME_INVALID';
      }
      done({ error: null, certificate: { issuer: nameOf(cert.issuer as unknown as Record<string, unknown>), expiry: cert.valid_to, valid: certError === null, certError } });
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done({ error: { code: error.code ?? 'TLS_ERROR', message: error.message }, certificate: null }));
  });
}
