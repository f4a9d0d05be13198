// The driver's request options, checked once and turned into what the sender needs.
// Defaults follow the driver HTTP module spec, plus the options real drivers pass
// (they were written against the `request` library): rejectUnauthorized, timeout,
// form, json, encoding, gzip, qs, followRedirect, followAllRedirects, maxRedirects.
import { RequestRefused } from './target.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** How the response body reaches the driver. */
export type BodyEncoding = { kind: 'text'; encoding: BufferEncoding } | { kind: 'buffer' };

export interface RequestOptions {
  method: Method;
  /** Lower-case header names; the driver's Cookie header (if any) is merged with the jar's. */
  headers: Record<string, string>;
  body: Buffer | undefined;
  basicAuth: boolean;
  jar: boolean;
  timeoutMs: number;
  rejectUnauthorized: boolean;
  /** Parse the response body as JSON when it is JSON (request's `json` option). */
  parseJson: boolean;
  encoding: BodyEncoding;
  gzip: boolean;
  followRedirects: boolean;
  maxRedirects: number;
}

/** When the driver gives no timeout: a request may take this long (the run's deadline still bounds it). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_REDIRECTS = 10;
const ENCODINGS = new Set(['utf8', 'utf-8', 'ascii', 'latin1', 'binary', 'base64', 'base64url', 'hex', 'utf16le', 'ucs2', 'ucs-2', 'utf-16le']);

function invalid(message: string): never {
  throw new RequestRefused('INVALID_OPTIONS', message);
}

function headersOf(given: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (given === undefined || given === null) return out;
  if (typeof given !== 'object' || Array.isArray(given)) invalid('headers must be an object of name → value');
  for (const [name, value] of Object.entries(given as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) invalid(`header name ${JSON.stringify(name)} is not a valid HTTP token`);
    if (/[\r\n\0]/.test(text)) throw new RequestRefused('INVALID_HEADER', `header ${JSON.stringify(name)} contains CR, LF or NUL`);
    const lower = name.toLowerCase();
    // The host, and the framing of the body, are the bridge's to set: never the driver's.
    if (lower === 'host' || lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') continue;
    out[lower] = text;
  }
  return out;
}

function formText(form: unknown): string {
  if (typeof form === 'string') return form;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else params.append(key, value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  return params.toString();
}

function bodyOf(options: Record<string, unknown>, headers: Record<string, string>): Buffer | undefined {
  if (options.form !== undefined && options.form !== null) {
    if (typeof options.form !== 'string' && typeof options.form !== 'object') invalid('form must be an object (sent urlencoded) or a string');
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    return Buffer.from(formText(options.form));
  }
  const json = options.json;
  if (json !== undefined && json !== null && json !== false && json !== true) {
    headers['content-type'] ??= 'application/json';
    return Buffer.from(JSON.stringify(json));
  }
  const body = options.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'object') {
    // request sends an object body as JSON only with json: true; anything else is a driver mistake we make useful.
    headers['content-type'] ??= 'application/json';
    return Buffer.from(JSON.stringify(body));
  }
  return Buffer.from(String(body));
}

function encodingOf(value: unknown): BodyEncoding {
  if (value === undefined) return { kind: 'text', encoding: 'utf8' };
  if (value === null) return { kind: 'buffer' };
  if (typeof value !== 'string' || !ENCODINGS.has(value.toLowerCase())) {
    invalid(`encoding must be null (a Buffer body) or one of ${[...ENCODINGS].join(', ')} (got ${JSON.stringify(value)})`);
  }
  return { kind: 'text', encoding: value.toLowerCase() as BufferEncoding };
}

function timeoutOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_REQUEST_TIMEOUT_MS;
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms <= 0) invalid(`timeout must be a positive number of milliseconds (got ${JSON.stringify(value)})`);
  return Math.ceil(ms);
}

function maxRedirectsOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_MAX_REDIRECTS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) invalid(`maxRedirects must be an integer >= 0 (got ${JSON.stringify(value)})`);
  return n;
}

export function readOptions(method: Method, options: Record<string, unknown>): RequestOptions {
  const headers = headersOf(options.headers);
  const body = bodyOf(options, headers);
  const parseJson = options.json !== undefined && options.json !== null && options.json !== false;
  if (parseJson) headers.accept ??= 'application/json';
  const gzip = options.gzip === true;
  if (gzip) headers['accept-encoding'] ??= 'gzip, deflate';
  // Followed by default for GET (and HEAD); other methods only with followAllRedirects, as request did.
  const follow = options.followRedirect !== false && (method === 'GET' || options.followAllRedirects === true);
  return {
    method,
    headers,
    body,
    basicAuth: options.auth === 'basic', // the spec: any other auth value is ignored
    jar: options.jar === true,
    timeoutMs: timeoutOf(options.timeout),
    rejectUnauthorized: options.rejectUnauthorized !== false && options.strictSSL !== false,
    parseJson,
    encoding: encodingOf(options.encoding),
    gzip,
    followRedirects: follow,
    maxRedirects: maxRedirectsOf(options.maxRedirects),
  };
}
