// P10–P15: attacks driven through `driverbox serve` (the real bin, a process of its own) by an
// API-key holder who uploads drivers and executes them: a driver whose sandbox crashes, one whose
// sandbox wedges (SIGSTOP), one that logs its device's password in several forms, one that reads
// internal services through D.createExternalDevice. Each: the API stays up and answers other
// requests meanwhile, the execute call answers the right result, the next execute is healthy,
// and nothing leaks (not in the answers, not in the store's bytes).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { openStore } from '../../host/store/store.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { alive, descendants, sandboxChildren, until } from './process-tree.js';

const API_KEY = 'process-serve-key';
const SECRET_KEY = 'process-serve-secret';
// A quote, a backslash, a slash, + & = and a non-ASCII letter: every encoding changes it.
const PASSWORD = 'S3cr"et\\pa/ss+wörd&=1';
const USERNAME = 'operator-7';

const QUICK = `function validate() { D.success(); }
function get_status() { D.success([D.createVariable('ok', 'OK', 'yes')]); }`;
// The device answers /slow a second later: the run is in flight while the test signals its sandbox.
const SLOW = `function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow' }, function (err) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR);
    D.success([D.createVariable('ok', 'OK', 'late')]);
  });
}`;
// base64 written out: the sandbox has no btoa, and a driver can always write one.
const LEAKY = `var B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function base64(text) {
  var bytes = unescape(encodeURIComponent(text)), out = '';
  for (var i = 0; i < bytes.length; i += 3) {
    var n = (bytes.charCodeAt(i) << 16) | ((bytes.charCodeAt(i + 1) || 0) << 8) | (bytes.charCodeAt(i + 2) || 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
  }
  return out;
}
function validate() { D.success(); }
function get_status() {
  var p = D.device.password(), u = D.device.username();
  console.log('plain ' + p);
  console.log('json ' + JSON.stringify({ user: u, password: p }));
  console.log('twice ' + JSON.stringify(JSON.stringify({ password: p })));
  console.log('uri ' + encodeURIComponent(p));
  console.log('basic Authorization: Basic ' + base64(u + ':' + p));
  console.log('b64 x' + base64(p) + ' y' + base64('a' + p) + ' z' + base64('ab' + p));
  D.success([D.createVariable('leak', 'Leak', 'pw=' + p)]);
}
/** @label Throw it */
function custom_1() { throw new Error('could not log in with ' + JSON.stringify(D.device.password())); }`;

function forms(secret: string): string[] {
  return [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), Buffer.from(`${USERNAME}:${secret}`).toString('base64'), Buffer.from(secret).toString('base64').slice(0, -4)];
}

function expectNoSecret(text: string, where: string): void {
  for (const form of forms(PASSWORD)) expect(text.includes(form), `${where} holds the password as ${JSON.stringify(form)}`).toBe(false);
}

interface Setup {
  dir: string;
  storeFile: string;
  agentId: number;
  deviceId: number;
}

async function seed(devicePort = 9): Promise<Setup> {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-process-serve-'));
  const storeFile = path.join(dir, 'data', 'store.db');
  const store = await openStore({ path: storeFile, secretKey: SECRET_KEY });
  const agentId = (await ensureLocalAgent(store)).id;
  const deviceId = (await createDevice(store, agentId, { displayName: 'pdu', ip: '127.0.0.1', portMap: { '80': devicePort } })).id;
  await store.close();
  return { dir, storeFile, agentId, deviceId };
}

async function serve(setup: Setup, extra: string[] = []): Promise<{ serve: ServeProcess; client: MonitoringClient }> {
  const running = await startServe(['--store', setup.storeFile, '--api-key', API_KEY, '--run-timeout', '2', '--quiet', ...extra], {
    DRIVERBOX_DATA_DIR: path.join(setup.dir, 'data'),
    DRIVERBOX_SECRET_KEY: SECRET_KEY,
  });
  return { serve: running, client: new MonitoringClient({ baseUrl: running.url, apiKey: API_KEY }) };
}

/** A driver uploaded through the API and applied to the device (with its credentials). */
async function upload(client: MonitoringClient, setup: Setup, name: string, code: string): Promise<number> {
  const driver = await client.createCustomDriver({ name, code, requires_credentials: false });
  expect(driver.is_valid, JSON.stringify(driver.errors)).toBe(true);
  await client.createCustomDriverAssociation(driver.id, setup.agentId, setup.deviceId, { credentials: { username: USERNAME, password: PASSWORD } });
  return driver.id;
}

/** The device: answers /slow after a second; counts the requests it got. */
const device = {
  requests: 0,
  server: createServer((_req, res) => {
    device.requests++;
    const timer = setTimeout(() => res.end('late'), 1_000);
    res.on('close', () => clearTimeout(timer));
  }),
};
await new Promise<void>((resolve) => device.server.listen(0, '127.0.0.1', resolve));
afterAll(async () => {
  device.server.closeAllConnections();
  await new Promise<void>((resolve) => device.server.close(() => resolve()));
});

