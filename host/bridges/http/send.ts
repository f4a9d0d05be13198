// One HTTP exchange with undici: send, read the body up to the size cap, decompress
// when asked. Failures become a SendFailure with a stable code the driver can test.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { request, type Dispatcher } from 'undici';
import type { Method } from './options.js';

export interface Hop {
  url: URL;
  method: Method;
  headers: Record<string, string>;
  body: Buffer | undefined;
  dispatcher: Dispatcher;
  timeoutMs: number;
  signal: AbortSignal;
  maxResponseBytes: number;
  /** Decode a gzip / deflate / br body (request's gzip: true). */
  decompress: boolean;
}

export interface HopResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
  /** Bytes as received, before decompression. */
  wireBytes: number;
  headersMs: number;
}

export class SendFailure extends Error {
  readonly code: string;
  readonly headersMs: number | null;
  constructor(code: string, message: string, headersMs: number | null = null) {
    super(message);
    this.code = code;
    this.headersMs = headersMs;
  }
}

const decoders: Record<string, (b: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress) as (b: Buffer, o: zlib.ZlibOptions) => Promise<Buffer>,
};

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
      return new SendFailure('BODY_TOO_LARGE', `${where}: the response body is larger than the limit of ${hop.maxResponseBytes} bytes`);
  }
  if (typeof code === 'string' && (/CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|ERR_SSL/.test(code))) {
    return new SendFailure(code, `${where}: TLS failure: ${message} (a driver may pass rejectUnauthorized: false for a device with its own certificate)`);
  }
  return new SendFailure(typeof code === 'string' ? code : 'NETWORK_ERROR', `${where}: ${message}`);
}

export async function sendHop(hop: Hop): Promise<HopResponse> {
  const started = performance.now();
  let headersMs: number | null = null;
  // One controller for both ends of a request's life: its timeout (connect included) and the
  // run's end. Cheaper than AbortSignal.any + AbortSignal.timeout, which this path paid per request.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, hop.timeoutMs);
  const onRunEnd = () => controller.abort();
  hop.signal.addEventListener('abort', onRunEnd, { once: true });
  try {
    const response = await request(hop.url, {
      method: hop.method,
      headers: hop.headers,
      body: hop.body,
      dispatcher: hop.dispatcher,
      signal: controller.signal,
      headersTimeout: hop.timeoutMs,
      bodyTimeout: hop.timeoutMs,
    });
    headersMs = performance.now() - started;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > hop.maxResponseBytes) {
        response.body.destroy();
        throw new SendFailure('BODY_TOO_LARGE', `${hop.method} ${hop.url.origin}: the response body is larger than the limit of ${hop.maxResponseBytes} bytes`, headersMs);
      }
      chunks.push(chunk as Buffer);
    }
    let body: Buffer = Buffer.concat(chunks, size);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      // As node's http did: set-cookie is always an array, repeated headers are joined.
      if (name === 'set-cookie') headers[name] = Array.isArray(value) ? value : [value];
      else headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const coding = String(headers['content-encoding'] ?? '').trim().toLowerCase();
    if (hop.decompress && body.length > 0 && decoders[coding]) {
      try {
        body = await decoders[coding](body, { maxOutputLength: hop.maxResponseBytes });
      } catch (error) {
        const tooLarge = (error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
        throw new SendFailure(
          tooLarge ? 'BODY_TOO_LARGE' : 'DECOMPRESSION_ERROR',
          tooLarge
            ? `${hop.method} ${hop.url.origin}: the decompressed body is larger than the limit of ${hop.maxResponseBytes} bytes`
            : `${hop.method} ${hop.url.origin}: the ${coding} body could not be decoded (${(error as Error).message})`,
          headersMs,
        );
      }
    }
    return { status: response.statusCode, headers, body, wireBytes: size, headersMs };
  } catch (error) {
    if (error instanceof SendFailure) throw error;
    const failure = classify(timedOut ? { name: 'TimeoutError' } : error, hop);
    throw new SendFailure(failure.code, failure.message, headersMs);
  } finally {
    clearTimeout(timer);
    hop.signal.removeEventListener('abort', onRunEnd);
  }
}
