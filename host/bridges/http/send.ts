// Sends one driver request to its target with undici and answers in the shape the
// driver's callback gets: (error, response, body). Never throws: failures become error codes.
import { STATUS_CODES } from 'node:http';
import { request } from 'undici';
import type { HttpAnswer } from '../../../runtime/protocol.js';
import type { HttpExchange } from '../../run-result.js';
import type { DispatcherRegistry } from './dispatchers.js';
import { buildUrl, RequestRefused, type HttpTarget } from './target.js';

export interface SendContext {
  target: HttpTarget;
  method: string;
  options: Record<string, unknown>;
  dispatchers: DispatcherRegistry;
  signal: AbortSignal;
  maxResponseBytes: number;
  /** Upper bound on this request's time (what is left of the run's deadline). */
  maxTimeoutMs: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

function headerList(options: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const given = options.headers;
  if (given && typeof given === 'object') {
    for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
      if (value === undefined || value === null) continue;
      const text = String(value);
      if (/[\r\n]/.test(name) || /[\r\n]/.test(text)) throw new RequestRefused('INVALID_HEADER', `header ${JSON.stringify(name)} contains CR or LF`);
      if (name.toLowerCase() === 'host') continue; // the host is the device's, never the driver's
      out[name.toLowerCase()] = text;
    }
  }
  return out;
}

function requestBody(options: Record<string, unknown>, headers: Record<string, string>): string | undefined {
  if (options.form && typeof options.form === 'object') {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    return new URLSearchParams(Object.entries(options.form as Record<string, unknown>).map(([k, v]) => [k, String(v)])).toString();
  }
  if (options.json !== undefined && typeof options.json === 'object' && options.json !== null) {
    headers['content-type'] ??= 'application/json';
    return JSON.stringify(options.json);
  }
  if (options.body === undefined || options.body === null) return undefined;
  if (typeof options.body === 'object') {
    headers['content-type'] ??= 'application/json';
    return JSON.stringify(options.body);
  }
  return String(options.body);
}

function errorCode(error: unknown): string {
  const e = error as { code?: string; cause?: { code?: string }; name?: string };
  const code = e.cause?.code ?? e.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return 'ETIMEDOUT';
  if (code === 'UND_ERR_SOCKET') return 'ECONNRESET';
  if (code) return code;
  if (e.name === 'AbortError') return 'ABORTED';
  return 'NETWORK_ERROR';
}

export async function send(ctx: SendContext): Promise<{ answer: HttpAnswer; exchange: HttpExchange }> {
  const started = performance.now();
  const exchange: HttpExchange = { method: ctx.method, url: '', status: null, error: null, durationMs: 0, requestBytes: 0, responseBytes: 0 };
  const fail = (code: string, message: string) => {
    exchange.error = code;
    exchange.durationMs = performance.now() - started;
    return { answer: { error: { code, message }, response: null }, exchange };
  };
  try {
    const { url, shown } = buildUrl(ctx.target, ctx.options);
    exchange.url = shown;
    const headers = headerList(ctx.options);
    const body = requestBody(ctx.options, headers);
    exchange.requestBytes = body ? Buffer.byteLength(body) : 0;
    const username = ctx.options.username ?? ctx.target.username;
    const password = ctx.options.password ?? ctx.target.password;
    if (ctx.options.auth === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`;
    }
    const requested = Number(ctx.options.timeout);
    const timeout = Math.max(1, Math.ceil(Math.min(Number.isFinite(requested) && requested > 0 ? requested : DEFAULT_TIMEOUT_MS, ctx.maxTimeoutMs)));
    const rejectUnauthorized = ctx.options.rejectUnauthorized !== false && ctx.options.strictSSL !== false;
    const response = await request(url, {
      method: ctx.method as 'GET',
      headers,
      body,
      dispatcher: ctx.dispatchers.get(url.origin, rejectUnauthorized),
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(timeout)]),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > ctx.maxResponseBytes) {
        response.body.destroy();
        return fail('BODY_TOO_LARGE', `the response body is larger than the limit of ${ctx.maxResponseBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    exchange.status = response.statusCode;
    exchange.responseBytes = size;
    exchange.durationMs = performance.now() - started;
    const responseHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      responseHeaders[name] = name === 'set-cookie' && !Array.isArray(value) ? [value] : value;
    }
    return {
      answer: {
        error: null,
        response: { statusCode: response.statusCode, statusMessage: STATUS_CODES[response.statusCode] ?? '', headers: responseHeaders, body: text },
      },
      exchange,
    };
  } catch (error) {
    if (error instanceof RequestRefused) return fail(error.code, error.message);
    const code = errorCode(error);
    const message = code === 'ETIMEDOUT' || (error as Error).name === 'TimeoutError' ? 'the request timed out' : (error as Error).message;
    return fail((error as Error).name === 'TimeoutError' ? 'ETIMEDOUT' : code, `${message}${exchange.url ? ` (${ctx.method} ${exchange.url})` : ''}`);
  }
}
