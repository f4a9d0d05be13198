// Validates a fixture (the parsed JSON of a file, or an object built in code) into the
// Fixture the simulator runs. Every problem is collected with its field path and thrown
// together as one FixtureError.
import path from 'node:path';
import { describeValue, FieldChecker, fieldPath } from './field-checker.js';
import { FixtureError } from '../contract/errors.js';
import { FIXTURE_VERSION, type Fixture, type FixtureHttps, type FixtureRoute, type Expected } from './fixture-types.js';
import type { FixtureDevice } from './fixture-device.js';
import { HEADER_NAME, parseResponse, RESPONSE_FIELDS } from './parse-response.js';
import { parseSshSection } from './ssh/parse.js';

import { parseSnmpFixture } from './snmp/fixture.js';


import { parseTelnet } from './telnet/parse.js';
import { parseWinrm } from './winrm/parse.js';
import { MAX_FIXTURE_RESPONSES, MAX_FIXTURE_ROUTES, prototypeKeyPath, prototypeKeyMessage } from '../untrusted-input/files.js';

const TOP_FIELDS = ['fixture', 'description', 'comment', 'device', 'parameters', 'state', 'http', 'https', 'routes', 'ssh', 'snmp', 'telnet', 'winrm'] as const;
const DEVICE_FIELDS = ['username', 'password', 'host', 'serial', 'macAddress'] as const;
const HTTPS_FIELDS = ['ports', 'hosts', 'expiresInDays'] as const;
const ROUTE_MATCH_FIELDS = ['name', 'comment', 'method', 'path', 'query', 'protocol', 'whenState', 'auth', 'cookie', 'requireHeaders', 'requireBody', 'responses'] as const;
const ROUTE_FIELDS = [...ROUTE_MATCH_FIELDS, ...RESPONSE_FIELDS] as const;
const RESPONSE_ENTRY_FIELDS = ['comment', ...RESPONSE_FIELDS] as const;

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const COOKIE_NAME = { test: /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, what: 'cookie name' };
const ANY_NAME = { test: /^.+$/, what: 'name' };
const DEFAULT_STATE = 'start';
const CERTIFICATE_DAYS = 365;

export interface ParseFixtureOptions {
  /** The file the fixture came from: named in errors, and where bodyFile paths start. */
  file?: string | null;
  /** Where bodyFile paths start when there is no file (default: the working directory). */
  baseDir?: string;
}

function has(object: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key) && object[key] !== undefined;
}

function parseDevice(value: unknown, check: FieldChecker): FixtureDevice {
  const device: FixtureDevice = { username: null, password: null, host: null, serial: null, macAddress: null };
  if (value === undefined) return device;
  const object = check.object(value, 'device');
  if (!object) return device;
  check.knownFields(object, 'device', DEVICE_FIELDS);
  for (const key of DEVICE_FIELDS) {
    if (!has(object, key)) continue;
    const at = fieldPath('device', key);
    if (typeof object[key] !== 'string') check.problem(at, `must be a string (got ${describeValue(object[key])})`);
    else device[key] = object[key] as string;
  }
  if (device.host !== null && !HOST_NAME.test(device.host)) {
    check.problem('device.host', `must be a host name such as "nas-01.lan" (got ${describeValue(device.host)})`);
    device.host = null;
  }
  return device;
}

function parseHttps(value: unknown, check: FieldChecker): FixtureHttps | null {
  if (value === undefined || value === false) return null;
  if (value === true) return { ports: [443], hosts: [], expiresInDays: CERTIFICATE_DAYS };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    check.problem('https', `must be true, false or an object such as { "hosts": ["nas-01.lan"] } (got ${describeValue(value)})`);
    return null;
  }
  const object = value as Record<string, unknown>;
  check.knownFields(object, 'https', HTTPS_FIELDS);
  const https: FixtureHttps = { ports: [443], hosts: [], expiresInDays: CERTIFICATE_DAYS };
  if (has(object, 'ports')) https.ports = check.ports(object.ports, 'https.ports') ?? https.ports;
  if (has(object, 'hosts')) {
    const hosts = check.stringOrList(object.hosts, 'https.hosts') ?? [];
    hosts.forEach((h, i) => {
      if (!HOST_NAME.test(h)) check.problem(Array.isArray(object.hosts) ? `https.hosts[${i}]` : 'https.hosts', `must be a host name (got ${describeValue(h)})`);
    });
    https.hosts = hosts;
  }
  if (has(object, 'expiresInDays')) {
    // Negative: a certificate that expired that many days ago, for drivers that check expiry.
    https.expiresInDays = check.integer(object.expiresInDays, 'https.expiresInDays', -3650, 3650) ?? CERTIFICATE_DAYS;
  }
  return https;
}

