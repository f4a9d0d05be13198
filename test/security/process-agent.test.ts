// P20–P25: attacks on the agent (createAgent with its real sandbox process, its API and
// /metrics): scheduled and API-executed runs of drivers that log their password, read internal
// services, wedge their sandbox (SIGSTOP) or crash it. The agent stays up, each run ends with
// the right result, the next run is healthy, the status and /metrics say what happened, and the
// password is nowhere: not in the store's bytes, the API's answers or /metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../host/agent/agent.js';
import type { AgentRunFinished } from '../../host/agent/agent-types.js';
import { createAgent } from '../../host/server/agent-server.js';
import { writeOwnership } from '../../host/store/drivers/ownership.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { driverCodeHash } from '../../host/store/drivers/inventory-driver-code.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createAssociation } from '../../host/store/drivers/associations.js';
import { createCustomDriver } from '../../host/store/drivers/custom-drivers.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { listDeviceRuns } from '../../host/store/runs/runs.js';
import { externalHostsFor } from '../../host/agent/external-hosts.js';
import { openStore, type Store } from '../../host/store/store.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { alive, until } from './process-tree.js';
import { openTestStore } from '../helpers/store.js';

const API_KEY = 'process-agent-key';
const PASSWORD = 'Ag3nt"pw\\with/+&=ß';
const USERNAME = 'collector-3';
const MARGIN_MS = 700;

const QUICK = `function validate() { D.success(); }
function get_status() { D.success([D.createVariable('ok', 'OK', 'yes')]); }`;
const SLOW = `function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=1000' }, function (err) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR);
    D.success([D.createVariable('ok', 'OK', 'late')]);
  });
}`;
const LEAKY = `function validate() { D.success(); }
function get_status() {
  var p = D.device.password();
  console.log('plain ' + p + ' json ' + JSON.stringify({ p: p }) + ' uri ' + encodeURIComponent(p));
  D.device.http.post({ url: '/echo', body: JSON.stringify({ password: p }) }, function () {
    D.success([D.createVariable('leak', 'Leak', p)]);
  });
}`;

function forms(secret: string): string[] {
  return [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), Buffer.from(secret).toString('base64').slice(0, -4)];
}

function expectNoSecret(text: string, where: string): void {
  for (const form of forms(PASSWORD)) expect(text.includes(form), `${where} holds the password as ${JSON.stringify(form)}`).toBe(false);
}

