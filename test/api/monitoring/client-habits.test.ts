// What third-party clients of the Public API send, played with plain fetch as Python's requests or
// a browser would send it: page sizes past the maximum, Python booleans, zoned times, the OpenAPI
// document fetched without a key, CORS preflights and actual CORS requests, unknown paths
// without a key. Each is accepted as the cloud accepts it, or refused with a specific body.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMonitoringApi, startMonitoringServer } from '../../../host/api/monitoring/server.js';
import { addActivity } from '../../../host/store/fleet/activity-log.js';
import { createAgentRecord, ensureLocalAgent } from '../../../host/store/fleet/agents.js';
import { createDevice, hideDevice } from '../../../host/store/fleet/devices.js';
import { openStore } from '../../../host/store/store.js';
import { setAgentVariable } from '../../../host/store/results/variables.js';
import { openTestStore } from '../../helpers/store.js';

const KEY = 'habits-key-1';
const NODE_RED = 'http://localhost:1880';
const T0 = Date.UTC(2026, 10, 20, 0, 0, 0); // 2026-11-20T00:00:00Z
const HOUR = 3600_000;

const store = await openTestStore({ secretKey: 'habits-secret', clock: () => T0 + 24 * HOUR });
const local = await ensureLocalAgent(store);
for (let i = 0; i < 150; i++) await createAgentRecord(store, { displayName: `site-${i}` });
const enterprise = await createAgentRecord(store, { displayName: 'enterprise', enterprisePlan: true });
await createDevice(store, local.id, { displayName: 'up', ip: '10.0.0.1', status: 'ONLINE' });
const gone = await createDevice(store, local.id, { displayName: 'gone', ip: '10.0.0.2', status: 'DOWN' });
await hideDevice(store, local.id, gone.id);
await setAgentVariable(store, local.id, { path: 'with/history', value: '1', hasHistory: true });
await setAgentVariable(store, local.id, { path: 'no/history', value: '2', hasHistory: false });
// One activity an hour from T0 to T0+5h.
for (let h = 0; h <= 5; h++) await addActivity(store, { agentId: local.id, type: 'custom_driver_execute', user: 'api', description: `at ${h}h`, timestamp: T0 + h * HOUR });

