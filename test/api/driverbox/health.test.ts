// The associations' health on the extension API (GET /driverbox-api/v1/agent/{id}/health and
// /device/{id}/health) from a real agent: its scheduler and sandbox process run a login driver
// every second against a device on loopback that checks basic auth. One device has the wrong
// password (AUTHENTICATION_ERROR every run); another is refused until its device is "fixed"
// (the server starts accepting its password), then recovers. While the agent runs: the streak
// grows and keeps its start; after it stops (nothing writes any more), every figure is checked
// exactly against the run records the same transactions wrote, and the Public API's
// last_inspection_time against the health's last run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { Agent } from '../../../host/agent/agent.js';
import type { AgentRunFinished } from '../../../host/agent/agent-types.js';
import { createAgent } from '../../../host/server/agent-server.js';
import { driverboxApiRoutes, type HealthAnswer, type HealthEntry } from '../../../host/api/driverbox/runs-routes.js';
import { createMonitoringApi } from '../../../host/api/monitoring/server.js';
import { formatApiTime } from '../../../host/store/db/time.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import type { Store } from '../../../host/store/store.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { openTestStore } from '../../helpers/store.js';

const KEY = 'health-key-1';
const LOGIN_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/login', auth: 'basic' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    D.success([D.createVariable('session', 'Session', body)]);
  });
}`;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
/** The device accepts "right", and "later" once fixed. */
const device = { fixed: false };

let store: Store;
let server: DeviceServer;
let agent: Agent;
let agentId: number;
const finished: AgentRunFinished[] = [];

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const runsOf = (name: string, status?: 'success' | 'failure') => finished.filter((r) => r.name === name && (status === undefined || r.result.status === status));

async function health(base: string, path = `/agent/${agentId}/health`, key: string | null = KEY) {
  const response = await fetch(`${base}/driverbox-api/v1${path}`, { headers: key ? { 'x-api-key': key } : {} });
  return { status: response.status, body: (await response.json()) as HealthAnswer & { code?: string; status?: number; message?: string } };
}

const entryOf = (answer: HealthAnswer, device: string) => answer.entries.find((e) => e.device === device)!;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'driverbox-health-'));
  writeFileSync(join(dir, 'login.js'), LOGIN_DRIVER);
  server = await startDeviceServer({
    route: (req, res) => {
      if (req.url !== '/login') return false;
      const auth = req.headers.authorization;
      const accepted = auth === basic('admin', 'right') || (device.fixed && auth === basic('admin', 'later'));
      res.statusCode = accepted ? 200 : 401;
      res.end(accepted ? 'welcome' : 'denied');
      return true;
    },
  });
  store = await openTestStore({ secretKey: 'health-secret' });
  const inventory = [
    'version: 1',
    'devices:',
    `  - { name: wrongpass, ip: 127.0.0.1, portMap: { 80: ${server.port} }, credentials: { username: admin, password: wrong } }`,
    `  - { name: recovers, ip: 127.0.0.1, portMap: { 80: ${server.port} }, credentials: { username: admin, password: later } }`,
    `  - { name: healthy, ip: 127.0.0.1, portMap: { 80: ${server.port} }, credentials: { username: admin, password: right } }`,
    'drivers:',
    '  - { name: login, path: login.js, samplePeriod: 1 }',
    'associations:',
    '  - { driver: login, device: wrongpass }',
    '  - { driver: login, device: recovers }',
    '  - { driver: login, device: healthy }',
  ].join('\n');
  writeFileSync(join(dir, 'inventory.yaml'), `${inventory}\n`);
  agent = createAgent({ store, inventory: join(dir, 'inventory.yaml'), scheduler: { jitterMs: 100 }, storeRefreshMs: 0, api: { apiKeys: [KEY] } });
  agent.on('runFinished', (run) => finished.push(run));
  agent.on('error', () => undefined);
  await agent.start();
  agentId = agent.agentId!;
});

afterAll(async () => {
  await agent?.stop({ graceMs: 0 });
  await store?.close();
  await server?.close();
});

/** The association's run records, oldest first (the agent keeps far more than this test makes). */
async function storedRuns(associationId: number) {
  return await store
    .statement<[number], { id: number; outcome: string; error_type: string | null; started: number; elapsed_ms: number }>(
      'SELECT id, outcome, error_type, started, elapsed_ms FROM runs WHERE association_id = ? ORDER BY id',
    )
    .all(associationId);
}

describe('driverbox extension API: association health from a real agent', () => {
  let firstRead: HealthAnswer;

  it('a wrong password: failing with AUTHENTICATION_ERROR, the streak counting up from its first failure', async () => {
    await until('3 failed runs of each failing device and 2 good ones', () =>
      runsOf('login@wrongpass', 'failure').length >= 3 && runsOf('login@recovers', 'failure').length >= 3 && runsOf('login@healthy', 'success').length >= 2,
    );
    const { status, body } = await health(agent.url!);
    expect(status).toBe(200);
    firstRead = body;
    // Failing first: the two failing devices, then the healthy one.
    expect(body.entries.map((e) => e.state)).toEqual(['failing', 'failing', 'ok']);
    expect(body.entries[2]!.device).toBe('healthy');
    const bad = entryOf(body, 'wrongpass');
    expect(bad).toMatchObject({ action: 'get_status', status: 'ENABLED', last_outcome: 'failure', error_type: 'AUTHENTICATION_ERROR', stale: false, success_ratio_1h: 0, success_ratio_24h: 0, last_success_time: null });
    expect(bad.consecutive_failures).toBeGreaterThanOrEqual(3);
    expect(bad.error_message).toContain('AUTHENTICATION_ERROR');
    expect(bad.lateness_ms).toEqual(expect.any(Number));
    // failing_since is the first failed run's end, and stays there while the streak grows.
    const first = (await storedRuns(bad.association_id))[0]!;
    expect(first.outcome).toBe('failure');
    expect(bad.failing_since).toBe(formatApiTime(Number(first.started) + Number(first.elapsed_ms)));
    expect(body.summary.entries).toEqual({ failing: 2, stale: 0, ok: 1, pending: 0 });
    expect(body.summary.devices).toEqual({ failing: 2, stale: 0, ok: 1, pending: 0 });
    expect(body.summary.failing_by_error_type).toEqual([{ error_type: 'AUTHENTICATION_ERROR', count: 2 }]);
  });

  it('filters by state and error type, answers per device, with the documented error bodies', async () => {
    const failing = (await health(agent.url!, `/agent/${agentId}/health?state=failing`)).body;
    expect(failing.total).toBe(2);
    expect(failing.entries.map((e) => e.device).sort()).toEqual(['recovers', 'wrongpass']);
    expect((await health(agent.url!, `/agent/${agentId}/health?error_type=AUTHENTICATION_ERROR`)).body.total).toBe(2);
    expect((await health(agent.url!, `/agent/${agentId}/health?error_type=TIMEOUT_ERROR`)).body).toMatchObject({ total: 0, entries: [] });
    const ok = (await health(agent.url!, `/agent/${agentId}/health?state=ok&page_size=1`)).body;
    expect(ok.entries.map((e) => e.device)).toEqual(['healthy']);
    const one = entryOf(firstRead, 'healthy');
    const perDevice = (await health(agent.url!, `/agent/${agentId}/device/${one.device_id}/health`)).body;
    expect(perDevice.entries.map((e) => e.association_id)).toEqual([one.association_id]);
    expect(perDevice.summary.entries).toEqual({ failing: 0, stale: 0, ok: 1, pending: 0 });
    // Refusals: no key 401, a bad state 422, an unknown agent and another agent's device 404.
    const noKey = await health(agent.url!, `/agent/${agentId}/health`, null);
    expect(noKey).toMatchObject({ status: 401, body: { status: 401, code: 'UNAUTHORIZED' } });
    const badState = await health(agent.url!, `/agent/${agentId}/health?state=broken`);
    expect(badState.status).toBe(422);
    expect(badState.body).toMatchObject({ status: 422 });
    expect((await health(agent.url!, '/agent/999999/health')).status).toBe(404);
    const other = await createAgentRecord(store, { displayName: 'elsewhere' });
    const foreign = await createDevice(store, other.id, { displayName: 'x', ip: '10.9.9.9' });
    const refused = await health(agent.url!, `/agent/${agentId}/device/${foreign.id}/health`);
    expect(refused).toMatchObject({ status: 404, body: { status: 404 } });
    // An agent with no associations: empty, not an error.
    expect((await health(agent.url!, `/agent/${other.id}/health`)).body).toMatchObject({ total: 0, entries: [], summary: { entries: { failing: 0, stale: 0, ok: 0, pending: 0 } } });
  });

  it('a fixed device recovers: its streak ends, the other keeps failing since its first failure', async () => {
    const recoveringBefore = runsOf('login@recovers').length;
    device.fixed = true;
    await until('a success of the fixed device, then 2 more failures of the wrong password', () => runsOf('login@recovers', 'success').length >= 1 && runsOf('login@wrongpass', 'failure').length >= 6);
    expect(runsOf('login@recovers').length).toBeGreaterThan(recoveringBefore);
    await agent.stop({ graceMs: 5000 });
    // Nothing writes any more: every figure is checked against the run records exactly, through
    // a server over the same store (as `driverbox serve` would answer).
    const app: FastifyInstance = await createMonitoringApi({ store, apiKeys: [KEY], extraRoutes: async (root) => void (await root.register(driverboxApiRoutes, { store, apiKeys: [KEY] })) });
    try {
      const get = async <T>(url: string) => (await app.inject({ method: 'GET', url, headers: { 'x-api-key': KEY } })).json() as T;
      const body = await get<HealthAnswer>(`/driverbox-api/v1/agent/${agentId}/health`);
      expect(body.entries.map((e) => [e.device, e.state])).toEqual([['wrongpass', 'failing'], ['healthy', 'ok'], ['recovers', 'ok']]);
      const check = async (entry: HealthEntry) => {
        const runs = await storedRuns(entry.association_id);
        const last = runs.at(-1)!;
        expect(entry.last_run_id).toBe(Number(last.id));
        expect(entry.last_run_time).toBe(formatApiTime(Number(last.started) + Number(last.elapsed_ms)));
        const successes = runs.filter((r) => r.outcome === 'success');
        // All within the last hour (and day): the ratios are the runs' own.
        expect(entry.runs_1h).toBe(runs.length);
        expect(entry.runs_24h).toBe(runs.length);
        expect(entry.success_ratio_1h).toBeCloseTo(successes.length / runs.length, 12);
        expect(entry.success_ratio_24h).toBeCloseTo(successes.length / runs.length, 12);
        let streak = 0;
        while (streak < runs.length && runs[runs.length - 1 - streak]!.outcome === 'failure') streak += 1;
        expect(entry.consecutive_failures).toBe(streak);
        const lastSuccess = successes.at(-1);
        expect(entry.last_success_time).toBe(lastSuccess ? formatApiTime(Number(lastSuccess.started) + Number(lastSuccess.elapsed_ms)) : null);
        return runs;
      };
      const bad = entryOf(body, 'wrongpass');
      const badRuns = await check(bad);
      expect(badRuns.every((r) => r.outcome === 'failure' && r.error_type === 'AUTHENTICATION_ERROR')).toBe(true);
      expect(bad.consecutive_failures).toBe(badRuns.length);
      expect(bad.consecutive_failures).toBeGreaterThan(entryOf(firstRead, 'wrongpass').consecutive_failures);
      expect(bad.failing_since).toBe(entryOf(firstRead, 'wrongpass').failing_since);
      const fixed = entryOf(body, 'recovers');
      const fixedRuns = await check(fixed);
      expect(fixed).toMatchObject({ state: 'ok', last_outcome: 'success', failing_since: null, error_type: null, error_message: null });
      expect(fixedRuns.filter((r) => r.outcome === 'failure').length).toBeGreaterThanOrEqual(3);
      expect(fixed.success_ratio_1h).toBeGreaterThan(0);
      expect(fixed.success_ratio_1h).toBeLessThan(1);
      const healthy = entryOf(body, 'healthy');
      await check(healthy);
      expect(healthy).toMatchObject({ success_ratio_1h: 1, consecutive_failures: 0 });
      // The Public API's association: last_inspection_time is the health's last run; status ENABLED.
      const associations = await get<Array<{ id: number; status: string; last_inspection_time: string }>>(`/public-api/v1/custom-driver/agent/${agentId}/association`);
      for (const entry of body.entries) {
        const association = associations.find((a) => a.id === entry.association_id)!;
        expect(association).toMatchObject({ status: 'ENABLED', last_inspection_time: entry.last_run_time });
      }
    } finally {
      await app.close();
    }
  });
});
