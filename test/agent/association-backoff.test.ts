// Issue 34, cause 6: the per-association backoff after repeated limit hits. The rule (counts,
// spacing, restoration), the scheduler's hold, and the agent end to end: a driver that keeps
// spinning to its deadline is spaced out, shown DISABLED ("disabled due to failure") in the
// Monitoring API, kept in the store across a restart, and restored by a success or an operator.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../host/agent/agent.js';
import type { AgentBackoffEvent, AgentRunFinished, AgentRunSkipped } from '../../host/agent/agent-types.js';
import { createAgent, type AgentOptions } from '../../host/server/agent-server.js';
import { backoffDelayMs, backoffVerdict, nextBackoff, type BackoffState } from '../../host/agent/association-backoff.js';
import { createScheduler } from '../../host/agent/scheduler/scheduler.js';
import type { SchedulerClock } from '../../host/agent/scheduler/clock.js';
import type { RunSkippedEvent } from '../../host/agent/scheduler/types.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { listAssociationBackoffs, readAssociationBackoff, saveAssociationBackoff } from '../../host/store/drivers/association-backoff.js';
import type { Store } from '../../host/store/index.js';
import { openTestStore } from '../helpers/store.js';
import { MODE_DRIVER } from '../helpers/agent-drivers.js';

const API_KEY = 'backoff-test-key';

const result = (status: 'success' | 'failure', limitExceeded: RunResult['limitExceeded'] = null): RunResult => ({
  status,
  errorType: status === 'success' ? null : 'TIMEOUT_ERROR',
  message: null,
  variables: [],
  tables: [],
  logs: [],
  warnings: [],
  http: [],
  action: 'get_status',
  limitExceeded,
  durationMs: 1,
} as unknown as RunResult);

describe('the backoff rule', () => {
  const rule = { threshold: 3, maxMs: 10 * 60_000 };
  const period = 60_000;

  it('counts a run that hit any limit, is restored by a success, and ignores other failures', () => {
    expect(backoffVerdict([result('failure', 'timeout')])).toEqual({ kind: 'limit', limit: 'timeout' });
    expect(backoffVerdict([result('success'), result('failure', 'memory')])).toEqual({ kind: 'limit', limit: 'memory' });
    expect(backoffVerdict([result('failure'), result('success')])).toEqual({ kind: 'success' });
    expect(backoffVerdict([result('failure')])).toEqual({ kind: 'neutral' });
  });

  it('spaces runs out only from the threshold on: 2, 4, 8 periods, capped', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((hits) => backoffDelayMs(hits, period, rule))).toEqual([0, 0, 2 * period, 4 * period, 8 * period, 10 * period, 10 * period]);
    // A cap below the period never holds a job back less than one period.
    expect(backoffDelayMs(3, period, { threshold: 3, maxMs: 1000 })).toBe(period);
    expect(backoffDelayMs(1e9, period, rule)).toBe(10 * period);
  });

  it('walks the state: hits, then a backoff from the run end, restored by a success', () => {
    let state: BackoffState | null = null;
    const hit = { kind: 'limit', limit: 'cpu' } as const;
    state = nextBackoff(state, hit, period, 1000, rule);
    expect(state).toEqual({ hits: 1, lastLimit: 'cpu', backoffUntil: null });
    state = nextBackoff(state, hit, period, 2000, rule);
    state = nextBackoff(state, { kind: 'neutral' }, period, 2500, rule);
    expect(state).toEqual({ hits: 2, lastLimit: 'cpu', backoffUntil: null });
    state = nextBackoff(state, { kind: 'limit', limit: 'timeout' }, period, 3000, rule);
    expect(state).toEqual({ hits: 3, lastLimit: 'timeout', backoffUntil: 3000 + 2 * period });
    expect(nextBackoff(state, { kind: 'success' }, period, 4000, rule)).toBeNull();
  });
});

