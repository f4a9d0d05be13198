// How replay recognises a request: its method, origin, path, query parameters in any order,
// and body (JSON compared as JSON, anything else as text, binary as bytes), all taken after
// redaction. Headers are not compared: cookies, dates and user agents vary between runs.
import { createHash } from 'node:crypto';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from '../../untrusted-input/plain-values.js';
import type { RunTarget } from '../core/target.js';

export interface RequestShape {
  method: string;
  /** scheme://host:port, as dialled. */
  origin: string;
  path: string;
  /** Parameters sorted by name then value, re-encoded: a=1&b=2. */
  query: string;
  /** 'json:' + canonical JSON, 'text:' + text, 'base64:' + bytes, or '' without a body. */
  body: string;
  bodyBytes: number;
}

/** The parts replay compares, in the order they are named when a request is missed. */
const PARTS = ['method', 'origin', 'path', 'query', 'body'] as const;

/** JSON with object keys sorted, so that {"a":1,"b":2} and {"b":2,"a":1} are the same body. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

function bodyKey(body: { text: string } | { base64: string } | null): string {
  if (body === null) return '';
  if ('base64' in body) return body.base64 === '' ? '' : `base64:${body.base64}`;
  if (body.text === '') return '';
  const trimmed = body.text.trim();
  // canonicalJson recurses: a body nested past the bound (a driver's string body can be) is compared as text.
  if ((trimmed.startsWith('{') || trimmed.startsWith('[')) && !jsonTextNestsDeeperThan(trimmed, MAX_JSON_DEPTH)) {
    try {
      return `json:${canonicalJson(JSON.parse(trimmed))}`;
    } catch {
      // not JSON after all: compared as text
    }
  }
  return `text:${body.text}`;
}

/** The shape of a request from its (already redacted) url and body. */
export function requestShape(method: string, url: string, body: { text: string } | { base64: string } | null): RequestShape {
  const parsed = new URL(url);
  const params = [...parsed.searchParams].sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : av > bv ? 1 : 0) : ak < bk ? -1 : 1));
  const bytes = body === null ? 0 : 'text' in body ? Buffer.byteLength(body.text) : Buffer.from(body.base64, 'base64').length;
  return {
    method: method.toUpperCase(),
    origin: parsed.origin,
    path: parsed.pathname,
    query: new URLSearchParams(params).toString(),
    body: bodyKey(body),
    bodyBytes: bytes,
  };
}

export function shapeKey(shape: RequestShape): string {
  return JSON.stringify([shape.method, shape.origin, shape.path, shape.query, shape.body]);
}

/** "POST http://10.0.0.7:80/login?a=1 (body sha256:3f2a9c01d4e7, 31 bytes)": a miss names the request so. */
export function describeShape(shape: RequestShape): string {
  const url = `${shape.origin}${shape.path}${shape.query ? `?${shape.query}` : ''}`;
  const body = shape.body === '' ? 'no body' : `body sha256:${createHash('sha256').update(shape.body).digest('hex').slice(0, 12)}, ${shape.bodyBytes} bytes`;
  return `${shape.method} ${url} (${body})`;
}

/** Which parts of `b` differ from `a`. */
export function differences(a: RequestShape, b: RequestShape): string[] {
  return PARTS.filter((part) => a[part] !== b[part]);
}

/** How alike two requests are, for the closest candidates of a miss: the path weighs most. */
export function likeness(a: RequestShape, b: RequestShape): number {
  const weights: Record<(typeof PARTS)[number], number> = { method: 2, origin: 1, path: 8, query: 3, body: 3 };
  return PARTS.reduce((sum, part) => sum + (a[part] === b[part] ? weights[part] : 0), 0);
}

/** The key of a getTLSCertificate: tls://host:port, the host chosen and the port given as the reader does. */
export function tlsKey(target: RunTarget, options: Record<string, unknown>): string {
  const host = (options.useHostname !== false && target.host) || target.ip || '';
  const port = options.port === undefined || options.port === null ? 443 : options.port;
  return `tls://${host}:${String(port)}`;
}

/** Options that change how long a protocol call may take, not what it asks: not compared at replay. */
const TIMING_OPTIONS = new Set(['timeout', 'ttl', 'global_timeout_ms', 'inter_command_timeout_ms']);

/** A protocol call as replay compares it: module, url and the (redacted) options that matter, keys in any order. */
export interface ProtocolShape {
  module: string;
  url: string;
  /** Each compared option as canonical JSON, by name. */
  options: Record<string, string>;
}

export function protocolShape(module: string, url: string, request: Record<string, unknown>): ProtocolShape {
  const options: Record<string, string> = {};
  for (const name of Object.keys(request).sort()) {
    if (TIMING_OPTIONS.has(name) || request[name] === undefined) continue;
    options[name] = canonicalJson(request[name]);
  }
  return { module, url, options };
}

export function protocolKey(shape: ProtocolShape): string {
  return JSON.stringify([shape.module, shape.url, Object.entries(shape.options)]);
}

/** `ssh ssh://10.0.0.5 {"command":"uptime","port":22}`: a miss names the call so (options cut at 200 characters). */
export function describeProtocol(shape: ProtocolShape): string {
  const options = `{${Object.entries(shape.options).map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
  return `${shape.module} ${shape.url} ${options.length > 200 ? `${options.slice(0, 199)}…}` : options}`;
}

/** What differs between two calls: module, url, or options.<name>. */
export function protocolDifferences(a: ProtocolShape, b: ProtocolShape): string[] {
  const out: string[] = [];
  if (a.module !== b.module) out.push('module');
  if (a.url !== b.url) out.push('url');
  for (const name of new Set([...Object.keys(a.options), ...Object.keys(b.options)])) {
    if (a.options[name] !== b.options[name]) out.push(`options.${name}`);
  }
  return out;
}

/** How alike two calls are, for the closest candidates of a miss. */
export function protocolLikeness(a: ProtocolShape, b: ProtocolShape): number {
  let score = (a.module === b.module ? 8 : 0) + (a.url === b.url ? 4 : 0);
  for (const [name, value] of Object.entries(a.options)) if (b.options[name] === value) score++;
  return score;
}