describe('P20-P24 the agent against hostile drivers', () => {
  let dir: string;
  let storeFile: string;
  let store: Store;
  let agent: Agent;
  let client: MonitoringClient;
  let deviceServer: DeviceServer;
  let internal: Server;
  let internalHits = 0;
  const finished: AgentRunFinished[] = [];
  const errors: Error[] = [];
  const ids = { agent: 0, quick: 0, slow: 0, leaky: 0, reader: 0, devices: [] as number[] };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'driverbox-process-agent-'));
    storeFile = path.join(dir, 'data', 'agent.db');
    store = await openStore({ path: storeFile, secretKey: 'process-agent-secret' });
    deviceServer = await startDeviceServer();
    internal = createServer((_req, res) => {
      internalHits++;
      res.end('INTERNAL-SERVICE-SECRET');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    const internalPort = (internal.address() as AddressInfo).port;
    const READER = `function validate() { D.success(); }
function get_status() {
  var hosts = ['127.0.0.1', 'localhost', '2130706433', '127.1', '::1'], seen = [], left = hosts.length;
  hosts.forEach(function (h) {
    function done(line) { seen.push(line); if (--left === 0) { console.log(seen.join(' | ')); D.success([D.createVariable('seen', 'Seen', seen.join(' | ').slice(0, 900))]); } }
    try { D.createExternalDevice(h).http.get({ url: '/', port: ${internalPort} }, function (err, res, body) { done(h + ': ' + (err ? 'error ' + err.code : 'body ' + body)); }); }
    catch (e) { done(h + ': thrown ' + e.message); }
  });
}`;
    ids.agent = (await ensureLocalAgent(store)).id;
    const device = async (name: string) => {
      const id = (await createDevice(store, ids.agent, { displayName: name, ip: '127.0.0.1', portMap: { '80': deviceServer.port } })).id;
      ids.devices.push(id);
      return id;
    };
    const credentials = { username: USERNAME, password: PASSWORD };
    ids.quick = (await createCustomDriver(store, { name: 'quick', code: QUICK })).id;
    ids.slow = (await createCustomDriver(store, { name: 'slow', code: SLOW })).id;
    ids.leaky = (await createCustomDriver(store, { name: 'leaky', code: LEAKY })).id;
    ids.reader = (await createCustomDriver(store, { name: 'reader', code: READER })).id;
    // Scheduled at start: the leaky and the reading driver, each on a device of its own.
    await createAssociation(store, { customDriverId: ids.leaky, agentId: ids.agent, deviceId: await device('leaky-box'), credentials });
    await createAssociation(store, { customDriverId: ids.reader, agentId: ids.agent, deviceId: await device('reader-box'), credentials });
    agent = createAgent({
      store,
      scheduler: { jitterMs: 0 },
      storeRefreshMs: 0,
      limits: { timeoutMs: 1_500 },
      sandbox: { overstayMarginMs: MARGIN_MS, host: { threads: 1 }, restart: { initialDelayMs: 0 } },
      api: { apiKeys: [API_KEY] },
      metrics: { defaultMetrics: false },
    });
    agent.on('runFinished', (run) => finished.push(run));
    agent.on('error', (error) => errors.push(error));
    await agent.start();
    client = new MonitoringClient({ baseUrl: agent.url!, apiKey: API_KEY });
    await until(() => finished.length >= 2, 'the two scheduled runs');
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await agent?.stop({ graceMs: 0 });
    await store?.close();
    await deviceServer?.close();
    await new Promise<void>((resolve) => internal.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const text = async (url: string, key = true) => (await fetch(`${agent.url}${url}`, { headers: key ? { 'x-api-key': API_KEY } : {} })).text();

  async function expectHealthy(deviceId: number): Promise<void> {
    const next = await client.executeCustomDriverAction(ids.quick, ids.agent, deviceId, 0);
    expect(next, JSON.stringify(next)).toMatchObject({ outcome: 'success' });
  }

  /** An association of `driverId` on a new device, made through the API; its first run is scheduled at once. */
  async function apply(driverId: number, name: string): Promise<number> {
    const deviceId = (await createDevice(store, ids.agent, { displayName: name, ip: '127.0.0.1', portMap: { '80': deviceServer.port } })).id;
    await client.createCustomDriverAssociation(driverId, ids.agent, deviceId, { credentials: { username: USERNAME, password: PASSWORD } });
    await client.createCustomDriverAssociation(ids.quick, ids.agent, deviceId, { credentials: { username: USERNAME, password: PASSWORD } });
    return deviceId;
  }

  it('P20 a scheduled driver that logs and posts its password: the run record, the API, /metrics and the store file hold *** only', async () => {
    const run = finished.find((r) => r.name.startsWith('leaky@'))!;
    expect(run.result.status, run.result.message ?? '').toBe('success');
    const stored = await listDeviceRuns(store, run.deviceId, 5);
    const record = JSON.stringify(stored);
    expect(record).toContain('plain ***');
    expectNoSecret(record, 'the run record');
    // The device did get the password: masking is of what is kept, not of what the driver sends.
    expect(deviceServer.seen.some((r) => r.body.includes(JSON.stringify(PASSWORD)))).toBe(true);
    const variables = await text(`/public-api/v1/agent/${ids.agent}/device/${run.deviceId}/variable`);
    expect(variables).toContain('"***"');
    expectNoSecret(variables, 'the variables answer');
    expectNoSecret(await text('/metrics', false), '/metrics');
    const executed = await client.executeCustomDriverAction(ids.leaky, ids.agent, run.deviceId, 0);
    expect(executed.log!.join('\n')).toContain('plain ***');
    expectNoSecret(JSON.stringify(executed), 'the execute answer');
    for (const file of [storeFile, `${storeFile}-wal`]) if (existsSync(file)) expectNoSecret(readFileSync(file).toString('latin1'), file);
  });

  it('P21 a driver made through the API reaches no internal service with D.createExternalDevice (scheduled or executed)', async () => {
    const run = finished.find((r) => r.name.startsWith('reader@'))!;
    expect(run.result.logs[0]?.message).toBeTruthy();
    expect(run.result.logs[0]!.message).not.toContain('body ');
    const executed = await client.executeCustomDriverAction(ids.reader, ids.agent, run.deviceId, 0);
    expect(JSON.stringify(executed)).not.toContain('INTERNAL-SERVICE-SECRET');
    expect(internalHits).toBe(0);
  });

  it('P22 a scheduled run whose sandbox wedges (SIGSTOP): TIMEOUT_ERROR within deadline + margin, the child replaced, stats, status and /metrics say why, the next run healthy', async () => {
    const wedged = agent.stats().sandbox!.pid!;
    const seen = deviceServer.seen.length;
    const before = finished.length;
    const deviceId = await apply(ids.slow, 'slow-box');
    await until(() => deviceServer.seen.slice(seen).some((r) => r.url.startsWith('/slow')), 'the slow run at the device');
    const stoppedAt = Date.now();
    process.kill(wedged, 'SIGSTOP');
    const run = await until(() => finished.slice(before).find((r) => r.name.startsWith('slow@')), 'the slow run to finish');
    expect(Date.now() - stoppedAt).toBeLessThan(1_500 + MARGIN_MS + 1_500);
    expect(run.result).toMatchObject({ status: 'failure', errorType: 'TIMEOUT_ERROR', limitExceeded: 'timeout' });
    expect(run.result.message).toContain(`deadline of 1500 ms plus ${MARGIN_MS} ms: the sandbox process (pid ${wedged}) was wedged and was killed`);
    expect((await listDeviceRuns(store, deviceId, 5)).some((r) => r.errorType === 'TIMEOUT_ERROR')).toBe(true);
    await until(() => !alive(wedged), 'the wedged child to be gone');
    await until(() => agent.stats().sandbox?.state === 'ready', 'the new child');
    const sandbox = agent.stats().sandbox!;
    expect(sandbox.pid).not.toBe(wedged);
    expect(sandbox.overstayKills).toBe(1);
    expect(sandbox.lastKill?.reason).toContain(`pid ${wedged}: a run of slow.js overstayed its deadline of 1500 ms`);
    expect(errors.map((e) => e.message).join('\n')).toContain(`the sandbox process (pid ${wedged}) died (killed because a run of slow.js overstayed`);
    const metrics = await text('/metrics', false);
    expect(metrics).toMatch(/^driverbox_sandbox_overstay_kills_total 1$/m);
    expect(metrics).toMatch(/^driverbox_sandbox_restarts_total 1$/m);
    const status = JSON.parse(await text('/backend-api/v1/status?check_modules=true')) as { modules: Record<string, { status: string }> };
    expect(status.modules.sandbox?.status).toBe('ok');
    await expectHealthy(deviceId);
  }, 30_000);

  it('P23 a sandbox killed by SIGKILL under an API execute: a failed result, the API answers meanwhile, the next execute works', async () => {
    const child = agent.stats().sandbox!.pid!;
    const deviceId = ids.devices[0]!;
    await client.createCustomDriverAssociation(ids.slow, ids.agent, deviceId);
    const seen = deviceServer.seen.length;
    const pending = client.executeCustomDriverAction(ids.slow, ids.agent, deviceId, 0);
    await until(() => deviceServer.seen.slice(seen).some((r) => r.url.startsWith('/slow')), 'the run at the device');
    process.kill(child, 'SIGKILL');
    const [result, agents] = await Promise.all([pending, client.listAgents()]);
    expect(agents.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ outcome: 'failure', errorType: 'GENERIC_ERROR' });
    expect(result.errorMessage).toContain(`the sandbox process (pid ${child}) was killed by SIGKILL`);
    await until(() => agent.stats().sandbox?.state === 'ready', 'the new child');
    expect(agent.stats().sandbox!.overstayKills).toBe(1);
    await client.createCustomDriverAssociation(ids.quick, ids.agent, deviceId).catch(() => undefined);
    await expectHealthy(deviceId);
    expect(agent.state).toBe('running');
  }, 30_000);
});