const server = await startMonitoringServer({ store, apiKeys: [KEY], corsOrigins: [NODE_RED, 'https://Dashboard.example.com/'] });
const noCors = await startMonitoringServer({ store, apiKeys: [KEY] });
const anyOrigin = await startMonitoringServer({ store, apiKeys: [KEY], corsOrigins: ['*'] });
afterAll(async () => {
  await Promise.all([server.close(), noCors.close(), anyOrigin.close()]);
  await store.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** A request as a client library makes it: the query string written as given, the key header unless told. */
async function call(pathAndQuery: string, init: { method?: string; key?: string | null; headers?: Record<string, string>; base?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== null) headers['X-Api-Key'] = init.key ?? KEY;
  const res = await fetch(`${init.base ?? server.url}/public-api/v1${pathAndQuery}`, { method: init.method ?? 'GET', headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as unknown) : null };
}

const ids = (answer: Answer) => (answer.body as Array<{ id: number }>).map((a) => a.id);

describe('page sizes past the maximum (clients page with 500 or 5000)', () => {
  it('clamps page_size to the operation maximum instead of refusing it', async () => {
    const big = await call('/agent?page_size=500&page_number=0');
    expect(big.status).toBe(200);
    expect(big.body).toHaveLength(100); // listAgents: at most 100
    expect(ids(big)[0]).toBe(local.id);
    const second = await call('/agent?page_size=500&page_number=1');
    expect(ids(second)).toHaveLength(52); // 152 agents: the second page of 100
    expect(ids(second)[0]).toBe(ids(big)[99]! + 1);
    const variables = await call(`/agent/${local.id}/variable?page_size=100000`);
    expect(variables.status).toBe(200);
    expect(variables.body).toHaveLength(2);
    const applications = await call(`/agent/${enterprise.id}/device/application?page_size=5000`);
    expect(applications).toMatchObject({ status: 200, body: [] });
  });

  it('answers a page past the last with an empty page', async () => {
    expect(await call('/agent?page_size=100&page_number=7')).toMatchObject({ status: 200, body: [] });
    expect(await call('/agent?page_size=500&page_number=2147483647')).toMatchObject({ status: 200, body: [] });
  });

  it('still refuses a page_size under 1, negative or not a number, naming it', async () => {
    for (const bad of ['0', '-5', 'ten', '2.5']) {
      const answer = await call(`/agent?page_size=${bad}`);
      expect(answer.status, bad).toBe(422);
      expect(answer.body, bad).toMatchObject({ code: 'VALIDATION_ERROR', detail: [{ loc: ['query', 'page_size'] }] });
    }
    expect((await call('/agent?page_number=-1')).body).toMatchObject({ status: 422, detail: [{ loc: ['query', 'page_number'] }] });
  });

  it('keeps the maximum in the OpenAPI document', async () => {
    const doc = (await call('/meta/open-api-definition')).body as { paths: Record<string, { get: { parameters: Array<{ name: string; schema: { maximum?: number } }> } }> };
    expect(doc.paths['/agent']!.get.parameters.find((p) => p.name === 'page_size')?.schema.maximum).toBe(100);
  });
});

describe('booleans as Python and other clients write them', () => {
  const devices = async (showHidden: string) => {
    const answer = await call(`/agent/${local.id}/device?show_hidden=${showHidden}`);
    expect(answer.status, showHidden).toBe(200);
    return (answer.body as Array<{ display_name: string }>).map((d) => d.display_name).sort();
  };

  it('accepts True / False, TRUE, 1 / 0, yes / no for show_hidden', async () => {
    for (const yes of ['True', 'true', 'TRUE', '1', 'yes', 'Yes']) expect(await devices(yes), yes).toEqual(['gone', 'up']);
    for (const no of ['False', 'false', 'FALSE', '0', 'no', 'NO']) expect(await devices(no), no).toEqual(['up']);
  });

  it('accepts them for has_history on lists and counts', async () => {
    const paths = (answer: Answer) => (answer.body as Array<{ path: string }>).map((v) => v.path);
    expect(paths(await call(`/agent/${local.id}/variable?has_history=True`))).toEqual(['with/history']);
    expect(paths(await call(`/agent/${local.id}/variable?has_history=0`))).toEqual(['no/history']);
    const count = await call(`/agent/${local.id}/variable?has_history=no`, { method: 'HEAD' });
    expect(count.status).toBe(204);
    expect(count.headers.get('x-entities-count')).toBe('1');
  });

  it('refuses any other form with a 422 naming the parameter and the accepted forms', async () => {
    for (const bad of ['maybe', '', '2', 'on']) {
      const answer = await call(`/agent/${local.id}/device?show_hidden=${bad}`);
      expect(answer.status, bad).toBe(422);
      const body = answer.body as { code: string; detail: Array<{ loc: unknown; msg: string }> };
      expect(body.code).toBe('VALIDATION_ERROR');
      expect(body.detail[0]!.loc).toEqual(['query', 'show_hidden']);
      expect(body.detail[0]!.msg).toContain('true, false, 1, 0, yes, no');
      expect(body.detail[0]!.msg).toContain(`"${bad}"`);
    }
  });
});

describe('times with a zone, an offset or fractions', () => {
  /** The activities of the local agent between from and to, by description. */
  const between = async (from: string, to: string) => {
    const answer = await call(`/agent/${local.id}/activity-log?from=${from}&to=${to}`);
    expect(answer.status, `${from} → ${to}`).toBe(200);
    return (answer.body as Array<{ description: string }>).map((a) => a.description).sort();
  };

  it('reads Z, .000Z, +02:00, +0200, -01:00 and the zone-less form as the same instants', async () => {
    const expected = ['at 1h', 'at 2h', 'at 3h'];
    expect(await between('2026-11-20T01:00:00', '2026-11-20T03:00:00')).toEqual(expected);
    expect(await between('2026-11-20T01:00:00Z', '2026-11-20T03:00:00Z')).toEqual(expected);
    expect(await between('2026-11-20T01:00:00.000Z', '2026-11-20T03:00:00.000000Z')).toEqual(expected);
    expect(await between('2026-11-20T03:00:00%2B02:00', '2026-11-20T05:00:00%2B0200')).toEqual(expected);
    expect(await between('2026-11-20T00:00:00-01:00', '2026-11-20T02:00:00-01')).toEqual(expected);
    // A + left unescaped in the URL arrives as a space: still the offset it was meant to be.
    expect(await between('2026-11-20T03:00:00+02:00', '2026-11-20T05:00:00+02:00')).toEqual(expected);
  });

  it('keeps the milliseconds of a fraction', async () => {
    // 01:00:00.001 is after the activity at 01:00:00.
    expect(await between('2026-11-20T01:00:00.001Z', '2026-11-20T02:00:00Z')).toEqual(['at 2h']);
  });

  it('refuses what is not a date-time with the 422 listing the accepted forms', async () => {
    for (const bad of ['2026-11-20', '2026-13-01T00:00:00Z', '2026-11-20T00:00:00%2B25:00', '2026-11-20T24:00:00Z', 'yesterday']) {
      const answer = await call(`/agent/${local.id}/activity-log?from=${bad}`);
      expect(answer.status, bad).toBe(422);
      const body = answer.body as { detail: Array<{ loc: unknown; msg: string; type: string }> };
      expect(body.detail[0]).toMatchObject({ loc: ['query', 'from'], type: 'value_error.datetime' });
      expect(body.detail[0]!.msg).toContain('yyyy-mm-ddThh:mm:ss');
      expect(body.detail[0]!.msg).toContain('+hh:mm');
    }
  });
});

describe('the OpenAPI document without a key', () => {
  it('serves it to anyone: it holds no data', async () => {
    const answer = await call('/meta/open-api-definition', { key: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ openapi: '3.0.3', paths: expect.objectContaining({ '/agent': expect.anything() }) });
    expect((await call('/meta/open-api-definition', { key: 'a-wrong-key' })).status).toBe(200);
    // The document says so: this operation alone needs no key and answers no 401.
    type Op = { security?: unknown[]; responses: Record<string, unknown> };
    const paths = (answer.body as { paths: Record<string, Record<string, Op>> }).paths;
    const meta = paths['/meta/open-api-definition']!.get!;
    expect(meta.security).toEqual([]);
    expect(meta.responses['401']).toBeUndefined();
    const others = Object.entries(paths).flatMap(([path, item]) => Object.values(item).map((op) => [path, op] as const)).filter(([path]) => path !== '/meta/open-api-definition');
    expect(others.length).toBeGreaterThan(100);
    for (const [, op] of others) {
      expect(op.security).toBeUndefined(); // the document's global ApiKeyAuth
      expect(op.responses['401']).toBeDefined();
    }
  });

  it('still asks a key of every operation that holds data', async () => {
    expect(await call('/agent', { key: null })).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', message: 'missing X-Api-Key header' } });
    expect(await call(`/agent/${local.id}/device`, { key: 'a-wrong-key' })).toMatchObject({ status: 401, body: { message: 'invalid API key' } });
  });
});

describe('unknown paths', () => {
  it('answer 401 without a valid key, so they tell nothing of which operations exist', async () => {
    expect(await call('/no/such/operation', { key: null })).toMatchObject({ status: 401, body: { status: 401, code: 'UNAUTHORIZED' } });
    expect(await call('/agent/1/nothing-here', { key: 'a-wrong-key', method: 'DELETE' })).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
  });

  it('answer the 404 with a key', async () => {
    expect(await call('/no/such/operation?x=1')).toMatchObject({
      status: 404,
      body: { status: 404, code: 'NO_SUCH_OPERATION', message: 'no operation at GET /public-api/v1/no/such/operation' },
    });
  });
});

describe('CORS for browser clients', () => {
  const preflight = (origin: string, base = server.url, path = '/agent') =>
    call(path, { method: 'OPTIONS', key: null, base, headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key, x-requested-with' } });

  it('answers a preflight from an allowed origin without a key: 204, methods and headers including X-Api-Key', async () => {
    const answer = await preflight(NODE_RED);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(NODE_RED);
    expect(answer.headers.get('access-control-allow-methods')).toMatch(/GET.*HEAD.*POST.*PUT.*DELETE/);
    const allowed = answer.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['x-api-key', 'content-type', 'x-requested-with']));
    expect(answer.headers.get('vary')).toContain('Origin');
    // Any path under the API, an unknown one too: the browser asks before it knows.
    expect((await preflight(NODE_RED, server.url, '/meta/open-api-definition')).status).toBe(204);
    // An origin as configured with another case and a trailing slash matches what the browser sends.
    expect((await preflight('https://dashboard.example.com')).headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
  });

  it('refuses a preflight from another origin with a 403 naming it', async () => {
    const answer = await preflight('http://evil.example');
    expect(answer).toMatchObject({ status: 403, body: { code: 'CORS_ORIGIN_NOT_ALLOWED' } });
    expect((answer.body as { message: string }).message).toContain('http://evil.example');
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('marks actual answers for an allowed origin, count headers exposed, errors included', async () => {
    const list = await call('/agent', { headers: { Origin: NODE_RED } });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBe(NODE_RED);
    expect(list.headers.get('vary')).toContain('Origin');
    const count = await call('/agent', { method: 'HEAD', headers: { Origin: NODE_RED } });
    expect(count.headers.get('access-control-expose-headers')).toContain('X-Entities-Count');
    const doc = await call('/meta/open-api-definition', { key: null, headers: { Origin: NODE_RED } });
    expect(doc.status).toBe(200);
    expect(doc.headers.get('access-control-allow-origin')).toBe(NODE_RED);
    const denied = await call('/agent', { key: null, headers: { Origin: NODE_RED } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(NODE_RED); // the page can read why
    const other = await call('/agent', { headers: { Origin: 'http://evil.example' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('with "*" allows any origin', async () => {
    const answer = await preflight('http://anything.example', anyOrigin.url);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect((await call('/agent', { base: anyOrigin.url, headers: { Origin: 'http://x.example' } })).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('is off by default: no CORS headers, and a preflight is a request without a key', async () => {
    const answer = await preflight(NODE_RED, noCors.url);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    const list = await call('/agent', { base: noCors.url, headers: { Origin: NODE_RED } });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses an origin option that is not an origin', async () => {
    await expect(createMonitoringApi({ store, apiKeys: [KEY], corsOrigins: ['localhost:1880'] })).rejects.toThrow(/"localhost:1880" is not an origin/);
    await expect(createMonitoringApi({ store, apiKeys: [KEY], corsOrigins: ['http://a.example/path'] })).rejects.toThrow(/scheme:\/\/host\[:port\]/);
  });
});

describe('the store file', () => {
  it('is made 0600, with its WAL companions', async () => {
    if (process.platform === 'win32') return;
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-habits-'));
    const file = path.join(dir, 'new.db');
    const fresh = await openStore({ path: file, secretKey: 'habits-secret' });
    await ensureLocalAgent(fresh); // a write, so the WAL file exists
    try {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      await fresh.close();
    }
  });
});
