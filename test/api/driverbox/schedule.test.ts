// The driverbox extension API's schedule (GET /driverbox-api/v1/agent/{id}/schedule) from a real
// agent: associations run by its scheduler in the real sandbox process against a device on
// loopback, one that hangs past its period (so its due times are skipped as overlaps); each
// entry's next due time, state, counts and last run checked against what the agent reported.
// `driverbox serve` (no scheduler) and another agent answer scheduler "none".
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../host/agent/agent.js';
import type { AgentRunFinished, AgentRunSkipped } from '../../../host/agent/agent-types.js';
import { createAgent } from '../../../host/server/agent-server.js';
import { driverboxApiRoutes, type ScheduleAnswer } from '../../../host/api/driverbox/runs-routes.js';
import { createMonitoringApi } from '../../../host/api/monitoring/server.js';
import { parseApiTime } from '../../../host/store/db/time.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { getRun } from '../../../host/store/runs/runs.js';
import type { Store } from '../../../host/store/store.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { openTestStore } from '../../helpers/store.js';
import { REPLY_DRIVER } from '../../helpers/agent-drivers.js';

const KEY = 'schedule-key-1';
/** Answers after 2.5 s: with a 1 s period, the due times meanwhile are skipped (the run is still in flight). */
const SLOW = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=2500' }, function (error) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success();
  });
}`;

let store: Store;
let device: DeviceServer;
let agent: Agent;
const finished: AgentRunFinished[] = [];
const skipped: AgentRunSkipped[] = [];

async function until(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const schedule = async (agentId: number, query = '', key = KEY) => {
  const response = await fetch(`${agent.url}/driverbox-api/v1/agent/${agentId}/schedule${query}`, { headers: { 'x-api-key': key } });
  return { status: response.status, body: (await response.json()) as ScheduleAnswer & { code?: string } };
};

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'driverbox-schedule-'));
  writeFileSync(join(dir, 'good.js'), REPLY_DRIVER);
  writeFileSync(join(dir, 'slow.js'), SLOW);
  device = await startDeviceServer();
  store = await openTestStore({ secretKey: 'schedule-secret' });
  const inventory = [
    'version: 1',
    'devices:',
    `  - { name: d1, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`,
    `  - { name: d2, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`,
    'drivers:',
    '  - { name: good, path: good.js, samplePeriod: 1 }',
    '  - { name: slow, path: slow.js, samplePeriod: 1 }',
    'associations:',
    '  - { driver: good, device: d1 }',
    '  - { driver: slow, device: d2 }',
  ].join('\n');
  writeFileSync(join(dir, 'inventory.yaml'), `${inventory}\n`);
  agent = createAgent({ store, inventory: join(dir, 'inventory.yaml'), scheduler: { jitterMs: 100 }, storeRefreshMs: 0, api: { apiKeys: [KEY] } });
  agent.on('runFinished', (run) => finished.push(run));
  agent.on('runSkipped', (event) => skipped.push(event));
  // stop()'s end of the slow run in flight is reported; nothing else is expected.
  agent.on('error', () => undefined);
  await agent.start();
});

afterAll(async () => {
  await agent?.stop({ graceMs: 0 });
  await store?.close();
  await device?.close();
});

describe('driverbox extension API: the agent schedule', () => {
  it("answers each association's next due time, state, counts and last run from the agent's scheduler", async () => {
    await until('two good runs and a skipped due time of the slow one', () => finished.filter((r) => r.name === 'good@d1').length >= 2 && skipped.some((s) => s.name === 'slow@d2'));
    const before = Date.now();
    const { status, body } = await schedule(agent.agentId!);
    expect(status).toBe(200);
    expect(body.scheduler).toBe('embedded');
    expect(body.total).toBe(2);
    const good = body.associations.find((a) => a.name === 'good@d1')!;
    const slow = body.associations.find((a) => a.name === 'slow@d2')!;
    expect(good).toMatchObject({ sample_period: 1, actions: ['get_status'] });
    // The next due time is within one period of now (whole seconds on the API).
    const nextDue = parseApiTime(good.next_due!);
    expect(nextDue).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(nextDue).toBeLessThanOrEqual(before + 2000);
    expect(good.started).toBeGreaterThanOrEqual(2);
    expect(good.due).toBeGreaterThanOrEqual(good.started!);
    // The last run is the last one the agent reported for it, and it is stored.
    const lastGood = finished.filter((r) => r.name === 'good@d1').at(-1)!;
    expect(good.last_run).toMatchObject({ action: 'get_status', outcome: 'success', error_type: null });
    expect(good.last_run!.run_id).toBeGreaterThanOrEqual(lastGood.runId!);
    expect((await getRun(store, good.last_run!.run_id!))?.associationId).toBe(good.association_id);
    expect(good.skipped).toEqual({ running: 0, waiting: 0, missed: 0, backoff: 0, total: 0 });
    // The slow one overlaps its own period: its due times are skipped as "running".
    expect(slow.skipped.running).toBeGreaterThanOrEqual(1);
    expect(slow.skipped.total).toBe(slow.skipped.running + slow.skipped.waiting + slow.skipped.missed);
    const reported = skipped.filter((s) => s.name === 'slow@d2').reduce((n, s) => n + s.count, 0);
    expect(slow.skipped.total).toBeGreaterThanOrEqual(reported);
    expect(slow.due).toBeGreaterThanOrEqual(slow.started! + slow.skipped.running);
    expect(['running', 'idle', 'waiting']).toContain(slow.state);
    // By association id, so pages stay put as due times pass.
    const ids = body.associations.map((a) => a.association_id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('filters by device, pages, and refuses a wrong key or an unknown agent', async () => {
    const all = (await schedule(agent.agentId!)).body.associations;
    const d2 = all.find((a) => a.name === 'slow@d2')!.device_id;
    const one = await schedule(agent.agentId!, `?device_id=${d2}`);
    expect(one.body.associations.map((a) => a.name)).toEqual(['slow@d2']);
    expect(one.body.total).toBe(1);
    const paged = await schedule(agent.agentId!, '?page_size=1&page_number=1');
    expect(paged.body.total).toBe(2);
    expect(paged.body.associations).toHaveLength(1);
    expect(paged.body.associations[0]!.association_id).toBe(all[1]!.association_id);
    expect((await schedule(agent.agentId!, '', 'wrong')).status).toBe(401);
    expect((await schedule(999_999)).status).toBe(404);
    expect((await schedule(agent.agentId!, '?page_size=0')).status).toBe(422);
  });

  it('says there is no scheduler for another agent, and in serve mode', async () => {
    const other = await createAgentRecord(store, { displayName: 'elsewhere' });
    expect((await schedule(other.id)).body).toMatchObject({ scheduler: 'none', total: 0, associations: [] });
    const serve = await createMonitoringApi({ store, apiKeys: [KEY], extraRoutes: async (a) => void (await a.register(driverboxApiRoutes, { store, apiKeys: [KEY] })) });
    try {
      const response = await serve.inject({ method: 'GET', url: `/driverbox-api/v1/agent/${agent.agentId}/schedule`, headers: { 'x-api-key': KEY } });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ scheduler: 'none', total: 0, associations: [] });
    } finally {
      await serve.close();
    }
  });
});