describe('P24 the external-host policy of a stored driver', () => {
  it("the inventory's code keeps any host; other code (uploaded, or under an inventory driver's id) gets the configured list, none by default; \"*\" is any host", async () => {
    const store = await openTestStore();
    const mine = (await createCustomDriver(store, { name: 'mine', code: QUICK })).id;
    const uploaded = (await createCustomDriver(store, { name: 'uploaded', code: QUICK })).id;
    await writeOwnership(store, { devices: {}, drivers: { mine }, associations: {} }, { [mine]: driverCodeHash(QUICK) });
    const operator = { driverId: mine, source: QUICK };
    const other = { driverId: uploaded, source: QUICK };
    expect(await externalHostsFor(store, operator)).toBeUndefined();
    expect(await externalHostsFor(store, other)).toEqual([]);
    expect(await externalHostsFor(store, other, ['api.example.com'])).toEqual(['api.example.com']);
    expect(await externalHostsFor(store, other, ['*'])).toBeUndefined();
    // The hosts the operator names are where redirects may lead, for every driver: "*" keeps any host reachable.
    expect(await externalHostsFor(store, operator, ['api.example.com'])).toEqual(['*', 'api.example.com']);
    expect(await externalHostsFor(store, other, ['*', '*.example.com'])).toEqual(['*', '*.example.com']);
    // Other code under the inventory driver's id (one byte more): the uploaded drivers' policy.
    expect(await externalHostsFor(store, { driverId: mine, source: `${QUICK} ` })).toEqual([]);
    // A later inventory that no longer lists it: the driver is treated as uploaded at once.
    await writeOwnership(store, { devices: {}, drivers: {}, associations: {} }, {});
    expect(await externalHostsFor(store, operator)).toEqual([]);
    await store.close();
  });
});