/** ${username} / ${password} in expected values stand for the device's credentials. */
function fillCredentials(values: Record<string, Expected>, at: string, device: FixtureDevice, check: FieldChecker): Record<string, Expected> {
  const out: Record<string, Expected> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === true) {
      out[key] = true;
      continue;
    }
    let filled = value;
    for (const field of ['username', 'password'] as const) {
      if (!filled.includes(`\${${field}}`)) continue;
      if (device[field] === null) check.problem(fieldPath(at, key), `uses \${${field}} but device.${field} is not set`);
      filled = filled.replaceAll(`\${${field}}`, device[field] ?? '');
    }
    out[key] = filled;
  }
  return out;
}

interface RouteContext {
  check: FieldChecker;
  baseDir: string;
  /** Body file bytes read so far (parse-response.ts bounds their total). */
  bodyBytes: { read: number };
  device: FixtureDevice;
  https: FixtureHttps | null;
}

function parseAuth(value: unknown, at: string, context: RouteContext): FixtureRoute['auth'] {
  const { check, device } = context;
  if (value === 'device') {
    if (device.username === null) {
      check.problem(at, '"device" means the device credentials, but device.username is not set');
      return null;
    }
    return { username: device.username, password: device.password ?? '' };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    check.knownFields(object, at, ['username', 'password']);
    if (typeof object.username === 'string' && typeof object.password === 'string') return { username: object.username, password: object.password };
  }
  check.problem(at, `must be "device" or { "username": …, "password": … } (got ${describeValue(value)})`);
  return null;
}

/** The path and the query constraints written into it ("/x?page=1"). */
function parsePath(value: unknown, at: string, check: FieldChecker): { path: string; query: Record<string, string> } | null {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || /[\s#\\]/.test(value)) {
    check.problem(at, `must be a path starting with "/", without spaces or "#" (got ${describeValue(value)})`);
    return null;
  }
  // Compared with the request's path in the same normal form, so "/a b" and "/a%20b" are one path.
  const url = new URL(value, 'http://device');
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) };
}

