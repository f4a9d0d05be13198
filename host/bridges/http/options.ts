// The driver's request options, checked once and turned into what the sender needs.
// Defaults follow the driver HTTP module spec, plus the options real drivers pass
// (they were written against the `request` library): rejectUnauthorized, timeout,
// form, json, encoding, gzip, qs, followRedirect, followAllRedirects, maxRedirects.
import { describe, isPlainObject, MAX_JSON_DEPTH, nestsDeeperThan, numberOption, scalarText } from '../../untrusted-input/plain-values.js';
import { RequestRefused } from './errors.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** How the response body reaches the driver. */
export type BodyEncoding = { kind: 'text'; encoding: BufferEncoding } | { kind: 'buffer' };

export interface RequestOptions {
  method: Method;
  /** Lower-case header names; the driver's Cookie header (if any) is merged with the jar's. */
  headers: Record<string, string>;
  body: Buffer | undefined;
  basicAuth: boolean;
  /** The username / password options (they override the target's credentials for basic auth). */
  username: string | undefined;
  password: string | undefined;
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

/** A header's value: text or a number, or a list of them (joined as repeated headers are). */
function headerText(name: string, value: unknown): string {
  const text = scalarText(value);
  if (text !== null) return text;
  if (Array.isArray(value)) {
    const items = value.map((item) => scalarText(item));
    if (items.every((item) => item !== null)) return items.join(', ');
  }
  return invalid(`header ${JSON.stringify(name)} must be a string or a number (got ${describe(value)})`);
}

function headersOf(given: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (given === undefined || given === null) return out;
  if (!isPlainObject(given)) invalid('headers must be an object of name → value');
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || value === null) continue;
    const text = headerText(name, value);
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) invalid(`header name ${JSON.stringify(name)} is not a valid HTTP token`);
    if (/[\r\n\0]/.test(text)) throw new RequestRefused('INVALID_HEADER', `header ${JSON.stringify(name)} contains CR, LF or NUL`);
    const lower = name.toLowerCase();
    // The host, and the framing of the body, are the bridge's to set: never the driver's.
    if (lower === 'host' || lower === 'content-length' || lower === 'transfer-encoding' || lower === 'connection') continue;
    out[lower] = text;
  }
  return out;
}

/** JSON text of a driver's value, refused when it nests too deep for the host to write safely. */
export function jsonText(value: unknown, what: string): string {
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) invalid(`${what} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return JSON.stringify(value);
}

/** One field of a form or query: text, a number or boolean, null (empty), or an object (as JSON). */
export function fieldText(key: string, value: unknown, what: string): string {
  if (value === null) return '';
  const text = scalarText(value);
  if (text !== null) return text;
  if (typeof value === 'object') return jsonText(value, `${what}.${key}`);
  return invalid(`${what}.${key} must be a string, a number or a boolean (got ${describe(value)})`);
}

function formText(form: unknown): string {
  if (typeof form === 'string') return form;
  if (!isPlainObject(form)) return invalid('form must be an object (sent urlencoded) or a string');
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, fieldText(key, item, 'form'));
    else params.append(key, fieldText(key, value, 'form'));
  }
  return params.toString();
}

function bodyOf(options: Record<string, unknown>, headers: Record<string, string>): Buffer | undefined {
  if (options.form !== undefined && options.form !== null) {
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    return Buffer.from(formText(options.form));
  }
  const json = options.json;
  if (json !== undefined && json !== null && json !== false && json !== true) {
    headers['content-type'] ??= 'application/json';
    return Buffer.from(jsonText(json, 'json'));
  }
  const body = options.body;
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'object') {
    // request sends an object body as JSON only with json: true; anything else is a driver mistake we make useful.
    headers['content-type'] ??= 'application/json';
    return Buffer.from(jsonText(body, 'body'));
  }
  const text = scalarText(body);
  if (text === null) invalid(`body must be a string, a Buffer's bytes or an object (got ${describe(body)})`);
  return Buffer.from(text);
}

function encodingOf(value: unknown): BodyEncoding {
  if (value === undefined) return { kind: 'text', encoding: 'utf8' };
  if (value === null) return { kind: 'buffer' };
  if (typeof value !== 'string' || !ENCODINGS.has(value.toLowerCase())) {
    invalid(`encoding must be null (a Buffer body) or one of ${[...ENCODINGS].join(', ')} (got ${describe(value)})`);
  }
  return { kind: 'text', encoding: value.toLowerCase() as BufferEncoding };
}

function timeoutOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_REQUEST_TIMEOUT_MS;
  const ms = numberOption(value);
  if (!Number.isFinite(ms) || ms <= 0) invalid(`timeout must be a positive number of milliseconds (got ${describe(value)})`);
  // The run's deadline bounds it anyway; past a day it only overflows timers.
  return Math.ceil(Math.min(ms, 86_400_000));
}

function maxRedirectsOf(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_MAX_REDIRECTS;
  const n = numberOption(value);
  if (!Number.isInteger(n) || n < 0) invalid(`maxRedirects must be an integer >= 0 (got ${describe(value)})`);
  return n;
}

/** username / password options: text (or a number), overriding the device's credentials. */
function credentialOf(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = scalarText(value);
  if (text === null) invalid(`${name} must be a string (got ${describe(value)})`);
  return text;
}

export function readOptions(method: Method, options: Record<string, unknown>): RequestOptions {
  const username = credentialOf(options.username, 'username');
  const password = credentialOf(options.password, 'password');
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
    username,
    password,
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