describe('P10-P14 driverbox serve against hostile drivers', async () => {
  const setup = await seed((device.server.address() as AddressInfo).port);
  let running: ServeProcess;
  let client: MonitoringClient;
  const ids: Record<string, number> = {};
  const execute = (name: string, action = 0) => client.executeCustomDriverAction(ids[name]!, setup.agentId, setup.deviceId, action);
  let internal: Server;
  let internalHits = 0;

  beforeAll(async () => {
    internal = createServer((_req, res) => {
      internalHits++;
      res.end('INTERNAL-SERVICE-SECRET');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    ({ serve: running, client } = await serve(setup));
    const port = (internal.address() as AddressInfo).port;
    const READER = `var HOSTS = ['127.0.0.1', 'localhost', '2130706433', '127.1', '0x7f.1', '::1', '169.254.169.254', 'metadata.google.internal'];
function validate() { D.success(); }
function get_status() {
  var seen = [], left = HOSTS.length;
  function done(line) { seen.push(line); if (--left === 0) { console.log(JSON.stringify(seen)); D.success([D.createVariable('seen', 'Seen', seen.join(' | ').slice(0, 900))]); } }
  HOSTS.forEach(function (h) {
    try {
      D.createExternalDevice(h).http.get({ url: '/', port: ${port} }, function (err, res, body) { done(h + ': ' + (err ? 'error ' + err.code : 'body ' + body)); });
    } catch (e) { done(h + ': thrown ' + e.message); }
  });
}`;
    for (const [name, code] of Object.entries({ quick: QUICK, slow: SLOW, leaky: LEAKY, reader: READER })) ids[name] = await upload(client, setup, name, code);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await running?.stop();
    await new Promise<void>((resolve) => internal.close(() => resolve()));
    rmSync(setup.dir, { recursive: true, force: true });
  });

  async function expectHealthy(): Promise<void> {
    const next = await execute('quick');
    expect(next, JSON.stringify(next)).toMatchObject({ outcome: 'success' });
    expect(next).not.toHaveProperty('errorType'); // left out when unknown, as reference 1.14.0 wants
  }

  function sandboxPid(): number {
    const pids = sandboxChildren(running.pid);
    expect(pids).toHaveLength(1);
    return pids[0]!;
  }

  it('P10 drivers run in a sandbox process apart from the API process', async () => {
    const servePids = descendants(running.pid, '\0serve\0');
    expect(servePids).toHaveLength(1);
    const child = sandboxPid();
    expect(descendants(servePids[0]!, 'engine/process/child.js')).toEqual([child]);
    expect(running.output()).toMatch(new RegExp(`drivers      run in sandbox process ${child}; API drivers may reach no external host`));
    await expectHealthy();
  }, 30_000);

  it.each(['SIGKILL', 'SIGSEGV'] as const)('P11 a sandbox that dies by %s under an execute: the call answers a failed result, the API answers meanwhile, the next execute works', async (signal) => {
    const child = sandboxPid();
    const seen = device.requests;
    const pending = execute('slow');
    await until(() => device.requests > seen, 'the run to reach the device');
    process.kill(child, signal);
    const [result, agents] = await Promise.all([pending, client.listAgents()]);
    expect(agents.map((a) => a.id)).toContain(setup.agentId);
    expect(result.outcome).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.errorMessage).toContain(`the sandbox process (pid ${child}) was killed by ${signal} while this run was in flight`);
    expect(alive(running.pid)).toBe(true);
    await until(() => sandboxChildren(running.pid).some((pid) => pid !== child), 'a new sandbox child');
    await expectHealthy();
    expect(running.errors()).toContain(`the sandbox process (pid ${child}) died (signal ${signal})`);
  }, 30_000);

  it('P12 a wedged sandbox (SIGSTOP) under an execute: TIMEOUT_ERROR within the run timeout + 5 s, the API answers meanwhile, the child is replaced, the status says why', async () => {
    const child = sandboxPid();
    const started = Date.now();
    const seen = device.requests;
    const pending = execute('slow');
    await until(() => device.requests > seen, 'the run to reach the device');
    process.kill(child, 'SIGSTOP');
    // While the child is stopped the API answers at once.
    const during = Date.now();
    await client.listAgents();
    expect(Date.now() - during).toBeLessThan(1_000);
    const result = await pending;
    const took = Date.now() - started;
    expect(result.outcome).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.errorMessage).toContain(`the run did not end within its deadline of 2000 ms plus 5000 ms: the sandbox process (pid ${child}) was wedged and was killed`);
    expect(took).toBeLessThan(2_000 + 5_000 + 2_000);
    await until(() => !alive(child), 'the wedged child to be gone');
    await until(() => sandboxChildren(running.pid).length === 1 && !sandboxChildren(running.pid).includes(child), 'a new sandbox child');
    expect(running.errors()).toContain(`the sandbox process (pid ${child}) was killed because a run of slow.js overstayed its deadline of 2000 ms by more than 5000 ms`);
    await expectHealthy();
  }, 30_000);

  it('P13 a driver that logs, reports and throws its password: answers, the activity log and the store file hold *** instead', async () => {
    const logged = await execute('leaky');
    expect(logged.outcome).toBe('success');
    const answer = JSON.stringify(logged);
    expectNoSecret(answer, 'the execute answer');
    expect(logged.log).toContain('log: plain ***');
    expect(logged.log!.find((l) => l.startsWith('log: json '))).toBe(`log: json {"user":"***","password":"***"}`);
    expect(logged.log!.find((l) => l.startsWith('log: basic '))).toBe('log: basic Authorization: Basic ***');
    const thrown = await execute('leaky', 1);
    expect(thrown.outcome).toBe('failure');
    expect(thrown.errorMessage).toContain('could not log in with "***"');
    expectNoSecret(JSON.stringify(thrown), 'the failed execute answer');

    const variables = await fetch(`${running.url}/public-api/v1/agent/${setup.agentId}/device/${setup.deviceId}/variable`, { headers: { 'x-api-key': API_KEY } });
    const variablesText = await variables.text();
    expect(variablesText).toContain('pw=***');
    expectNoSecret(variablesText, 'the variables answer');
    const activity = await fetch(`${running.url}/public-api/v1/agent/${setup.agentId}/activity-log`, { headers: { 'x-api-key': API_KEY } });
    const activityText = await activity.text();
    expect(activityText).toContain('could not log in with');
    expectNoSecret(activityText, 'the activity log');
    for (const file of [setup.storeFile, `${setup.storeFile}-wal`]) {
      if (!existsSync(file)) continue;
      expectNoSecret(readFileSync(file).toString('utf8'), file);
      expectNoSecret(readFileSync(file).toString('latin1'), file);
    }
    await expectHealthy();
  }, 30_000);

  it('P14 a driver uploaded through the API reaches no internal service with D.createExternalDevice, however the address is spelled', async () => {
    const result = await execute('reader');
    const answer = JSON.stringify(result);
    expect(answer).not.toContain('INTERNAL-SERVICE-SECRET');
    expect(internalHits).toBe(0);
    const seen = JSON.parse(result.log![0]!.slice('log: '.length)) as string[];
    expect(seen).toHaveLength(8);
    for (const line of seen) expect(line).not.toContain('body ');
    await expectHealthy();
  }, 30_000);

  it('P15 the store, its WAL files and the data folder are private to their owner', () => {
    expect(statSync(path.dirname(setup.storeFile)).mode & 0o777).toBe(0o700);
    for (const file of [setup.storeFile, `${setup.storeFile}-wal`, `${setup.storeFile}-shm`]) expect(statSync(file).mode & 0o777, file).toBe(0o600);
    expect(alive(running.pid)).toBe(true);
  });
});

