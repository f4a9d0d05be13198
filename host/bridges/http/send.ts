// One HTTP exchange with undici: send, read the body up to the size cap, decompress
// when asked. Failures become a SendFailure with a stable code the driver can test.
// The exchange goes straight to the dispatcher with a handler that keeps the chunks:
// undici.request's Readable body, AbortController and per-request signal listener were
// about half of a request's CPU on the host.
import http from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';
import { passedThrough } from '../../contract/driver-error-codes.js';
import { ByteBudget } from '../core/buffer-budget.js';
import { SendFailure } from './errors.js';
import type { Method } from './options.js';
import { isTlsRecord, nameMismatchMessage, NOT_TLS_CODES, plainPortMessage, speaksTls, tlsPortMessage } from './wrong-protocol.js';

/**
 * What sends one hop: the live wire (sendHop), or a recording or replay of it. `secrets` are the
 * passwords and secrets the run knows: a replay redacts a request with them before matching it.
 */
export interface HopWire {
  send(hop: Hop, secrets: ReadonlyArray<string | null>): Promise<HopResponse>;
}

export interface Hop {
  url: URL;
  method: Method;
  headers: Record<string, string>;
  body: Buffer | undefined;
  dispatcher: Dispatcher;
  timeoutMs: number;
  signal: AbortSignal;
  maxResponseBytes: number;
  /** What set maxResponseBytes, named in BODY_TOO_LARGE's message (default: maxResponseBytes). */
  limitName?: string;
  /** The run's own bound on answer bytes held at once by its requests (answer-budget.ts). */
  runBuffers?: ByteBudget | null;
  /** Decode a gzip / deflate / br body (request's gzip: true). */
  decompress: boolean;
  /** The host's bound on answer bytes held at once by all its runs (a shared default without one). */
  buffers?: ByteBudget;
  /** The address the url's host is known at (a resolve pin, the device's IP), for error hints. */
  address?: string | null;
}

/** For hops given no budget of their host's: one for the whole process. */
const processBuffers = new ByteBudget();

export interface HopResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** Bytes as received, before decompression. */
  wireBytes: number;
  headersMs: number;
}

// Without a prototype: a content-encoding of 'constructor' or 'toString' names no decoder.
const decoders: Record<string, (b: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>> = Object.assign(Object.create(null) as object, {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress) as (b: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>,
});

/** undici's and node's error codes → the codes a driver sees (those of node's http, as request gave). */
function classify(error: unknown, hop: Hop): SendFailure {
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const where = `${hop.method} ${hop.url.origin}`;
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT' || e?.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new SendFailure('ETIMEDOUT', `${where}: no answer within the ${hop.timeoutMs} ms timeout`);
  }
  if (hop.signal.aborted) return new SendFailure('ABORTED', `${where}: the run ended before the answer`);
  const code = e?.cause?.code ?? e?.code;
  const message = e?.cause?.message ?? e?.message ?? String(error);
  switch (code) {
    case 'ECONNREFUSED':
      return new SendFailure(code, `${where}: connection refused (nothing listens on port ${hop.url.port || (hop.url.protocol === 'https:' ? 443 : 80)})`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new SendFailure(code, `${where}: the host name ${hop.url.hostname} could not be resolved (${code})`);
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return new SendFailure('ECONNRESET', `${where}: the device closed the connection (${message})`);
    case 'UND_ERR_RESPONSE_EXCEEDED_MAX_SIZE':
      return answerTooLarge(hop);
    case 'UND_ERR_HEADERS_OVERFLOW':
      // undici's parser stops at maxHeaderSize (Node's 16 KiB): thousands of headers, or one huge one.
      return new SendFailure('HEADERS_TOO_LARGE', `${where}: the response headers are larger than the ${http.maxHeaderSize} bytes the host reads`);
  }
  // The HTTP parser choked on a TLS record (an alert, a handshake): the port speaks TLS.
  const data = (e?.cause as { data?: unknown } | undefined)?.data ?? (e as { data?: unknown } | null)?.data;
  if (hop.url.protocol === 'http:' && isTlsRecord(data)) return new SendFailure(typeof code === 'string' ? passedThrough(code) : 'NETWORK_ERROR', tlsPortMessage(where, hop.url));
  if (typeof code !== 'string') return new SendFailure('NETWORK_ERROR', `${where}: ${message}`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    // Node puts the peer's certificate on the error: its names say how the device should be reached.
    const cert = (e.cause as { cert?: unknown } | undefined)?.cert ?? (e as { cert?: unknown }).cert;
    const named = nameMismatchMessage(where, hop.url, cert, hop.address);
    if (named) return new SendFailure(code, named);
  }
  if (NOT_TLS_CODES.has(code)) return new SendFailure(passedThrough(code), plainPortMessage(where, hop.url));
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY/.test(code)) {
    return new SendFailure(passedThrough(code), `${where}: TLS failure: ${message} (trust the CA that signed it with --ca <ca.pem> or the trustedCAs option; a driver may pass rejectUnauthorized: false for a device with its own certificate)`);
  }
  if (/CERT|ERR_TLS|ERR_SSL/.test(code)) {
    return new SendFailure(passedThrough(code), `${where}: TLS failure: ${message} (a driver may pass rejectUnauthorized: false for a device with its own certificate)`);
  }
  return new SendFailure(passedThrough(code), `${where}: ${message}`);
}