function parseRoute(value: unknown, index: number, context: RouteContext): FixtureRoute | null {
  const { check } = context;
  const at = fieldPath('routes', index);
  const spec = check.object(value, at);
  if (!spec) return null;
  const before = check.problems.length;
  check.knownFields(spec, at, ROUTE_FIELDS);

  const method = has(spec, 'method') ? (typeof spec.method === 'string' && /^[A-Za-z]+$/.test(spec.method) ? spec.method.toUpperCase() : null) : 'GET';
  if (method === null) check.problem(fieldPath(at, 'method'), `must be an HTTP method such as "GET" or "POST" (got ${describeValue(spec.method)})`);
  const where = has(spec, 'path') ? parsePath(spec.path, fieldPath(at, 'path'), check) : (check.problem(fieldPath(at, 'path'), 'missing: every route needs a path such as "/status"'), null);
  const name = has(spec, 'name') ? check.string(spec.name, fieldPath(at, 'name')) : `${method ?? '?'} ${where?.path ?? '?'}`;

  let query: Record<string, Expected> = { ...where?.query };
  if (has(spec, 'query')) {
    const given = check.expectations(spec.query, fieldPath(at, 'query'), ANY_NAME) ?? {};
    for (const key of Object.keys(given)) {
      if (key in query && query[key] !== given[key]) check.problem(fieldPath(fieldPath(at, 'query'), key), `contradicts the path's own query (${key}=${query[key]})`);
    }
    query = { ...query, ...given };
  }
  query = fillCredentials(query, fieldPath(at, 'query'), context.device, check);

  const protocol = has(spec, 'protocol') ? check.oneOf(spec.protocol, fieldPath(at, 'protocol'), ['http', 'https'] as const) : null;
  if (protocol === 'https' && !context.https) check.problem(fieldPath(at, 'protocol'), '"https", but the fixture does not serve https (add "https": true)');
  const whenState = has(spec, 'whenState') ? check.stringOrList(spec.whenState, fieldPath(at, 'whenState')) : null;
  const auth = has(spec, 'auth') ? parseAuth(spec.auth, fieldPath(at, 'auth'), context) : null;
  const requirement = (key: 'cookie' | 'requireHeaders' | 'requireBody', names: { test: RegExp; what: string }) => {
    if (!has(spec, key)) return {};
    const values = check.expectations(spec[key], fieldPath(at, key), names) ?? {};
    return fillCredentials(values, fieldPath(at, key), context.device, check);
  };
  const cookie = requirement('cookie', COOKIE_NAME);
  const requireHeaders = Object.fromEntries(Object.entries(requirement('requireHeaders', HEADER_NAME)).map(([k, v]) => [k.toLowerCase(), v]));
  const requireBody = requirement('requireBody', ANY_NAME);

  const responseContext = { check, baseDir: context.baseDir, bodyBytes: context.bodyBytes, routeName: name ?? `routes[${index}]` };
  let responses: FixtureRoute['responses'] = [];
  if (has(spec, 'responses')) {
    const inline = RESPONSE_FIELDS.filter((key) => has(spec, key));
    if (inline.length) check.problem(at, `has both "responses" and ${inline.map((k) => `"${k}"`).join(', ')}: put those in each entry of "responses"`);
    if (!Array.isArray(spec.responses) || spec.responses.length === 0) {
      check.problem(fieldPath(at, 'responses'), `must be a non-empty list of responses (got ${describeValue(spec.responses)})`);
    } else {
      spec.responses.forEach((entry, i) => {
        const entryAt = fieldPath(fieldPath(at, 'responses'), i);
        const object = check.object(entry, entryAt);
        if (!object) return;
        check.knownFields(object, entryAt, RESPONSE_ENTRY_FIELDS);
        const response = parseResponse(object, entryAt, responseContext);
        if (response) responses.push(response);
      });
    }
  } else {
    const response = parseResponse(spec, at, responseContext);
    responses = response ? [response] : [];
  }
  if (check.problems.length > before || method === null || !where || name === null) return null;
  return { name, method, path: where.path, query, protocol, whenState, auth, cookie, requireHeaders, requireBody, responses };
}

/** A whenState no route can reach is almost always a typo of a setState. */
function checkStates(routes: FixtureRoute[], initial: string, check: FieldChecker): void {
  const reachable = new Set([initial, ...routes.flatMap((r) => r.responses.map((s) => s.setState).filter((s): s is string => s !== null))]);
  routes.forEach((route, i) => {
    for (const state of route.whenState ?? []) {
      if (!reachable.has(state)) {
        check.problem(`routes[${i}].whenState`, `no route sets the state "${state}" and the fixture starts in "${initial}" (states set: ${[...reachable].map((s) => `"${s}"`).join(', ')})`);
      }
    }
  });
}

/** Answers of all routes: one per route, or the length of its `responses`. */
function countResponses(routes: unknown[]): number {
  let count = 0;
  for (const route of routes) {
    const responses = route !== null && typeof route === 'object' ? (route as Record<string, unknown>).responses : undefined;
    count += Array.isArray(responses) ? Math.max(1, responses.length) : 1;
  }
  return count;
}

// Fixtures this module made: startSimulator takes them as they are, anything else is validated.
const parsed = new WeakSet<Fixture>();

export function isParsedFixture(value: unknown): value is Fixture {
  return typeof value === 'object' && value !== null && parsed.has(value as Fixture);
}

