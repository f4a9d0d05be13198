// The driverbox extension API's schedule in scale-out mode (GET /driverbox-api/v1/agent/{id}/schedule
// of `driverbox agent --queue …`): two real agents on one Redis and one PostgreSQL store, each with
// its sandbox process, against a device on loopback. Every entry is checked against what BullMQ and
// the store hold: the job scheduler's next slot, period and offset, the association's latest run
// with the agent that ran it, a run in flight seen as running, and both agents named as sharing it;
// then the console's schedule page in chromium showing that.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../host/agent/agent.js';
import type { AgentRunSkipped } from '../../../host/agent/agent-types.js';
import { createAgent } from '../../../host/server/agent-server.js';
import type { ScheduleAnswer } from '../../../host/api/driverbox/runs-routes.js';
import { offsetOf, RUNS_QUEUE } from '../../../host/scale-out/index.js';
import { redisOptions } from '../../../host/scale-out/redis-connection.js';
import { openStore, type Store } from '../../../host/store/store.js';
import { parseApiTime } from '../../../host/store/db/time.js';
import { chromiumInstalled, openBrowser } from '../../helpers/browser.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { createDatabase, queryOnce, startPostgres, type PostgresServer } from '../../helpers/postgres-server.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';

const KEY = 'queue-schedule-key';
const PERIOD_S = 2;
const PREFIX = `qs${process.pid}`;
/** DRIVERBOX_CONSOLE_SCREENSHOTS=docs/reference/console: where the page's screenshot goes (as console-browser.test.ts does). */
const screenshots = process.env.DRIVERBOX_CONSOLE_SCREENSHOTS;
/**
 * Quick on d1 and d2; 700 ms on d3, so a poll of the page finds it in flight. The run timeout
 * (1900 ms, within the 2 s period) leaves d3 1.2 s of slack: at 900 of 1200 ms its request was cut
 * on a loaded machine (4 test workers beside an npm ci) and the run a failure.
 */
const DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=' + D.getParameter('ms') }, function (error) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success();
  });
}`;

let postgres: PostgresServer;
let redis: RedisServer;
let device: DeviceServer;
let storeUrl: string;
let queue: Queue;
const stores: Store[] = [];
const agents: Agent[] = [];
const skipped: AgentRunSkipped[] = [];

async function startAgent(name: string, inventory?: string): Promise<Agent> {
  const store = await openStore({ path: storeUrl, secretKey: 'queue-schedule-secret' });
  stores.push(store);
  const agent = createAgent({
    store,
    inventory,
    storeRefreshMs: 0,
    limits: { timeoutMs: 1900 },
    queue: { url: redis.url, name, deadlineMs: 1500, stalledIntervalMs: 1000, prefix: PREFIX },
    api: { apiKeys: [KEY] },
  });
  agent.on('error', () => {});
  agents.push(agent);
  await agent.start();
  return agent;
}

const query = <R>(text: string, values: unknown[] = []) => queryOnce<R>(storeUrl, text, values);

const schedule = async (agent: Agent, q = '') => {
  const response = await fetch(`${agent.url}/driverbox-api/v1/agent/${agent.agentId}/schedule${q}`, { headers: { 'x-api-key': KEY } });
  expect(response.status).toBe(200);
  return (await response.json()) as ScheduleAnswer;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  [postgres, redis, device] = await Promise.all([startPostgres(), startRedisServer(), startDeviceServer()]);
  storeUrl = await createDatabase(postgres, 'queue_schedule');
  queue = new Queue(RUNS_QUEUE, { connection: redisOptions(redis.url, 'producer', 'test'), prefix: PREFIX });
}, 60_000);

afterAll(async () => {
  for (const agent of agents) await agent.stop({ graceMs: 0 }).catch(() => {});
  for (const store of stores) await store.close().catch(() => {});
  await queue?.close().catch(() => {});
  await device?.close();
  await redis?.stop().catch(() => {});
  postgres?.destroy();
}, 60_000);

describe('the schedule of an agent in scale-out mode', () => {
  let a: Agent;
  let b: Agent;

  it('answers each association from its job scheduler and the store, and names the agents sharing the queue', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driverbox-queue-schedule-'));
    writeFileSync(join(dir, 'paced.js'), DRIVER);
    const lines = ['version: 1', 'devices:'];
    for (let i = 1; i <= 3; i++) lines.push(`  - { name: d${i}, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`);
    lines.push('drivers:', `  - { name: paced, path: paced.js, samplePeriod: ${PERIOD_S}, parameters: { ms: { type: string, default: '1' } } }`, 'associations:');
    lines.push('  - { driver: paced, device: d1 }', '  - { driver: paced, device: d2 }', "  - { driver: paced, device: d3, parameters: { ms: '700' } }");
    writeFileSync(join(dir, 'inventory.yaml'), `${lines.join('\n')}\n`);
    a = await startAgent('sched-a', join(dir, 'inventory.yaml'));
    b = await startAgent('sched-b');
    for (const agent of [a, b]) agent.on('runSkipped', (event) => skipped.push(event));
    // A run of every association is stored (any agent's).
    const end = Date.now() + 20_000;
    while ((await query<{ n: number }>("SELECT count(DISTINCT association_id)::int AS n FROM runs WHERE outcome <> 'pending'"))[0]!.n < 3) {
      if (Date.now() > end) throw new Error('timed out waiting for a run of every association');
      await sleep(200);
    }

    // The store's latest finished run of each association just before and just after the answer:
    // runs go on finishing meanwhile (every 2 s each), so the answer's last run lies between the two.
    const latestRuns = async () =>
      new Map(
        (await query<{ association_id: number; id: number }>("SELECT association_id::int AS association_id, max(id)::int AS id FROM runs WHERE outcome <> 'pending' GROUP BY association_id")).map(
          (row) => [row.association_id, row.id],
        ),
      );
    const latestBefore = await latestRuns();
    const before = Date.now();
    const body = await schedule(b);
    const latestAfter = await latestRuns();
    expect(body.scheduler).toBe('queue');
    expect(body.queue).toEqual({ agents: ['sched-a', 'sched-b'], this_agent: 'sched-b' });
    expect(body.total).toBe(3);
    expect(body.associations.map((e) => e.name)).toEqual(['paced@d1', 'paced@d2', 'paced@d3']);
    for (const entry of body.associations) {
      const scheduler = (await queue.getJobScheduler(String(entry.association_id)))!;
      expect(entry).toMatchObject({ sample_period: PERIOD_S, actions: ['get_status'], offset_ms: offsetOf(entry.association_id, PERIOD_S * 1000), started: null, lateness_ms: null });
      // The next slot as BullMQ holds it (whole seconds on the API; it may have moved on by one period since).
      const next = parseApiTime(entry.next_due!);
      expect(next).toBeGreaterThanOrEqual(Math.floor((scheduler.next! - PERIOD_S * 1000) / 1000) * 1000);
      expect(next).toBeLessThanOrEqual(scheduler.next!);
      expect(next).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - PERIOD_S * 1000);
      expect(entry.due).toBeGreaterThanOrEqual(1);
      expect(entry.due).toBeLessThanOrEqual(scheduler.iterationCount!);
      // The last run is the store's latest finished one of the association when it answered, with
      // the agent that ran it: no older than the latest before the call, no newer than after it.
      const lastRun = entry.last_run!;
      expect(lastRun.run_id).toBeGreaterThanOrEqual(latestBefore.get(entry.association_id)!);
      expect(lastRun.run_id).toBeLessThanOrEqual(latestAfter.get(entry.association_id)!);
      const [stored] = await query<{ association_id: number; runner: string; outcome: string }>(
        'SELECT association_id::int AS association_id, runner, outcome FROM runs WHERE id = $1',
        [lastRun.run_id],
      );
      expect(stored).toEqual({ association_id: entry.association_id, runner: lastRun.runner, outcome: lastRun.outcome });
      expect(lastRun).toMatchObject({ action: 'get_status', outcome: 'success', error_type: null });
      expect(['sched-a', 'sched-b']).toContain(lastRun.runner);
      // Skips are this agent's, as its worker reported them.
      const mine = skipped.filter((s) => s.associationId === entry.association_id).length;
      expect(entry.skipped.total).toBeLessThanOrEqual(mine);
    }
    // The other agent answers the same plan, naming itself.
    const fromA = await schedule(a);
    expect(fromA.queue).toEqual({ agents: ['sched-a', 'sched-b'], this_agent: 'sched-a' });
    expect(fromA.associations.map((e) => e.offset_ms)).toEqual(body.associations.map((e) => e.offset_ms));
  }, 60_000);

  it('shows a run in flight on either agent as running, and filters by device', async () => {
    const slowId = (await schedule(b)).associations.find((e) => e.name === 'paced@d3')!;
    const end = Date.now() + 15_000;
    let seenRunning = false;
    while (!seenRunning && Date.now() < end) {
      const body = await schedule(b, `?device_id=${slowId.device_id}`);
      expect(body.associations.map((e) => e.name)).toEqual(['paced@d3']);
      expect(body.total).toBe(1);
      seenRunning = body.associations[0]!.state === 'running';
      if (!seenRunning) await sleep(100);
    }
    expect(seenRunning).toBe(true);
  }, 30_000);

  it.skipIf(!chromiumInstalled())("shows it on the console's schedule page: the agents sharing the queue and each association's plan", async () => {
    const browser = await openBrowser({ width: 1280, height: 860 });
    try {
      const { page } = browser;
      await page.goto(`${b.url}/#/agent/${b.agentId}/schedule`);
      await page.getByLabel('API key').fill(KEY);
      await page.getByLabel('API key').press('Enter');
      await page.getByRole('heading', { level: 1, name: /^Schedule of / }).waitFor();
      const notice = page.locator('[data-scheduler="queue"]');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/shared by 2 agents: sched-a, sched-b \(this one\)/);
      const rows = page.locator('table.schedule tbody tr');
      await expect.poll(() => rows.count()).toBe(3);
      const d1 = page.locator('table.schedule tr', { hasText: 'paced@d1' });
      expect(await d1.locator('th .path').textContent()).toMatch(/d1 · every 2 s · get_status/);
      expect(await d1.locator('.next-due').textContent()).toMatch(/^\d\d:\d\d:\d\d(in \d+ s|now|\d+ s overdue)/);
      expect(await d1.locator('.last-run').textContent()).toMatch(/success.*get_status.*, by sched-[ab]/);
      if (screenshots) {
        mkdirSync(screenshots, { recursive: true });
        await page.screenshot({ path: join(screenshots, 'schedule-queue-laptop.png'), fullPage: true });
      }
      expect(browser.errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('drops an agent that left the queue from the ones sharing it', async () => {
    await a.stop({ graceMs: 2000 });
    const body = await schedule(b);
    expect(body.queue).toEqual({ agents: ['sched-b'], this_agent: 'sched-b' });
    expect(body.total).toBe(3);
  }, 30_000);
});
