// /metrics and /backend-api/v1/status over a real Fastify server on loopback: every metric
// moves as events are recorded, the status record per query flag, failing probes, 422s, auth.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentRoutes, METRICS_PATH, STATUS_PATH, type AgentRoutesOptions } from '../../host/api/driverbox/agent-routes.js';
import { createAgentMetrics, type AgentMetrics } from '../../host/agent/metrics.js';
import { createStatusSource, type HealthProbe } from '../../host/api/driverbox/status.js';
import { installErrorHandling } from '../../host/api/monitoring/error-handler.js';
import { openStore, type Store } from '../../host/store/index.js';
import { openTestStore } from '../helpers/store.js';

const KEY = 'obs-key';

/** name{labels} → value, from the Prometheus text exposition; labels sorted so keys are stable. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels = match[2] ? match[2].split(/,(?=[a-zA-Z_]+=")/).sort().join(',') : '';
    samples.set(labels ? `${match[1]}{${labels}}` : match[1]!, Number(match[3]));
  }
  return samples;
}

async function serve(options: AgentRoutesOptions): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  await app.register(agentRoutes, options);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function scrape(url: string): Promise<Map<string, number>> {
  const response = await fetch(`${url}${METRICS_PATH}`);
  expect(response.status).toBe(200);
  return parseExposition(await response.text());
}

// Real parts for the probes: an SQLite store and an HTTP server on loopback.
let store: Store;
let upstream: http.Server;
let upstreamUrl: string;
const scheduler = { running: true };
const sandbox = { failure: null as string | null };

const probes = (httpUrl: () => string): Record<'sandbox' | 'store' | 'scheduler' | 'http', HealthProbe> => ({
  sandbox: () => {
    if (sandbox.failure) throw new Error(sandbox.failure);
  },
  store: async () => {
    await store.statement('SELECT 1').get();
  },
  scheduler: () => {
    if (!scheduler.running) throw new Error('scheduler stopped');
  },
  http: async () => {
    const response = await fetch(httpUrl());
    if (!response.ok) throw new Error(`upstream answered ${response.status}`);
  },
});

beforeAll(async () => {
  store = await openTestStore({ secretKey: 'k' });
  upstream = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await store.close();
  await new Promise((resolve) => upstream.close(resolve));
});

describe('GET /metrics', () => {
  let metrics: AgentMetrics;
  let url: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    metrics = createAgentMetrics();
    const status = createStatusSource({ probes: probes(() => upstreamUrl) });
    ({ app, url } = await serve({ metrics, status, apiKeys: [KEY] }));
  });
  afterAll(() => app.close());

  it('answers without a key by default, in the Prometheus text content type, with process metrics', async () => {
    const response = await fetch(`${url}${METRICS_PATH}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = parseExposition(await response.text());
    expect(samples.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.get('driverbox_runs_in_flight')).toBe(0);
    expect(samples.get('driverbox_runs_skipped_total')).toBe(0);
  });

  it('counts runs by action and outcome, failures by errorType, timeouts and the duration histogram', async () => {
    metrics.recordRunStarted();
    metrics.recordRunStarted();
    expect((await scrape(url)).get('driverbox_runs_in_flight')).toBe(2);
    metrics.recordRunFinished({ action: 'get_status', outcome: 'success', errorType: null, durationMs: 40, limitExceeded: null });
    metrics.recordRunFinished({ action: 'get_status', outcome: 'failure', errorType: 'TIMEOUT', durationMs: 30_000, limitExceeded: 'timeout' });
    metrics.recordRunStarted();
    metrics.recordRunFinished({ action: 'reboot', outcome: 'failure', errorType: null, durationMs: 5, limitExceeded: 'memory' });
    const s = await scrape(url);
    expect(s.get('driverbox_runs_in_flight')).toBe(0);
    expect(s.get('driverbox_runs_total{action="get_status",outcome="success"}')).toBe(1);
    expect(s.get('driverbox_runs_total{action="get_status",outcome="failure"}')).toBe(1);
    expect(s.get('driverbox_runs_total{action="reboot",outcome="failure"}')).toBe(1);
    expect(s.get('driverbox_run_failures_total{error_type="TIMEOUT"}')).toBe(1);
    expect(s.get('driverbox_run_failures_total{error_type="unknown"}')).toBe(1);
    expect(s.get('driverbox_run_timeouts_total')).toBe(1);
    expect(s.get('driverbox_run_duration_seconds_count{action="get_status"}')).toBe(2);
    expect(s.get('driverbox_run_duration_seconds_sum{action="get_status"}')).toBeCloseTo(30.04, 6);
    // 40 ms falls in le=0.05, not le=0.025; 30 s in le=30, not le=20.
    expect(s.get('driverbox_run_duration_seconds_bucket{action="get_status",le="0.025"}')).toBe(0);
    expect(s.get('driverbox_run_duration_seconds_bucket{action="get_status",le="0.05"}')).toBe(1);
    expect(s.get('driverbox_run_duration_seconds_bucket{action="get_status",le="20"}')).toBe(1);
    expect(s.get('driverbox_run_duration_seconds_bucket{action="get_status",le="30"}')).toBe(2);
    expect(s.get('driverbox_run_duration_seconds_bucket{action="get_status",le="+Inf"}')).toBe(2);
    expect(s.get('driverbox_run_duration_seconds_bucket{action="reboot",le="0.01"}')).toBe(1);
  });

  it('counts skipped runs and restarts and shows the pool size', async () => {
    metrics.recordSkipped();
    metrics.recordSkipped();
    metrics.recordRestart();
    metrics.setPoolSize(4);
    let s = await scrape(url);
    expect(s.get('driverbox_runs_skipped_total')).toBe(2);
    expect(s.get('driverbox_sandbox_restarts_total')).toBe(1);
    expect(s.get('driverbox_isolate_pool_size')).toBe(4);
    metrics.setPoolSize(0);
    s = await scrape(url);
    expect(s.get('driverbox_isolate_pool_size')).toBe(0);
  });

  it('reads the sandbox process\'s resident memory at each scrape, and leaves it out while there is none', async () => {
    const sampled = (s: Map<string, number>) => [...s.keys()].filter((k) => k.startsWith('driverbox_sandbox_resident_memory_bytes'));
    expect(sampled(await scrape(url))).toEqual([]);
    let child: { pid: number; bytes: number } | null = { pid: 4242, bytes: 64 * 1024 * 1024 };
    metrics.observeSandboxMemory(() => child);
    expect((await scrape(url)).get('driverbox_sandbox_resident_memory_bytes{pid="4242"}')).toBe(64 * 1024 * 1024);
    child = { pid: 4343, bytes: 80 * 1024 * 1024 }; // restarted: the old pid's sample is gone
    const s = await scrape(url);
    expect(sampled(s)).toEqual(['driverbox_sandbox_resident_memory_bytes{pid="4343"}']);
    expect(s.get('driverbox_sandbox_resident_memory_bytes{pid="4343"}')).toBe(80 * 1024 * 1024);
    child = null; // restarting
    expect(sampled(await scrape(url))).toEqual([]);
  });

  it('refuses nonsense values with the field named', () => {
    expect(() => metrics.setPoolSize(-1)).toThrow(/setPoolSize: size must be an integer >= 0, got -1/);
    expect(() =>
      metrics.recordRunFinished({ action: 'a', outcome: 'success', errorType: null, durationMs: Number.NaN, limitExceeded: null }),
    ).toThrow(/durationMs must be a finite number/);
  });

  it('keeps each agent\'s registry apart', async () => {
    const other = createAgentMetrics({ defaultMetrics: false, defaultLabels: { agent: 'b' } });
    other.recordSkipped();
    const text = await other.render();
    const s = parseExposition(text);
    expect(s.get('driverbox_runs_skipped_total{agent="b"}')).toBe(1);
    expect(s.has('process_resident_memory_bytes')).toBe(false);
    expect((await scrape(url)).get('driverbox_runs_skipped_total')).toBe(2);
  });
});

describe('GET /backend-api/v1/status', () => {
  let url: string;
  let app: FastifyInstance;
  let port: number;
  beforeAll(async () => {
    const status = createStatusSource({
      probes: probes(() => upstreamUrl),
      backendServices: { upstream: probes(() => upstreamUrl).http },
      environment: 'test',
      region: 'eu-1',
      isDocker: false,
    });
    ({ app, url } = await serve({ metrics: createAgentMetrics({ defaultMetrics: false }), status, apiKeys: [KEY] }));
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  const get = (query = '', key: string | null = KEY) =>
    fetch(`${url}${STATUS_PATH}${query}`, { headers: key ? { 'X-API-Key': key } : {} });

  it('with no flags: the required fields, no probes run, no dependencies', async () => {
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(
      ['backend_services', 'listening_port', 'modules', 'package', 'python_dependencies', 'runtime', 'status', 'time'].sort(),
    );
    expect(body).toMatchObject({
      package: 'driverbox',
      listening_port: port,
      status: 'ok',
      modules: {},
      backend_services: {},
      python_dependencies: null,
      runtime: { python_version: process.versions.node, environment: 'test', is_docker: false, region: 'eu-1' },
    });
    expect(Math.abs(Date.parse(body.time) - Date.now())).toBeLessThan(60_000);
  });

  it('check_modules=true probes sandbox, store, scheduler and http', async () => {
    const body = await (await get('?check_modules=true')).json();
    expect(body.modules).toEqual({
      sandbox: { status: 'ok', error: null },
      store: { status: 'ok', error: null },
      scheduler: { status: 'ok', error: null },
      http: { status: 'ok', error: null },
    });
    expect(body.backend_services).toEqual({});
    expect(body.python_dependencies).toBeNull();
  });

  it('check_backend_services=1 probes the backend services only', async () => {
    const body = await (await get('?check_backend_services=1')).json();
    expect(body.modules).toEqual({});
    expect(body.backend_services).toEqual({ upstream: { status: 'ok', error: null } });
  });

  it('get_dependencies=true lists the runtime dependencies with installed versions', async () => {
    const body = await (await get('?get_dependencies=true&check_modules=false')).json();
    expect(body.modules).toEqual({});
    const names = body.python_dependencies.map((d: { name: string }) => d.name);
    expect(names).toContain('prom-client');
    expect(names).toContain('fastify');
    const prom = body.python_dependencies.find((d: { name: string }) => d.name === 'prom-client');
    expect(prom.version).toMatch(/^15\./);
  });

  it('all flags at once', async () => {
    const body = await (await get('?check_modules=yes&check_backend_services=on&get_dependencies=TRUE')).json();
    expect(Object.keys(body.modules)).toHaveLength(4);
    expect(body.backend_services.upstream.status).toBe('ok');
    expect(Array.isArray(body.python_dependencies)).toBe(true);
    expect(body.status).toBe('ok');
  });

  it('a failing module is fail with its error text, the others stay ok, and the status is degraded', async () => {
    sandbox.failure = 'sandbox child process is not running';
    scheduler.running = false;
    try {
      const response = await get('?check_modules=true');
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.status).toBe('degraded');
      expect(body.modules.sandbox).toEqual({ status: 'fail', error: 'sandbox child process is not running' });
      expect(body.modules.scheduler).toEqual({ status: 'fail', error: 'scheduler stopped' });
      expect(body.modules.store).toEqual({ status: 'ok', error: null });
      expect(body.modules.http).toEqual({ status: 'ok', error: null });
    } finally {
      sandbox.failure = null;
      scheduler.running = true;
    }
    expect((await (await get('?check_modules=true')).json()).status).toBe('ok');
  });

  it('a store that is closed and an upstream that refuses connections fail', async () => {
    const closedStore = await openTestStore({ secretKey: 'k' });
    await closedStore.close();
    const refused = http.createServer();
    await new Promise<void>((resolve) => refused.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(refused.address() as AddressInfo).port}/`;
    await new Promise((resolve) => refused.close(resolve));
    const source = createStatusSource({
      probes: { ...probes(() => deadUrl), store: async () => void await closedStore.statement('SELECT 1').get() },
    });
    const body = await source.read({ check_modules: true, check_backend_services: false, get_dependencies: false }, 1);
    expect(body.modules.store.status).toBe('fail');
    expect(body.modules.store.error).toMatch(/not open/);
    expect(body.modules.http.status).toBe('fail');
    expect(body.modules.http.error).toMatch(/fetch failed/);
  });

  it('a probe that never answers fails after the probe timeout', async () => {
    const source = createStatusSource({
      probes: { ...probes(() => upstreamUrl), scheduler: () => new Promise<void>(() => {}) },
      probeTimeoutMs: 50,
    });
    const body = await source.read({ check_modules: true, check_backend_services: false, get_dependencies: false }, 1);
    expect(body.modules.scheduler).toEqual({ status: 'fail', error: 'no answer within 50 ms' });
    expect(body.modules.sandbox.status).toBe('ok');
  });

  it('422 with the validation error body for bad flags, each one located', async () => {
    const response = await get('?check_modules=maybe&get_dependencies=&check_backend_services=true');
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      detail: [
        { loc: ['query', 'check_modules'], msg: 'must be a boolean (true or false), got "maybe"', type: 'bool_parsing' },
        { loc: ['query', 'get_dependencies'], msg: 'must be a boolean (true or false), got ""', type: 'bool_parsing' },
      ],
    });
  });

  it('422 for a flag given twice', async () => {
    const response = await get('?check_modules=true&check_modules=false');
    expect(response.status).toBe(422);
    expect((await response.json()).detail).toEqual([{ loc: ['query', 'check_modules'], msg: 'must be given once', type: 'bool_type' }]);
  });

  it('needs the API key by default: 401 without one or with a wrong one', async () => {
    const missing = await get('', null);
    expect(missing.status).toBe(401);
    expect((await missing.json()).message).toBe('missing X-Api-Key header');
    const wrong = await get('', 'nope');
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).message).toBe('invalid API key');
  });
});

describe('API key options', () => {
  it('can put /metrics behind the key and open the status', async () => {
    const { app, url } = await serve({
      metrics: createAgentMetrics({ defaultMetrics: false }),
      status: createStatusSource({ probes: probes(() => upstreamUrl) }),
      apiKeys: [KEY],
      requireApiKey: { metrics: true, status: false },
    });
    try {
      expect((await fetch(`${url}${METRICS_PATH}`)).status).toBe(401);
      expect((await fetch(`${url}${METRICS_PATH}`, { headers: { 'x-api-key': KEY } })).status).toBe(200);
      expect((await fetch(`${url}${STATUS_PATH}`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('without keys no route asks for one', async () => {
    const { app, url } = await serve({
      metrics: createAgentMetrics({ defaultMetrics: false }),
      status: createStatusSource({ probes: probes(() => upstreamUrl) }),
    });
    try {
      expect((await fetch(`${url}${STATUS_PATH}`)).status).toBe(200);
      expect((await fetch(`${url}${METRICS_PATH}`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('refuses a probe set that misses a module, naming it', () => {
    const partial = { ...probes(() => upstreamUrl) } as Partial<ReturnType<typeof probes>>;
    delete partial.scheduler;
    expect(() => createStatusSource({ probes: partial as ReturnType<typeof probes> })).toThrow('status: probes.scheduler must be a function');
  });

  it('keeps its own error body when mounted on an app with the Monitoring API error handling', async () => {
    const app = Fastify();
    installErrorHandling(app);
    await app.register(agentRoutes, {
      metrics: createAgentMetrics({ defaultMetrics: false }),
      status: createStatusSource({ probes: probes(() => upstreamUrl) }),
    });
    try {
      const bad = await app.inject({ method: 'GET', url: `${STATUS_PATH}?check_modules=2` });
      expect(bad.statusCode).toBe(422);
      expect(bad.json()).toEqual({ detail: [{ loc: ['query', 'check_modules'], msg: 'must be a boolean (true or false), got "2"', type: 'bool_parsing' }] });
      const elsewhere = await app.inject({ method: 'GET', url: '/nothing-here' });
      expect(elsewhere.statusCode).toBe(404);
      expect(elsewhere.json().code).toBe('NO_SUCH_OPERATION');
    } finally {
      await app.close();
    }
  });
});
