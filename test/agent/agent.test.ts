// createAgent end to end: an inventory of drivers and devices on loopback, runs in the real
// supervised sandbox process, results in a real store, the API and /metrics served beside it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Agent } from '../../host/agent/agent.js';
import type { AgentRunFinished } from '../../host/agent/agent-types.js';
import { createAgent, type AgentOptions } from '../../host/server/agent-server.js';
import { InventoryError } from '../../host/agent/inventory/index.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { createAssociation } from '../../host/store/drivers/associations.js';
import { createCustomDriver } from '../../host/store/drivers/custom-drivers.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { openStore, type Store } from '../../host/store/index.js';
import { listDeviceRuns } from '../../host/store/runs/runs.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { openTestStore } from '../helpers/store.js';
import { REPLY_DRIVER } from '../helpers/agent-drivers.js';

const API_KEY = 'agent-test-key';

const GOOD_DRIVER = REPLY_DRIVER;

/** Never gets an answer: the device sleeps longer than the run's timeout. */
const HANGING_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=60000', timeout: 120000 }, function () { D.success(); });
}`;

/** Answers after ?ms (a parameter), so a run is in flight for a known time. */
const SLOW_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=' + D.getParameter('ms') }, function (error, response, body) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success([D.createVariable('late', 'Late', body)]);
  });
}`;

interface Fixture {
  dir: string;
  device: DeviceServer;
  store: Store;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture(): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'driverbox-agent-'));
  writeFileSync(join(dir, 'good.js'), GOOD_DRIVER);
  writeFileSync(join(dir, 'hang.js'), HANGING_DRIVER);
  writeFileSync(join(dir, 'slow.js'), SLOW_DRIVER);
  const device = await startDeviceServer();
  const store = await openTestStore({ secretKey: 'agent-test-secret' });
  cleanups.push(() => device.close(), async () => await store.close());
  return { dir, device, store };
}

/** An inventory YAML: devices named d1…dN on the test server, associations as given. */
function inventoryYaml(f: Fixture, devices: number, associations: Array<{ driver: string; device: string; period?: number; ms?: number }>): string {
  const lines = ['version: 1', 'devices:'];
  for (let i = 1; i <= devices; i += 1) lines.push(`  - { name: d${i}, ip: 127.0.0.1, portMap: { 80: ${f.device.port} } }`);
  lines.push(
    'drivers:',
    '  - { name: good, path: good.js, samplePeriod: 1 }',
    '  - { name: hang, path: hang.js, samplePeriod: 1 }',
    '  - { name: slow, path: slow.js, samplePeriod: 1, parameters: { ms: { type: number, default: 500 } } }',
    'associations:',
  );
  for (const a of associations) {
    const extra = [a.period ? `samplePeriod: ${a.period}` : '', a.ms ? `parameters: { ms: ${a.ms} }` : ''].filter(Boolean).join(', ');
    lines.push(`  - { driver: ${a.driver}, device: ${a.device}${extra ? `, ${extra}` : ''} }`);
  }
  return `${lines.join('\n')}\n`;
}

function writeInventory(f: Fixture, text: string): string {
  const file = join(f.dir, 'inventory.yaml');
  writeFileSync(file, text);
  return file;
}

async function startAgent(f: Fixture, options: Partial<AgentOptions>): Promise<{ agent: Agent; finished: AgentRunFinished[]; errors: Error[] }> {
  const agent = createAgent({ store: f.store, scheduler: { jitterMs: 100 }, storeRefreshMs: 0, ...options });
  const finished: AgentRunFinished[] = [];
  const errors: Error[] = [];
  agent.on('runFinished', (run) => finished.push(run));
  agent.on('error', (error) => errors.push(error));
  cleanups.push(async () => {
    await agent.stop({ graceMs: 0 });
  });
  await agent.start();
  return { agent, finished, errors };
}

