// One SOAP request to /wsman over undici: one Client (one connection, kept alive) per call,
// to the device's endpoint only. Basic authentication sends the credentials on every request;
// NTLM does NEGOTIATE → CHALLENGE → AUTHENTICATE + the SOAP body on the same connection, for
// every request, as the platform's client does.
import { StringDecoder } from 'node:string_decoder';
import { Client, type Dispatcher } from 'undici';
import { passedThrough } from '../../contract/driver-error-codes.js';
import { TransportError } from './errors.js';
import { authenticateMessage, negotiateMessage, NtlmChallengeError, parseChallenge, type NtlmCredentials } from './ntlm.js';
import { answerReader } from './soap.js';
import { XmlMalformedError, type XmlDocument } from './xml-reader.js';

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
  /** Largest answer body read, bytes: the MaxEnvelopeSize every request asks for. */
  maxBodyBytes: number;
}

export interface SoapAnswer {
  status: number;
  /** The body as text (an error answer's cut at the bound, and said so). */
  body: string;
  bytes: number;
  /** The parsed message: for a 2xx, or an error answer whose content type is XML; null otherwise. */
  document: XmlDocument | null;
  /** Why the body that was parsed is not well-formed XML; null when it is or was not parsed. */
  malformed: string | null;
}

/** Whether a content type says the body is XML (a SOAP fault comes as application/soap+xml). */
function isXml(contentType: string | string[] | undefined): boolean {
  const value = (Array.isArray(contentType) ? contentType[0] : contentType) ?? '';
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/soap+xml' || type === 'application/xml' || type === 'text/xml';
}

/** The NTLM token of a WWW-Authenticate value: "Negotiate <base64>" or "NTLM <base64>". */
function ntlmToken(value: string): { scheme: string; token: Buffer } | null {
  const space = value.indexOf(' ');
  if (space < 0) return null;
  const scheme = value.slice(0, space);
  const data = value.slice(space + 1).trim();
  if ((scheme !== 'Negotiate' && scheme !== 'NTLM') || !/^[A-Za-z0-9+/]+={0,2}$/.test(data)) return null;
  return { scheme, token: Buffer.from(data, 'base64') };
}

/** A failure before any HTTP answer (connection, TLS, timeout, size): code and message. */
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
    const offered = first.status === 401 ? first.challenge.map(ntlmToken).find((t) => t !== null) : undefined;
    if (!offered) {
      // No NTLM challenge: the server's answer stands (a 401 without NTLM, a 500, an odd 200).
      return first.status === 401 || first.status >= 300 ? first : { ...first, status: 401, body: first.body || 'the server did not answer with an NTLM challenge' };
    }
    let challenge;
    try {
      challenge = parseChallenge(offered.token);
    } catch (error) {
      if (error instanceof NtlmChallengeError) throw new TransportError('NTLM_ERROR', `the WinRM server's NTLM challenge is malformed: ${error.message}`);
      throw error;
    }
    const remaining = Math.max(1, timeoutMs - (performance.now() - started));
    return this.#send(envelope, `${offered.scheme} ${authenticateMessage(ntlm, challenge).toString('base64')}`, remaining);
  }

  async #send(body: string | null, authorization: string, timeoutMs: number): Promise<SoapAnswer & { challenge: string[] }> {
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
    return this.#readAnswer(response, timeoutMs);
  }

  /**
   * The answer's body, within the bound, decoded and — for a 2xx, or an error answer that says
   * it is XML (a fault) — parsed as it arrives. The status and the content type are read first:
   * a 401 page or a proxy's HTML is never parsed as XML. An error answer past the bound keeps its
   * beginning (the driver sees the status); a 2xx past it is an error, as nothing of it is usable.
   */
  async #readAnswer(response: Dispatcher.ResponseData, timeoutMs: number): Promise<SoapAnswer & { challenge: string[] }> {
    const status = response.statusCode;
    const ok = status >= 200 && status <= 299;
    const reader = ok || isXml(response.headers['content-type']) ? answerReader() : null;
    const limit = this.#connection.maxBodyBytes;
    const decoder = new StringDecoder('utf8');
    const parts: string[] = [];
    let bytes = 0;
    let truncated = false;
    const take = (text: string) => {
      parts.push(text);
      reader?.write(text);
    };
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        if (bytes + chunk.length > limit) {
          response.body.destroy();
          if (ok) throw new TransportError('OUTPUT_TOO_LARGE', `the WinRM answer is larger than the limit of ${limit} bytes (the MaxEnvelopeSize the client asks the server to keep to)`);
          take(decoder.write(chunk.subarray(0, limit - bytes)));
          bytes = limit;
          truncated = true;
          break;
        }
        bytes += chunk.length;
        take(decoder.write(chunk));
      }
    } catch (error) {
      throw error instanceof TransportError ? error : classify(error, this.#connection, timeoutMs);
    }
    take(decoder.end());
    this.receivedBytes += bytes;
    let body = parts.join('');
    let document: XmlDocument | null = null;
    let malformed: string | null = null;
    if (truncated) body += `… (the answer was cut at ${limit} bytes)`;
    else if (reader) {
      try {
        document = reader.end();
      } catch (error) {
        if (!(error instanceof XmlMalformedError)) throw error;
        malformed = error.message;
      }
    }
    const header = response.headers['www-authenticate'];
    return { status, body, bytes, document, malformed, challenge: header === undefined ? [] : Array.isArray(header) ? header : [header] };
  }

  close(): void {
    this.#client.destroy().catch(() => {});
  }
}

function classify(error: unknown, connection: WinrmConnection, timeoutMs: number): TransportError {
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  if (connection.signal.aborted) return new TransportError('ABORTED', 'the run ended before the WinRM command did');
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') {
    return new TransportError('ETIMEDOUT', `no answer from ${connection.url} within ${Math.round(timeoutMs)} ms`, true);
  }
  if (e?.code === 'UND_ERR_CONNECT_TIMEOUT') return new TransportError('ETIMEDOUT', `no connection to ${connection.url} within 30 s`);
  const code = e?.cause?.code ?? e?.code;
  const message = e?.cause?.message ?? e?.message ?? String(error);
  return new TransportError(typeof code === 'string' ? passedThrough(code) : 'NETWORK_ERROR', `Failed to reach the WinRM service at ${connection.url}: ${message}`);
}