/** Validates a fixture object; throws a FixtureError listing every problem. */
export function parseFixture(value: unknown, options: ParseFixtureOptions = {}): Fixture {
  const file = options.file ? path.resolve(options.file) : null;
  const baseDir = file ? path.dirname(file) : path.resolve(options.baseDir ?? '.');
  const check = new FieldChecker();
  const spec = check.object(value, '(top level)');
  if (!spec) throw new FixtureError(file, check.problems);
  // Prototype keys anywhere (a JSON file can hold "__proto__" as a key; loadFixture refuses it
  // already, an object made in code is checked here): never taken as data.
  const prototypeKey = prototypeKeyPath(value);
  if (prototypeKey !== null) throw new FixtureError(file, [prototypeKeyMessage(prototypeKey)]);

  // The version first: a file of another version may legitimately differ everywhere else.
  if (!has(spec, 'fixture')) {
    throw new FixtureError(file, [`fixture: missing: the file must say which version of the format it uses, as "fixture": ${FIXTURE_VERSION}`]);
  }
  if (spec.fixture !== FIXTURE_VERSION) {
    throw new FixtureError(file, [`fixture: version ${describeValue(spec.fixture)} is not supported: this driverbox reads fixture version ${FIXTURE_VERSION}`]);
  }
  check.knownFields(spec, '', TOP_FIELDS);

  const description = has(spec, 'description') ? check.string(spec.description, 'description') : null;
  const device = parseDevice(spec.device, check);
  const parameters = has(spec, 'parameters') ? (check.object(spec.parameters, 'parameters') ?? {}) : {};
  const initialState = has(spec, 'state') ? (check.string(spec.state, 'state') ?? DEFAULT_STATE) : DEFAULT_STATE;
  let httpPorts = [80];
  if (has(spec, 'http')) {
    const http = check.object(spec.http, 'http');
    if (http) {
      check.knownFields(http, 'http', ['ports']);
      if (has(http, 'ports')) httpPorts = check.ports(http.ports, 'http.ports') ?? httpPorts;
    }
  }
  const https = has(spec, 'https') ? parseHttps(spec.https, check) : null;
  for (const port of https?.ports ?? []) {
    if (httpPorts.includes(port)) check.problem('https.ports', `port ${port} is also an http port (http.ports): a device port speaks one protocol`);
  }

  const ssh = has(spec, 'ssh') ? parseSshSection(spec.ssh, device, [...httpPorts, ...(https?.ports ?? [])], check) : null;
  const snmp = has(spec, 'snmp') ? parseSnmpFixture(spec.snmp, check) : null;
  if (snmp && [...httpPorts, ...(https?.ports ?? [])].includes(snmp.port)) check.problem('snmp.port', `port ${snmp.port} is also an http or https port: a device port speaks one protocol`);
  const telnet = has(spec, 'telnet') ? parseTelnet(spec.telnet, device, check) : null;
  const winrm = has(spec, 'winrm') ? parseWinrm(spec.winrm, device, check) : null;
  // A device that speaks other protocols only may have no HTTP routes.
  const otherProtocols = has(spec, 'ssh') || has(spec, 'snmp') || has(spec, 'telnet') || has(spec, 'winrm');
  const routes: FixtureRoute[] = [];
  if (otherProtocols && (spec.routes === undefined || (Array.isArray(spec.routes) && spec.routes.length === 0))) {
    // no routes: fine
  } else if (!Array.isArray(spec.routes) || spec.routes.length === 0) {
    check.problem('routes', `must be a non-empty list of routes such as { "path": "/status", "json": { … } } (got ${describeValue(spec.routes)})`);
  } else if (spec.routes.length > MAX_FIXTURE_ROUTES) {
    check.problem('routes', `has ${spec.routes.length} routes, more than the limit of ${MAX_FIXTURE_ROUTES}`);
  } else if (countResponses(spec.routes) > MAX_FIXTURE_RESPONSES) {
    check.problem('routes', `have ${countResponses(spec.routes)} responses together, more than the limit of ${MAX_FIXTURE_RESPONSES}`);
  } else {
    const context: RouteContext = { check, baseDir, bodyBytes: { read: 0 }, device, https };
    spec.routes.forEach((entry, i) => {
      const route = parseRoute(entry, i, context);
      if (route) routes.push(route);
    });
    if (check.problems.length === 0) checkStates(routes, initialState, check);
  }
  if (check.problems.length) throw new FixtureError(file, check.problems);
  const fixture: Fixture = {
    version: FIXTURE_VERSION,
    file,
    description,
    device,
    parameters,
    initialState,
    http: { ports: httpPorts },
    https,
    routes,
    ssh,
    snmp,
    telnet,
    winrm,
  };
  parsed.add(fixture);
  return fixture;
}