// Statuses whose Content-Length does not announce a body that follows.
const NO_BODY = new Set([204, 304]);

/**
 * Requests in flight per run signal. One listener per signal ends them all when the run ends:
 * cheaper than a listener per request, and no MaxListenersExceededWarning however many share it.
 */
const inFlight = new WeakMap<AbortSignal, Set<Exchange>>();

function track(signal: AbortSignal, exchange: Exchange): void {
  let pending = inFlight.get(signal);
  if (!pending) {
    const set = new Set<Exchange>();
    pending = set;
    inFlight.set(signal, set);
    signal.addEventListener('abort', () => {
      for (const e of set) e.fail(runEnded(e.hop));
      set.clear();
    }, { once: true });
  }
  pending.add(exchange);
}

/**
 * undici's handler for one hop (the onConnect/onHeaders/onData/onComplete/onError API: undici's
 * core calls it as is, where the controller API is wrapped per request). Settles once, whichever
 * comes first: the answer, an error, the size cap, the timeout or the run's end.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly hop: Hop;
  readonly #started: number;
  readonly #resolve: (response: HopResponse) => void;
  readonly #reject: (failure: SendFailure) => void;
  readonly #timer: NodeJS.Timeout;
  #abort: ((error?: Error) => void) | null = null;
  #settled = false;
  #status = 0;
  #headers: Record<string, string | string[]> | null = null;
  #headersMs: number | null = null;
  #chunks: Buffer[] = [];
  #size = 0;
  readonly #buffers: ByteBudget;

  constructor(hop: Hop, started: number, resolve: (response: HopResponse) => void, reject: (failure: SendFailure) => void) {
    this.hop = hop;
    this.#started = started;
    this.#resolve = resolve;
    this.#reject = reject;
    this.#buffers = hop.buffers ?? processBuffers;
    // The timeout covers the whole exchange, connect and a wait for a free connection included.
    this.#timer = setTimeout(timedOut, hop.timeoutMs, this);
    track(hop.signal, this);
  }

  /** Fails the hop now and drops the request (at once if it is on a socket, else as soon as it gets one). */
  fail(failure: SendFailure): void {
    if (this.#settled) return;
    this.#finish();
    this.#reject(this.#headersMs === null ? failure : new SendFailure(failure.code, failure.message, this.#headersMs));
    // undici calls onError from within abort: ignored, the hop is settled.
    this.#abort?.(new Error(failure.message));
  }

  #finish(): void {
    this.#settled = true;
    // Held until the hop settles: the answer then belongs to the run, bounded by maxResponseBytes.
    if (this.#size > 0) {
      this.#buffers.give(this.#size);
      this.hop.runBuffers?.give(this.#size);
    }
    clearTimeout(this.#timer);
    inFlight.get(this.hop.signal)?.delete(this);
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort;
    if (this.#settled) abort(new Error('the hop already failed'));
  }

  onHeaders(status: number, raw: Buffer[]): boolean {
    if (status < 200) return true; // 1xx: the answer comes after
    this.#status = status;
    this.#headersMs = performance.now() - this.#started;
    const headers: Record<string, string | string[]> = {};
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toString('latin1').toLowerCase();
      const value = raw[i + 1].toString('latin1');
      if (name === '__proto__') continue; // as before: never a header a driver sees
      // As node's http did: set-cookie is always an array, repeated headers are joined.
      if (name === 'set-cookie') {
        const list = headers[name];
        if (list) (list as string[]).push(value);
        else headers[name] = [value];
      } else if (Object.hasOwn(headers, name)) {
        headers[name] = `${headers[name] as string}, ${value}`;
      } else {
        headers[name] = value;
      }
    }
    this.#headers = headers;
    // An announced body past the cap fails before it is read.
    const length = headers['content-length'];
    if (typeof length === 'string' && Number(length) > this.hop.maxResponseBytes && !NO_BODY.has(status)) {
      this.fail(answerTooLarge(this.hop));
      return false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#settled) return false;
    if (this.#size + chunk.length > this.hop.maxResponseBytes) {
      this.fail(answerTooLarge(this.hop));
      return false;
    }
    const run = this.hop.runBuffers;
    if (run && !run.take(chunk.length)) {
      this.fail(runBuffersFull(this.hop, run));
      return false;
    }
    if (!this.#buffers.take(chunk.length)) {
      run?.give(chunk.length);
      this.fail(buffersFull(this.hop, this.#buffers));
      return false;
    }
    this.#size += chunk.length;
    this.#chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.#settled) return;
    this.#finish();
    // A copy: undici's chunks are views of the socket's reads.
    const body = Buffer.concat(this.#chunks, this.#size);
    this.#resolve({ status: this.#status, headers: this.#headers ?? {}, body, wireBytes: this.#size, headersMs: this.#headersMs ?? 0 });
  }

  onError(error: Error): void {
    this.fail(classify(error, this.hop));
  }
}

function timedOut(exchange: Exchange): void {
  exchange.fail(classify({ name: 'TimeoutError' }, exchange.hop));
}

/** Not the signal's reason: a reason named TimeoutError would read as this hop's own timeout. */
function runEnded(hop: Hop): SendFailure {
  return classify(null, hop);
}

/** BODY_TOO_LARGE for `hop`'s answer, naming the bound and what set it (the wire's and replay's one message). */
export function answerTooLarge(hop: Hop): SendFailure {
  return new SendFailure('BODY_TOO_LARGE', `${hop.method} ${hop.url.origin}: the response body is larger than the limit of ${hop.maxResponseBytes} bytes (${hop.limitName ?? 'maxResponseBytes'})`);
}

function runBuffersFull(hop: Hop, run: ByteBudget): SendFailure {
  return new SendFailure(
    'BODY_TOO_LARGE',
    `${hop.method} ${hop.url.origin}: this run's answers in flight would hold more than ${run.max} bytes at once (a share of its memoryMb); wait for one answer before asking for the next`,
  );
}

function buffersFull(hop: Hop, buffers: ByteBudget): SendFailure {
  return new SendFailure(
    'HOST_BUFFERS_FULL',
    `${hop.method} ${hop.url.origin}: the host already holds ${buffers.max} bytes of answers for its runs (maxBufferedBytes); try again later`,
  );
}

async function decompressed(hop: Hop, response: HopResponse): Promise<HopResponse> {
  const coding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (response.body.length === 0 || !Object.hasOwn(decoders, coding)) return response;
  try {
    return { ...response, body: await decoders[coding](response.body, { maxOutputLength: hop.maxResponseBytes }) };
  } catch (error) {
    const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
    throw new SendFailure(
      tooLarge ? 'BODY_TOO_LARGE' : 'DECOMPRESSION_ERROR',
      tooLarge
        ? `${hop.method} ${hop.url.origin}: the decompressed body is larger than the limit of ${hop.maxResponseBytes} bytes (${hop.limitName ?? 'maxResponseBytes'})`
        : `${hop.method} ${hop.url.origin}: the ${coding} body could not be decoded (${(error as Error).message})`,
      response.headersMs,
    );
  }
}

export function sendHop(hop: Hop): Promise<HopResponse> {
  const started = performance.now();
  const sent = new Promise<HopResponse>((resolve, reject) => {
    if (hop.signal.aborted) {
      reject(runEnded(hop));
      return;
    }
    const exchange = new Exchange(hop, started, resolve, reject);
    try {
      hop.dispatcher.dispatch({
        origin: hop.url.origin,
        path: hop.url.pathname + hop.url.search,
        method: hop.method,
        headers: hop.headers,
        body: hop.body ?? null,
        // Our timer bounds the whole exchange; these are undici's own, kept as a second bound.
        headersTimeout: hop.timeoutMs,
        bodyTimeout: hop.timeoutMs,
      }, exchange);
    } catch (error) {
      exchange.onError(error as Error);
    }
  });
  // Plain HTTP closed without a word is what TLS servers do with it: say so when the port speaks TLS.
  const checked = hop.url.protocol === 'http:' ? sent.catch((failure: SendFailure) => tlsPortCheck(hop, failure)) : sent;
  return hop.decompress ? checked.then((response) => decompressed(hop, response)) : checked;
}

async function tlsPortCheck(hop: Hop, failure: SendFailure): Promise<never> {
  if (failure.code === 'ECONNRESET' && failure.headersMs === null && !hop.signal.aborted && (await speaksTls(hop.url, hop.address, hop.signal, hop.timeoutMs))) {
    throw new SendFailure(failure.code, tlsPortMessage(`${hop.method} ${hop.url.origin}`, hop.url));
  }
  throw failure;
}