async function until(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const runsOf = (finished: AgentRunFinished[], name: string) => finished.filter((r) => r.name === name);

describe('createAgent', () => {
  it('runs get_status of every association each period and writes the variables, served through the API', async () => {
    const f = await fixture();
    const file = writeInventory(f, inventoryYaml(f, 2, [{ driver: 'good', device: 'd1' }, { driver: 'good', device: 'd2' }]));
    const { agent, finished, errors } = await startAgent(f, { inventory: file, api: { apiKeys: [API_KEY] } });
    await until('two runs of each association', () => runsOf(finished, 'good@d1').length >= 2 && runsOf(finished, 'good@d2').length >= 2);
    expect(errors).toEqual([]);
    const d1 = runsOf(finished, 'good@d1');
    expect(d1.every((r) => r.result.status === 'success' && r.action === 'get_status' && r.runId !== null)).toBe(true);
    // A 1 s period: the second run is due one period after the first.
    expect(d1[1]!.dueAt - d1[0]!.dueAt).toBeCloseTo(1000, -1);

    const client = new MonitoringClient({ baseUrl: agent.url!, apiKey: API_KEY });
    cleanups.push(() => client.close());
    const variables = await client.listDeviceVariables(agent.agentId!, d1[0]!.deviceId);
    expect(variables.map((v) => [v.path, v.value])).toEqual([['reply', 'ok']]);
    expect((await listDeviceRuns(f.store, d1[0]!.deviceId)).length).toBeGreaterThanOrEqual(2);

    const metrics = await fetch(`${agent.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/driverbox_runs_total\{action="get_status",outcome="success"\} [1-9]/);
    expect(metrics).toMatch(/driverbox_isolate_pool_size [1-9]/);
    expect(metrics).toMatch(/driverbox_sandbox_resident_memory_bytes\{pid="\d+"\} [1-9]\d{7,}/); // >= 10 MB: the child's RSS
    const status = await fetch(`${agent.url}/backend-api/v1/status?check_modules=true`, { headers: { 'x-api-key': API_KEY } }).then((r) => r.json());
    expect(status.status).toBe('ok');
    expect(status.modules).toEqual({
      sandbox: { status: 'ok', error: null },
      store: { status: 'ok', error: null },
      scheduler: { status: 'ok', error: null },
      http: { status: 'ok', error: null },
    });
    expect((await fetch(`${agent.url}/backend-api/v1/status`)).status).toBe(401);
  });

  it('keeps serving other devices on time while a driver always hangs until its timeout', async () => {
    const f = await fixture();
    const file = writeInventory(
      f,
      inventoryYaml(f, 4, [
        { driver: 'hang', device: 'd1' },
        { driver: 'hang', device: 'd2' },
        { driver: 'good', device: 'd3' },
        { driver: 'good', device: 'd4' },
      ]),
    );
    const skipped: string[] = [];
    const { agent, finished } = await startAgent(f, { inventory: file, limits: { timeoutMs: 2500 }, scheduler: { jitterMs: 100, maxConcurrent: 3, maxPerDevice: 1 } });
    agent.on('runSkipped', (s) => skipped.push(s.name));
    await until('the hanging runs to time out twice', () => runsOf(finished, 'hang@d1').length >= 2, 20_000);
    // Over ~5 s the good associations ran about every second despite 2 of 3 slots being held.
    expect(runsOf(finished, 'good@d3').length).toBeGreaterThanOrEqual(4);
    expect(runsOf(finished, 'good@d4').length).toBeGreaterThanOrEqual(4);
    const hung = runsOf(finished, 'hang@d1')[0]!.result;
    expect([hung.status, hung.errorType, hung.limitExceeded]).toEqual(['failure', 'TIMEOUT_ERROR', 'timeout']);
    // The hanging association's due times while it ran were skipped, not piled up.
    expect(skipped.filter((n) => n === 'hang@d1').length).toBeGreaterThanOrEqual(2);
    expect(agent.stats().scheduler!.skipped).toBeGreaterThanOrEqual(4);
    const metrics = await agent.metrics.render();
    expect(metrics).toMatch(/driverbox_run_timeouts_total [2-9]/);
    expect(metrics).toMatch(/driverbox_run_failures_total\{error_type="TIMEOUT_ERROR"\} [2-9]/);
    expect(metrics).toMatch(/driverbox_runs_skipped_total [4-9]/);
  });

  it('stop() lets a run in flight finish within the grace and writes its result', async () => {
    const f = await fixture();
    const file = writeInventory(f, inventoryYaml(f, 1, [{ driver: 'slow', device: 'd1', ms: 800, period: 5 }]));
    const { agent, finished } = await startAgent(f, { inventory: file });
    await until('the run to start', () => agent.stats().scheduler!.running === 1);
    const stopped = await agent.stop({ graceMs: 10_000 });
    expect(stopped).toEqual({ finished: 1, aborted: 0, dropped: 0 });
    expect(agent.state).toBe('stopped');
    expect(finished.map((r) => [r.result.status, r.result.variables[0]?.value])).toEqual([['success', 'late']]);
    const [run] = await listDeviceRuns(f.store, finished[0]!.deviceId);
    expect([run!.outcome, run!.id]).toEqual(['success', finished[0]!.runId]);
  });

  it('stop() ends a run still going after the grace as failed, and records it', async () => {
    const f = await fixture();
    const file = writeInventory(f, inventoryYaml(f, 1, [{ driver: 'slow', device: 'd1', ms: 20_000, period: 60 }]));
    const { agent, finished } = await startAgent(f, { inventory: file });
    await until('the run to start', () => agent.stats().scheduler!.running === 1);
    const stopped = await agent.stop({ graceMs: 200 });
    expect(stopped).toEqual({ finished: 0, aborted: 1, dropped: 0 });
    expect(finished).toHaveLength(1);
    expect(finished[0]!.result.status).toBe('failure');
    expect(finished[0]!.result.message).toMatch(/sandbox process \(pid \d+\)/);
    expect((await listDeviceRuns(f.store, finished[0]!.deviceId)).map((r) => r.outcome)).toEqual(['failure']);
  });

  it('reload() applies a changed inventory without dropping the run in flight, and keeps the old one when the new is bad', async () => {
    const f = await fixture();
    const file = writeInventory(f, inventoryYaml(f, 2, [{ driver: 'slow', device: 'd1', ms: 1500, period: 60 }]));
    const { agent, finished } = await startAgent(f, { inventory: file });
    await until('the slow run to start', () => agent.stats().scheduler!.running === 1);

    writeInventory(f, inventoryYaml(f, 2, [{ driver: 'slow', device: 'd1', ms: 1500, period: 60 }, { driver: 'good', device: 'd2' }]));
    const sync = await agent.reload();
    expect(sync.associations.added.map((a) => a.name)).toEqual(['good@d2']);
    expect(agent.stats().associations).toBe(2);
    await until('the new association to run', () => runsOf(finished, 'good@d2').length >= 1);
    await until('the slow run to end', () => runsOf(finished, 'slow@d1').length === 1);
    expect(runsOf(finished, 'slow@d1')[0]!.result.status).toBe('success');
    expect(runsOf(finished, 'slow@d1')[0]!.runId).not.toBeNull();

    writeInventory(f, 'version: 1\ndevices:\n  - { name: d1 }\n');
    await expect(agent.reload()).rejects.toBeInstanceOf(InventoryError);
    expect(agent.stats().associations).toBe(2);

    // Removing an association unschedules it.
    writeInventory(f, inventoryYaml(f, 2, [{ driver: 'good', device: 'd2' }]));
    const removed = await agent.reload();
    expect(removed.associations.removed.map((a) => a.name)).toEqual(['slow@d1']);
    expect(agent.stats().associations).toBe(1);
  });

  it('restarts a killed sandbox process: the run in flight fails with the reason, later runs succeed', async () => {
    const f = await fixture();
    const file = writeInventory(f, inventoryYaml(f, 2, [{ driver: 'slow', device: 'd1', ms: 5000, period: 60 }, { driver: 'good', device: 'd2' }]));
    const { agent, finished, errors } = await startAgent(f, { inventory: file });
    await until('the slow run to start', () => runsOf(finished, 'good@d2').length >= 1 && agent.stats().scheduler!.running >= 1);
    const pid = agent.stats().sandbox!.pid!;
    process.kill(pid, 'SIGKILL');
    await until('the killed run to end', () => runsOf(finished, 'slow@d1').length === 1);
    const lost = runsOf(finished, 'slow@d1')[0]!.result;
    expect(lost.status).toBe('failure');
    expect(lost.message).toContain(`the sandbox process (pid ${pid}) was killed by SIGKILL`);
    const before = runsOf(finished, 'good@d2').length;
    await until('runs after the restart', () => runsOf(finished, 'good@d2').slice(before).some((r) => r.result.status === 'success'));
    expect(agent.stats().sandbox!.pid).not.toBe(pid);
    expect(errors.some((e) => e.message.includes(`sandbox process (pid ${pid}) died`))).toBe(true);
    expect(await agent.metrics.render()).toMatch(/driverbox_sandbox_restarts_total 1/);
  });

  it('schedules associations made through the API, and unschedules deleted ones', async () => {
    const f = await fixture();
    const { agent, finished } = await startAgent(f, { api: { apiKeys: [API_KEY] } });
    expect(agent.stats().associations).toBe(0);
    const driver = await createCustomDriver(f.store, { name: 'api-good', code: GOOD_DRIVER, minimalSamplePeriod: 300, requiresCredentials: false });
    const device = await createDevice(f.store, agent.agentId!, { displayName: 'api-device', ip: '127.0.0.1', portMap: { 80: f.device.port } });
    const client = new MonitoringClient({ baseUrl: agent.url!, apiKey: API_KEY });
    cleanups.push(() => client.close());
    const created = await client.createCustomDriverAssociation(driver.id, agent.agentId!, device.id, { sample_period: 300 });
    expect(agent.stats().associations).toBe(1);
    await until('the first run (within the jitter)', () => finished.length >= 1);
    expect([finished[0]!.name, finished[0]!.result.status, finished[0]!.associationId]).toEqual(['api-good@api-device', 'success', created.result]);
    expect(agent.stats().scheduler!.jobs).toBe(1);
    await client.deleteCustomDriverAssociation(driver.id, created.result!);
    expect(agent.stats().associations).toBe(0);
    expect(agent.stats().scheduler!.jobs).toBe(0);
  });

  it('picks up associations another process wrote into the store at its next refresh', async () => {
    const f = await fixture();
    const { agent, finished } = await startAgent(f, { storeRefreshMs: 100 });
    const driver = await createCustomDriver(f.store, { name: 'elsewhere', code: GOOD_DRIVER, minimalSamplePeriod: 300, requiresCredentials: false });
    const device = await createDevice(f.store, agent.agentId!, { displayName: 'written-directly', ip: '127.0.0.1', portMap: { 80: f.device.port } });
    await createAssociation(f.store, { customDriverId: driver.id, agentId: agent.agentId!, deviceId: device.id, samplePeriod: 300 });
    await until('the association to be scheduled and run', () => finished.length >= 1);
    expect([finished[0]!.name, finished[0]!.result.status]).toEqual(['elsewhere@written-directly', 'success']);
  });

  it('refuses a bad inventory at start with the file and field, and leaves nothing running', async () => {
    const f = await fixture();
    const file = writeInventory(f, 'version: 1\ndevices:\n  - { name: d1, ip: 127.0.0.1 }\nassociations:\n  - { driver: nope, device: d1 }\n');
    const agent = createAgent({ store: f.store, inventory: file, storeRefreshMs: 0 });
    const error = await agent.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InventoryError);
    expect(String((error as Error).message)).toContain('inventory.yaml');
    expect(String((error as Error).message)).toContain('nope');
    expect(agent.state).toBe('stopped');
    expect(agent.stats().sandbox).toBeNull();
  });
});
