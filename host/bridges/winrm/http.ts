// One SOAP request to /wsman over undici: one Client (one connection, kept alive) per call,
// to the device's endpoint only. Basic authentication sends the credentials on every request;
// NTLM does NEGOTIATE → CHALLENGE → AUTHENTICATE + the SOAP body on the same connection, for
// every request, as the platform's client does.
import { Client, type Dispatcher } from 'undici';
import { authenticateMessage, negotiateMessage, parseChallenge, type NtlmCredentials } from './ntlm.js';

export interface WinrmConnection {
  /** http://host:port/wsman, as dialled. */
  url: string;
  username: string;
  password: string;
  /** NTLM credentials, or null for basic authentication. */
  ntlm: NtlmCredentials | null;
  /** Verify the server's certificate (https). */
  verify: boolean;
  signal: AbortSignal;
  /** Largest answer body read, bytes. */
  maxBodyBytes: number;
}

export interface SoapAnswer {
  status: number;
  body: string;
  bytes: number;
}

/** A failure before any HTTP answer (connection, TLS, timeout, size): code and message. */
export class TransportError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class WinrmHttp {
  readonly #client: Client;
  readonly #connection: WinrmConnection;
  sentBytes = 0;
  receivedBytes = 0;

  constructor(connection: WinrmConnection) {
    this.#connection = connection;
    const url = new URL(connection.url);
    this.#client = new Client(url.origin, {
      pipelining: 1,
      connect: { rejectUnauthorized: connection.verify, timeout: 30_000 },
    });
  }

  /** Posts one envelope; `timeoutMs` bounds the wait for the whole answer. */
  async post(envelope: string, timeoutMs: number): Promise<SoapAnswer> {
    const { ntlm, username, password } = this.#connection;
    if (!ntlm) return this.#send(envelope, `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`, timeoutMs);
    const started = performance.now();
    const first = await this.#send(null, `Negotiate ${negotiateMessage().toString('base64')}`, timeoutMs);
    const header = first.challenge;
    const token = header?.match(/^(NTLM|Negotiate)\s+([A-Za-z0-9+/=]+)\s*$/);
    const challenge = token ? parseChallenge(Buffer.from(token[2]!, 'base64')) : null;
    if (first.status !== 401 || !token || !challenge) {
      // No NTLM challenge: the server's answer stands (a 401 without NTLM, a 500, an odd 200).
      return first.status === 401 || first.status >= 300 ? first : { ...first, status: 401, body: first.body || 'the server did not answer with an NTLM challenge' };
    }
    const remaining = Math.max(1, timeoutMs - (performance.now() - started));
    return this.#send(envelope, `${token[1]} ${authenticateMessage(ntlm, challenge).toString('base64')}`, remaining);
  }

  async #send(body: string | null, authorization: string, timeoutMs: number): Promise<SoapAnswer & { challenge: string | null }> {
    const url = new URL(this.#connection.url);
    const payload = body === null ? null : Buffer.from(body, 'utf8');
    const headers: Record<string, string> = {
      authorization,
      'user-agent': 'driverbox WinRM client',
      'content-length': String(payload?.length ?? 0),
    };
    if (payload) headers['content-type'] = 'application/soap+xml;charset=UTF-8';
    this.sentBytes += payload?.length ?? 0;
    const signal = AbortSignal.any([this.#connection.signal, AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs)))]);
    let response: Dispatcher.ResponseData;
    try {
      response = await this.#client.request({ path: url.pathname, method: 'POST', headers, body: payload, signal, headersTimeout: 0, bodyTimeout: 0 });
    } catch (error) {
      throw classify(error, this.#connection, timeoutMs);
    }
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > this.#connection.maxBodyBytes) {
          response.body.destroy();
          throw new TransportError('OUTPUT_TOO_LARGE', `the WinRM answer is larger than the limit of ${this.#connection.maxBodyBytes} bytes`);
        }
        chunks.push(chunk);
      }
    } catch (error) {
      throw error instanceof TransportError ? error : classify(error, this.#connection, timeoutMs);
    }
    this.receivedBytes += bytes;
    const challenge = response.headers['www-authenticate'];
    return { status: response.statusCode, body: Buffer.concat(chunks).toString('utf8'), bytes, challenge: Array.isArray(challenge) ? challenge.join(', ') : (challenge ?? null) };
  }

  close(): void {
    this.#client.destroy().catch(() => {});
  }
}

function classify(error: unknown, connection: WinrmConnection, timeoutMs: number): TransportError {
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  if (connection.signal.aborted) return new TransportError('ABORTED', 'the run ended before the WinRM command did');
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError' || e?.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new TransportError('ETIMEDOUT', `no answer from ${connection.url} within ${Math.round(timeoutMs)} ms`);
  }
  const code = e?.cause?.code ?? e?.code;
  const message = e?.cause?.message ?? e?.message ?? String(error);
  return new TransportError(typeof code === 'string' ? code : 'NETWORK_ERROR', `Failed to reach the WinRM service at ${connection.url}: ${message}`);
}