describe('P16 --external-hosts widens the policy for API drivers', () => {
  it('a listed host is reached, one not listed is not', async () => {
    const setup = await seed();
    const internal = createServer((_req, res) => res.end('LISTED-SERVICE'));
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    const port = (internal.address() as AddressInfo).port;
    const { serve: running, client } = await serve(setup, ['--external-hosts', '127.0.0.1']);
    try {
      expect(running.output()).toContain('API drivers may reach 127.0.0.1 with D.createExternalDevice');
      const code = `function validate() { D.success(); }
function get_status() {
  var seen = [], hosts = ['127.0.0.1', 'localhost'], left = hosts.length;
  hosts.forEach(function (h) {
    try {
      D.createExternalDevice(h).http.get({ url: '/', port: ${port} }, function (err, res, body) { seen.push(h + ': ' + (err ? 'error' : body)); if (--left === 0) { console.log(seen.join(' | ')); D.success(); } });
    } catch (e) { seen.push(h + ': thrown'); if (--left === 0) { console.log(seen.join(' | ')); D.success(); } }
  });
}`;
      const id = await upload(client, setup, 'listed', code);
      const result = await client.executeCustomDriverAction(id, setup.agentId, setup.deviceId, 0);
      expect(result.outcome, JSON.stringify(result)).toBe('success');
      expect(result.log![0]).toContain('127.0.0.1: LISTED-SERVICE');
      expect(result.log![0]).not.toMatch(/localhost: LISTED-SERVICE/);
    } finally {
      await client.close();
      await running.stop();
      await new Promise<void>((resolve) => internal.close(() => resolve()));
      rmSync(setup.dir, { recursive: true, force: true });
    }
  }, 60_000);
});
