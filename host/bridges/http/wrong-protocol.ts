// Messages for the mistakes a driver author makes most with TLS: plain HTTP sent to a port that
// speaks TLS (and the reverse), and a device reached by an address its certificate does not name.
// Each says what was seen and what to change, instead of the parser's or OpenSSL's words.
import net from 'node:net';
import tls from 'node:tls';

/** How long the check "does this port speak TLS?" may take, at most. */
const PROBE_MS = 1000;

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Plain HTTP went to a TLS port: what the driver should do instead. `page`: the server said so in a 400 page. */
export function tlsPortMessage(where: string, url: URL, page = false): string {
  const seen = page ? `the device answered 400: port ${portOf(url)} is its HTTPS port` : `the device answered with TLS on port ${portOf(url)}`;
  return `${where}: ${seen}: use https (protocol: 'https')`;
}

/** TLS went to a plain HTTP port. */
export function plainPortMessage(where: string, url: URL): string {
  return `${where}: the device answered plain HTTP on port ${portOf(url)}, not TLS: use http (protocol: 'http'), or the port of its HTTPS server`;
}

/** OpenSSL's codes for a peer that answered a ClientHello with something that is not TLS. */
export const NOT_TLS_CODES: ReadonlySet<string> = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_UNKNOWN_PROTOCOL', 'ERR_SSL_HTTP_REQUEST']);

/** Whether bytes that failed the HTTP parse are a TLS record (alert 0x15 or handshake 0x16, then version 3.x). */
export function isTlsRecord(data: unknown): boolean {
  if (typeof data !== 'string' || data.length < 2) return false;
  const type = data.charCodeAt(0);
  return (type === 0x15 || type === 0x16) && data.charCodeAt(1) === 0x03;
}

/**
 * Whether the url's port speaks TLS: a handshake there completes, or fails with a TLS alert.
 * Asked only after a plain HTTP request was closed without an answer (what TLS servers do
 * with one); bounded by PROBE_MS and the run's signal; never verifies or sends anything else.
 */
export function speaksTls(url: URL, address: string | null | undefined, signal: AbortSignal, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const socket = tls.connect({
      host: address ?? hostname,
      port: Number(portOf(url)),
      ...(net.isIP(hostname) ? {} : { servername: hostname }),
      rejectUnauthorized: false,
    });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      socket.destroy();
      resolve(answer);
    };
    const aborted = () => done(false);
    const timer = setTimeout(done, Math.min(PROBE_MS, timeoutMs), false);
    signal.addEventListener('abort', aborted, { once: true });
    socket.once('secureConnect', () => done(true));
    // A TLS alert is a TLS server refusing this handshake: it speaks TLS all the same.
    socket.once('error', (error: NodeJS.ErrnoException) => done(/ALERT|UNSUPPORTED_PROTOCOL|NO_PROTOCOLS_AVAILABLE/.test(error.code ?? '')));
  });
}

/** The DNS names of a peer certificate (Node's subjectaltname "DNS:a, IP Address:1.2.3.4"), else its CN. */
function certificateNames(cert: unknown): string[] {
  const c = cert as { subjectaltname?: unknown; subject?: { CN?: unknown } } | null | undefined;
  const names =
    typeof c?.subjectaltname === 'string'
      ? c.subjectaltname.split(/,\s*/).filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4))
      : [];
  if (names.length === 0 && typeof c?.subject?.CN === 'string' && /^[\w*.-]+$/.test(c.subject.CN)) names.push(c.subject.CN);
  return names;
}

/**
 * The certificate is trusted but does not name the address the device was reached at (an IP, or
 * another name): reach it by a name it has, dialled at its address. Null when the certificate
 * names no host (then only rejectUnauthorized: false would do).
 */
export function nameMismatchMessage(where: string, url: URL, cert: unknown, address: string | null | undefined): string | null {
  const names = certificateNames(cert);
  if (names.length === 0) return null;
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const name = names.find((n) => !n.includes('*')) ?? names[0]!.replace(/^\*\./, 'device.');
  const ip = net.isIP(hostname) ? hostname : (address ?? '<its IP>');
  const shown = names.length > 6 ? `${names.slice(0, 6).join(', ')}, … (${names.length} names)` : names.join(', ');
  return (
    `${where}: TLS failure: the certificate is for ${shown}, not ${hostname}: reach the device by a name it has, ` +
    `e.g. driverbox run --device-host ${name} --resolve ${name}=${ip} (in code: the device's host and the run's resolve option)`
  );
}
