// Which route answers a request. A route *matches* by method, path, protocol, query and
// state; among those, the first whose *requirements* (credentials, cookies, headers, body
// fields) the request meets answers. When matching routes exist but the request meets
// none's requirements, the first one refuses it (401/403) as a device would; when none
// matches, the simulator answers 404 with hints about the near misses.
import type { IncomingHttpHeaders } from 'node:http';
import type { Expected, FixtureRoute } from './fixture-types.js';

export interface RequestFacts {
  protocol: 'http' | 'https';
  method: string;
  /** Path in the same normal form as a route's (WHATWG URL pathname). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  state: string;
}

export type RouteDecision =
  | { kind: 'answer'; index: number; route: FixtureRoute }
  | { kind: 'refuse'; index: number; route: FixtureRoute; status: 401 | 403; reason: string; basicChallenge: boolean }
  | { kind: 'unmatched'; hints: string[] };

function describeRoute(route: FixtureRoute, index: number): string {
  const label = route.name === `${route.method} ${route.path}` ? '' : ` "${route.name}"`;
  return `routes[${index}]${label}`;
}

/** Why the route does not match the request, or null when it does. */
function mismatch(route: FixtureRoute, request: RequestFacts): string | null {
  if (route.path !== request.path) return 'path';
  if (route.method !== request.method) return `answers ${route.method}, not ${request.method}`;
  if (route.protocol && route.protocol !== request.protocol) return `only answers over ${route.protocol}`;
  for (const [name, expected] of Object.entries(route.query)) {
    const values = request.query.getAll(name);
    if (expected === true ? values.length === 0 : !values.includes(expected)) {
      return expected === true ? `needs the query parameter ${name}` : `needs the query parameter ${name}=${expected}`;
    }
  }
  if (route.whenState && !route.whenState.includes(request.state)) {
    return `only answers in state ${route.whenState.map((s) => `"${s}"`).join(' or ')} (the state is "${request.state}")`;
  }
  return null;
}

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
  }
  return cookies;
}

/** A JSON object body or a form body, as name → text. */
function bodyFields(request: RequestFacts): Map<string, string> {
  const text = request.body.toString('utf8');
  const type = String(request.headers['content-type'] ?? '');
  if (type.includes('json') || text.trimStart().startsWith('{')) {
    try {
      const data = JSON.parse(text) as unknown;
      if (data && typeof data === 'object' && !Array.isArray(data)) {
        return new Map(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
      }
    } catch {
      // not JSON after all: read it as a form
    }
  }
  return new Map(new URLSearchParams(text));
}

function unmet(kind: string, name: string, expected: Expected, actual: string | undefined): string | null {
  if (actual === undefined) return `${kind} "${name}" is missing`;
  if (expected !== true && actual !== expected) return `${kind} "${name}" has another value`;
  return null;
}

/** The first requirement the request does not meet, or null. */
function refusal(route: FixtureRoute, request: RequestFacts): { status: 401 | 403; reason: string; basicChallenge: boolean } | null {
  if (route.auth) {
    const header = request.headers.authorization;
    const expected = `Basic ${Buffer.from(`${route.auth.username}:${route.auth.password}`).toString('base64')}`;
    if (!header) return { status: 401, reason: 'no basic credentials were sent (Authorization header)', basicChallenge: true };
    if (header !== expected) return { status: 401, reason: 'the basic credentials do not match', basicChallenge: true };
  }
  const cookies = parseCookies(request.headers.cookie);
  for (const [name, expected] of Object.entries(route.cookie)) {
    const reason = unmet('cookie', name, expected, cookies.get(name));
    if (reason) return { status: 401, reason, basicChallenge: false };
  }
  for (const [name, expected] of Object.entries(route.requireHeaders)) {
    const value = request.headers[name];
    const reason = unmet('header', name, expected, Array.isArray(value) ? value.join(', ') : value);
    if (reason) return { status: 403, reason, basicChallenge: false };
  }
  if (Object.keys(route.requireBody).length) {
    const fields = bodyFields(request);
    for (const [name, expected] of Object.entries(route.requireBody)) {
      const reason = unmet('body field', name, expected, fields.get(name));
      if (reason) return { status: 401, reason, basicChallenge: false };
    }
  }
  return null;
}

export function matchRoute(routes: readonly FixtureRoute[], request: RequestFacts): RouteDecision {
  let refused: RouteDecision | null = null;
  const hints: string[] = [];
  for (const [index, route] of routes.entries()) {
    const why = mismatch(route, request);
    if (why === 'path') continue;
    if (why) {
      hints.push(`${describeRoute(route, index)} ${why}`);
      continue;
    }
    const unmetRequirement = refusal(route, request);
    if (!unmetRequirement) return { kind: 'answer', index, route };
    refused ??= { kind: 'refuse', index, route, ...unmetRequirement };
  }
  if (refused) return refused;
  if (hints.length === 0) {
    const paths = [...new Set(routes.map((r) => r.path))];
    hints.push(`no route has the path ${request.path}; the fixture's paths: ${paths.slice(0, 12).join(', ')}${paths.length > 12 ? ', …' : ''}`);
  }
  return { kind: 'unmatched', hints };
}