describe('the scheduler holds a job', () => {
  it('skips its due times before the hold with reason backoff, keeps its grid, and runs again after', async () => {
    let now = 0;
    const timers = new Map<number, { at: number; fn: () => void }>();
    let ids = 0;
    const clock: SchedulerClock = {
      now: () => now,
      setTimeout: (fn, ms) => {
        const id = ++ids;
        timers.set(id, { at: now + ms, fn });
        return id as unknown as ReturnType<SchedulerClock['setTimeout']>;
      },
      clearTimeout: (handle) => void timers.delete(handle as unknown as number),
    };
    const advance = async (to: number) => {
      for (;;) {
        const next = [...timers.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
        if (!next) break;
        timers.delete(next[0]);
        now = next[1].at;
        next[1].fn();
        await Promise.resolve();
      }
      now = to;
    };
    const scheduler = createScheduler({ clock, jitterMs: 0 });
    const starts: number[] = [];
    const skipped: RunSkippedEvent[] = [];
    scheduler.on('runSkipped', (e) => skipped.push(e));
    scheduler.add({ key: 'a', deviceKey: 'd', periodMs: 1000, run: async () => void starts.push(now) });
    await advance(500);
    expect(starts).toEqual([0]);
    expect(scheduler.hold('a', 3500)).toBe(true);
    expect(scheduler.jobStats('a')!.heldUntil).toBe(3500);
    await advance(5500);
    expect(starts).toEqual([0, 4000, 5000]);
    expect(skipped.map((e) => [e.dueAt, e.reason])).toEqual([[1000, 'backoff'], [2000, 'backoff'], [3000, 'backoff']]);
    scheduler.hold('a', 9000);
    await advance(6500);
    scheduler.hold('a', 0); // lifted (an operator, or a success)
    await advance(7500);
    expect(starts).toEqual([0, 4000, 5000, 7000]);
    expect(scheduler.hold('unknown', 1)).toBe(false);
    await scheduler.stop();
  });
});

/** A device whose /mode answer the test sets: 'spin' makes MODE_DRIVER loop to its deadline. */
async function startModeDevice(): Promise<{ port: number; mode: string; close(): Promise<void> }> {
  const device = { port: 0, mode: 'spin', close: async () => {} };
  const server: Server = createServer((request, response) => response.end(request.url === '/mode' ? device.mode : 'ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  device.port = (server.address() as AddressInfo).port;
  device.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return device;
}

const HEALTHY_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/status' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success([D.createVariable('reply', 'Reply', body)]);
  });
}`;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Watched {
  agent: Agent;
  finished: AgentRunFinished[];
  skipped: AgentRunSkipped[];
  backoffs: AgentBackoffEvent[];
  errors: Error[];
}

async function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'driverbox-backoff-'));
  writeFileSync(join(dir, 'mode.js'), MODE_DRIVER);
  writeFileSync(join(dir, 'healthy.js'), HEALTHY_DRIVER);
  const device = await startModeDevice();
  const store = await openTestStore({ secretKey: 'backoff-test-secret' });
  cleanups.push(() => device.close(), async () => await store.close());
  const inventory = join(dir, 'inventory.yaml');
  writeFileSync(
    inventory,
    [
      'version: 1',
      'devices:',
      `  - { name: spinner, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`,
      `  - { name: healthy, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`,
      'drivers:',
      '  - { name: mode, path: mode.js, samplePeriod: 1 }',
      '  - { name: ok, path: healthy.js, samplePeriod: 1 }',
      'associations:',
      '  - { driver: mode, device: spinner }',
      '  - { driver: ok, device: healthy }',
      '',
    ].join('\n'),
  );
  return { device, store, inventory };
}

async function startAgent(store: Store, inventory: string, options: Partial<AgentOptions>): Promise<Watched> {
  const agent = createAgent({ store, inventory, scheduler: { jitterMs: 100 }, storeRefreshMs: 0, ...options });
  const watched: Watched = { agent, finished: [], skipped: [], backoffs: [], errors: [] };
  agent.on('runFinished', (run) => watched.finished.push(run));
  agent.on('runSkipped', (event) => watched.skipped.push(event));
  agent.on('backoff', (event) => watched.backoffs.push(event));
  agent.on('error', (error) => watched.errors.push(error));
  cleanups.push(async () => void (await agent.stop({ graceMs: 0 })));
  await agent.start();
  return watched;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const statusOf = async (client: MonitoringClient, agentId: number, associationId: number) =>
  (await client.listCustomDriverAssociations(agentId)).find((a) => a.id === associationId)?.status;

describe('the agent backs off an association that keeps hitting its limits', () => {
  it('spaces its runs out and shows it DISABLED after N hits; a success restores it', async () => {
    const f = await fixture();
    const w = await startAgent(f.store, f.inventory, { limits: { timeoutMs: 300 }, backoff: { threshold: 2, maxMs: 60_000 }, api: { apiKeys: [API_KEY] } });
    const client = new MonitoringClient({ baseUrl: w.agent.url!, apiKey: API_KEY });
    await until('the spinner to back off', () => w.backoffs.length >= 1);
    const first = w.backoffs[0]!;
    const id = first.associationId;
    expect(first).toMatchObject({ name: 'mode@spinner', hits: 2, limit: 'timeout', restoredBy: null });
    // Two periods of 1 s from the run's end.
    expect(first.backoffMs).toBeGreaterThan(0);
    expect(first.backoffMs).toBeLessThanOrEqual(2000);
    const spinnerRuns = () => w.finished.filter((r) => r.associationId === id);
    expect(spinnerRuns().map((r) => r.result.limitExceeded)).toEqual(['timeout', 'timeout']);
    expect(await readAssociationBackoff(f.store, id)).toMatchObject({ hits: 2, lastLimit: 'timeout', backoffUntil: first.until });
    expect(await statusOf(client, w.agent.agentId!, id)).toBe('DISABLED');
    // Its due times within the backoff are skipped, not run.
    await until('a due time skipped for the backoff', () => w.skipped.some((s) => s.associationId === id && s.reason === 'backoff'));
    expect(spinnerRuns().length).toBe(2);
    // The next run after the backoff still spins: 3 hits, twice as long.
    await until('the third hit', () => w.backoffs.length >= 2);
    expect(w.backoffs[1]).toMatchObject({ hits: 3, limit: 'timeout', restoredBy: null });
    expect(w.backoffs[1]!.backoffMs).toBeGreaterThan(2000);
    expect(w.backoffs[1]!.backoffMs).toBeLessThanOrEqual(4000);
    // The device is fine again: the next run succeeds and restores it.
    f.device.mode = 'ok';
    await until('the association restored', () => w.backoffs.length >= 3, 30_000);
    expect(w.backoffs[2]).toMatchObject({ associationId: id, hits: 0, limit: null, restoredBy: 'success' });
    expect(await readAssociationBackoff(f.store, id)).toBeNull();
    expect(await statusOf(client, w.agent.agentId!, id)).toBe('ENABLED');
    expect(w.errors).toEqual([]);
  }, 60_000);

  it('keeps it across a restart (from the store), and an operator re-enables it through the API', async () => {
    const f = await fixture();
    const first = await startAgent(f.store, f.inventory, { limits: { timeoutMs: 300 }, backoff: { threshold: 2 } });
    await until('the spinner to back off', () => first.backoffs.length >= 1);
    const id = first.backoffs[0]!.associationId;
    await first.agent.stop({ graceMs: 0 });
    // As if the backoff had grown long before the restart: an hour ahead.
    await saveAssociationBackoff(f.store, id, { hits: 9, lastLimit: 'timeout', backoffUntil: Date.now() + 3_600_000 });
    // The second agent never runs the spinner (its backoff comes from the store): a deadline the
    // healthy run after the re-enable meets on a loaded machine too (300 ms did not, once in 10 hunts).
    const second = await startAgent(f.store, f.inventory, { limits: { timeoutMs: 3000 }, backoff: { threshold: 2 }, api: { apiKeys: [API_KEY] } });
    const client = new MonitoringClient({ baseUrl: second.agent.url!, apiKey: API_KEY });
    await until('three due times skipped for the backoff', () => second.skipped.filter((s) => s.associationId === id && s.reason === 'backoff').length >= 3);
    expect(second.finished.filter((r) => r.associationId === id)).toEqual([]);
    expect(await statusOf(client, second.agent.agentId!, id)).toBe('DISABLED');
    f.device.mode = 'ok';
    await client.reEnableCustomDriverAssociations();
    await second.agent.refresh(); // what the API's change hook does
    expect(await listAssociationBackoffs(f.store, second.agent.agentId!)).toEqual(new Map());
    expect(await statusOf(client, second.agent.agentId!, id)).toBe('ENABLED');
    await until('a run after the re-enable', () => second.finished.some((r) => r.associationId === id));
    expect(second.finished.find((r) => r.associationId === id)!.result.status).toBe('success');
    expect(second.backoffs).toContainEqual(expect.objectContaining({ associationId: id, restoredBy: 'operator' }));
  }, 60_000);
});

describe('a healthy association next to a spinning driver', () => {
  it('gets every due run: none is skipped behind the spinner (2 sandbox threads at least)', async () => {
    const f = await fixture();
    // No backoff: the spinner runs every time it may, holding a thread 2.5 s of each 3 s.
    const w = await startAgent(f.store, f.inventory, { limits: { timeoutMs: 2500, cpuTimeMs: 2500 }, backoff: { threshold: 0 } });
    const healthy = () => w.finished.filter((r) => r.name === 'ok@healthy');
    await until('the spinner to have run 3 times', () => w.finished.filter((r) => r.name === 'mode@spinner').length >= 3);
    expect(w.backoffs).toEqual([]);
    // Behind the spinner, a healthy run due in its call would end only with it, after the
    // healthy association's next due time (1 s later), which would be skipped: none is.
    expect(w.skipped.filter((s) => s.name === 'ok@healthy')).toEqual([]);
    expect(healthy().length).toBeGreaterThanOrEqual(6);
    expect(healthy().every((r) => r.result.status === 'success')).toBe(true);
  }, 60_000);
});
