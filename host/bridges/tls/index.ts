// D.device.http.getTLSCertificate: a TLS handshake with the target that always gets as far
// as reading the peer certificate (rejectUnauthorized: false), then says itself whether the
// certificate is valid: its chain verifies against the host's trust store AND it names the
// host (or IP) that was dialled. Nothing is sent after the handshake; the socket is closed.
import net from 'node:net';
import tls from 'node:tls';
import { pinnedLookup } from '../core/pinned-lookup.js';
import type { RunTarget } from '../core/target.js';
import type { CertificateDescription } from './describe.js';
import { passedThrough } from '../../contract/driver-error-codes.js';
import { tlsFailure, type TlsError } from './errors.js';
import type { TrustStore } from './trust.js';

export interface TlsCertificate extends CertificateDescription {
  /** Chain verified and host name / IP matched. */
  valid: boolean;
  /** Why not valid: an OpenSSL verify code (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, …) or ERR_TLS_CERT_ALTNAME_INVALID; null when valid. */
  certError: string | null;
}

export interface TlsAnswer {
  error: TlsError | null;
  certificate: TlsCertificate | null;
}

/** Node types authorizationError as an Error, but gives the verify code as a string. */
function verifyCode(reason: unknown): string {
  if (typeof reason === 'string' && reason) return reason;
  return (reason as { code?: string } | undefined)?.code ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE';
}

/**
 * The largest certificate read: node-forge walks it on the host's loop (~10 ms for 64 KiB of
 * subject alt names). Real device certificates are a few KiB; OpenSSL alone would allow 100 KiB.
 */
export const MAX_CERTIFICATE_BYTES = 64 * 1024;

/** What OpenSSL says when the answer to a ClientHello is not TLS (e.g. plain HTTP). */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);

export function readCertificate(target: RunTarget, options: Record<string, unknown>, timeoutMs: number, signal: AbortSignal, trust: TrustStore): Promise<TlsAnswer> {
  const port = options.port === undefined || options.port === null ? 443 : Number(options.port);
  const host = (options.useHostname !== false && target.host) || target.ip;
  if (!host) return Promise.resolve(tlsFailure('MISSING_DEVICE_ADDRESS', 'the device has no IP address or host name to read a TLS certificate from'));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return Promise.resolve(tlsFailure('INVALID_OPTIONS', `port must be an integer from 1 to 65535 (got ${JSON.stringify(options.port)})`));
  }
  if (target.onlyMappedPorts && target.portMap[port] === undefined) {
    return Promise.resolve(tlsFailure('PORT_NOT_SIMULATED', `port ${port} is not one the simulated device serves (${Object.keys(target.portMap).join(', ') || 'none'})`));
  }
  const dialled = target.portMap[port] ?? port;
  const where = `${host}:${port}${dialled === port ? '' : ` (dialled as port ${dialled})`}`;
  if (signal.aborted) return Promise.resolve(tlsFailure('ABORTED', `the run ended before connecting to ${where}`));

  return new Promise((resolve) => {
    let settled = false;
    let socket: tls.TLSSocket;
    try {
      socket = tls.connect({
        host,
        port: dialled,
        servername: net.isIP(host) ? undefined : host, // SNI carries host names only
        secureContext: trust.legacySecureContext, // old devices too: validity is judged below, not by the handshake
        rejectUnauthorized: false, // read the certificate whatever it is; validity is decided below
        ...(target.pinnedIp ? { lookup: pinnedLookup(target.pinnedIp) } : {}),
      });
    } catch (error) {
      // bad options are refused synchronously; the driver still gets an answer
      const code = (error as NodeJS.ErrnoException).code;
      return resolve(tlsFailure(code === undefined ? 'TLS_ERROR' : passedThrough(code), `cannot connect to ${where}: ${(error as Error).message}`));
    }
    const finish = (answer: TlsAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(answer);
    };
    const onAbort = () => finish(tlsFailure('ABORTED', `the run ended while reading the TLS certificate of ${where}`));
    const timer = setTimeout(() => finish(tlsFailure('ETIMEDOUT', `no TLS handshake with ${where} within ${timeoutMs} ms`)), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });

    // After the handshake the answer is the certificate's, whatever the socket does meanwhile.
    let handshaken = false;
    socket.once('secureConnect', () => {
      handshaken = true;
      const peer = socket.getPeerCertificate();
      if (!peer?.raw) return finish(tlsFailure('NO_CERTIFICATE', `${where} completed the TLS handshake without a certificate`));
      if (peer.raw.length > MAX_CERTIFICATE_BYTES) {
        return finish(tlsFailure('CERTIFICATE_TOO_LARGE', `the certificate of ${where} is ${peer.raw.length} bytes, more than the ${MAX_CERTIFICATE_BYTES} bytes a certificate is read up to`));
      }
      // Node fills authorizationError with the chain's verify code, or with the identity check's.
      let certError = socket.authorized ? null : verifyCode(socket.authorizationError as unknown);
      if (certError === null) {
        const mismatch = tls.checkServerIdentity(host, peer);
        if (mismatch) certError = (mismatch as NodeJS.ErrnoException).code ?? 'ERR_TLS_CERT_ALTNAME_INVALID';
      }
      // node-forge loads on the first read: a sandbox thread that reads none never loads it.
      void import('./describe.js').then(({ describeCertificate }) => {
        let description: CertificateDescription;
        try {
          description = describeCertificate(peer.raw);
        } catch (error) {
          return finish(tlsFailure('CERTIFICATE_UNREADABLE', `the certificate of ${where} could not be read: ${(error as Error).message}`));
        }
        const { issuer, expiry, ...details } = description; // the public spec's four fields first
        finish({ error: null, certificate: { issuer, expiry, valid: certError === null, certError, ...details } });
      }, (error: unknown) => finish(tlsFailure('CERTIFICATE_UNREADABLE', `the certificate of ${where} could not be read: ${error instanceof Error ? error.message : 'its reader did not load'}`)));
    });
    // 'on', not 'once': an error after settling must still have a listener.
    socket.on('error', (error: NodeJS.ErrnoException & { reason?: string }) => {
      if (handshaken) return;
      const code = error.code === undefined ? 'TLS_ERROR' : passedThrough(error.code);
      // OpenSSL's message is a whole error-queue line; its reason alone reads better.
      const detail = error.reason ?? error.message.trim();
      const hint = NOT_TLS.has(code) ? ' (the port does not seem to speak TLS)' : '';
      finish(tlsFailure(code, `reading the TLS certificate of ${where} failed: ${detail}${hint}`));
    });
    socket.once('close', () => handshaken || finish(tlsFailure('ECONNRESET', `${where} closed the connection before the TLS handshake completed`)));
  });
}
