// P40–P43: `driverbox agent` as the real bin, attacked by an API-key holder: drivers uploaded
// through its API that log their password, read internal services or wedge their sandbox
// (SIGSTOP). The agent process stays up, /metrics and the status say what happened, the next
// run is healthy, the password is in no answer, no /metrics text and no store byte. Its
// inventory's own driver, which the operator wrote, may still reach any host.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { alive, sandboxChildren, until } from './process-tree.js';

const bin = path.resolve('bin/driverbox.js');
const API_KEY = 'process-cli-agent-key';
const PASSWORD = 'cli"Agent\\pw/+&=ü';
const USERNAME = 'cli-admin';

const reader = (port: number, pathName: string) => `function validate() { D.success(); }
function get_status() {
  try {
    D.createExternalDevice('127.0.0.1').http.get({ url: '${pathName}', port: ${port} }, function (err, res, body) {
      D.success([D.createVariable('seen', 'Seen', err ? 'error ' + err.code : 'body ' + body)]);
    });
  } catch (e) { D.success([D.createVariable('seen', 'Seen', 'thrown ' + e.message)]); }
}`;
const LEAKY = `function validate() { D.success(); }
function get_status() {
  var p = D.device.password();
  console.log('json ' + JSON.stringify({ p: p }) + ' plain ' + p);
  D.success([D.createVariable('pw', 'PW', p)]);
}`;
const SLOW = `function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=800' }, function () { D.success([D.createVariable('ok', 'OK', 'late')]); });
}`;
const QUICK = `function validate() { D.success(); }
function get_status() { D.success([D.createVariable('ok', 'OK', 'yes')]); }`;

function expectNoSecret(text: string, where: string): void {
  for (const form of [PASSWORD, JSON.stringify(PASSWORD).slice(1, -1), encodeURIComponent(PASSWORD)]) {
    expect(text.includes(form), `${where} holds the password as ${JSON.stringify(form)}`).toBe(false);
  }
}

describe('P40-P43 driverbox agent against drivers uploaded through its API', () => {
  let dir: string;
  let device: DeviceServer;
  let internal: Server;
  const hits: string[] = [];
  let proc: ChildProcess;
  let stdout = '';
  let stderr = '';
  let url = '';
  let client: MonitoringClient;
  let agentId = 0;
  let deviceId = 0;

  const variables = async () =>
    (await fetch(`${url}/public-api/v1/agent/${agentId}/device/${deviceId}/variable`, { headers: { 'x-api-key': API_KEY } }).then((r) => r.json())) as Array<{ path: string; value: string | null }>;
  const metrics = () => fetch(`${url}/metrics`).then((r) => r.text());

  async function upload(name: string, code: string): Promise<number> {
    const driver = await client.createCustomDriver({ name, code, requires_credentials: false });
    await client.createCustomDriverAssociation(driver.id, agentId, deviceId, { credentials: { username: USERNAME, password: PASSWORD } });
    return driver.id;
  }

  beforeAll(async () => {
    device = await startDeviceServer();
    internal = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('INTERNAL-SERVICE-SECRET');
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    const internalPort = (internal.address() as AddressInfo).port;
    dir = mkdtempSync(path.join(tmpdir(), 'driverbox-process-cli-agent-'));
    writeFileSync(path.join(dir, 'inventory-reader.js'), reader(internalPort, '/from-inventory'));
    writeFileSync(
      path.join(dir, 'inventory.yaml'),
      [
        'version: 1',
        'devices:',
        `  - { name: lab, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`,
        'drivers:',
        '  - { name: inventory-reader, path: inventory-reader.js, samplePeriod: 300 }',
        'associations:',
        '  - { driver: inventory-reader, device: lab }',
        '',
      ].join('\n'),
    );
    proc = spawn(process.execPath, [bin, 'agent', '--inventory', path.join(dir, 'inventory.yaml'), '--port', '0', '--jitter', '0', '--run-timeout', '1', '--api-key', API_KEY], {
      env: { PATH: process.env.PATH, DRIVERBOX_DATA_DIR: path.join(dir, 'data'), DRIVERBOX_SECRET_KEY: 'process-cli-agent-secret' },
    });
    proc.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    url = (await until(() => /API +(http:\/\/127\.0\.0\.1:\d+)\/public-api\/v1/.exec(stdout)?.[1], 'the banner', 30_000))!;
    client = new MonitoringClient({ baseUrl: url, apiKey: API_KEY });
    agentId = (await client.listAgents())[0]!.id;
    const devices = (await fetch(`${url}/public-api/v1/agent/${agentId}/device`, { headers: { 'x-api-key': API_KEY } }).then((r) => r.json())) as Array<{ id: number }>;
    deviceId = devices[0]!.id;
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    if (proc && proc.exitCode === null) {
      const exited = new Promise((resolve) => proc.on('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    }
    await device?.close();
    await new Promise<void>((resolve) => internal.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('P40 the inventory driver reaches the internal service (the operator may); one uploaded through the API does not', async () => {
    await until(async () => (await variables()).some((v) => v.value?.startsWith('body ')), 'the inventory driver to report');
    expect(hits).toContain('/from-inventory');
    const internalPort = (internal.address() as AddressInfo).port;
    await upload('api-reader', reader(internalPort, '/from-api').replaceAll("'seen', 'Seen'", "'api_seen', 'API seen'"));
    const seen = await until(async () => (await variables()).find((v) => v.path === 'api_seen'), 'the API driver to report');
    expect(seen.value).toMatch(/^(thrown|error) /);
    expect(hits).not.toContain('/from-api');
  }, 30_000);

  it('P41 a driver that logs and reports its password: the API, /metrics and the store file hold *** only', async () => {
    await upload('leaky', LEAKY);
    const pw = await until(async () => (await variables()).find((v) => v.path === 'pw'), 'the leaky run');
    expect(pw.value).toBe('***');
    expectNoSecret(JSON.stringify(await variables()), 'the variables answer');
    expectNoSecret(await metrics(), '/metrics');
    expectNoSecret(stdout + stderr, 'the agent output');
    const store = path.join(dir, 'data', 'driverbox.db');
    for (const file of [store, `${store}-wal`]) if (existsSync(file)) expectNoSecret(readFileSync(file).toString('latin1'), file);
  }, 30_000);

  it('P42 a run whose sandbox wedges (SIGSTOP): killed after deadline + 5 s, the agent says why on stderr and in /metrics, the next run is healthy', async () => {
    const child = sandboxChildren(proc.pid!)[0]!;
    const seen = device.seen.length;
    await upload('slow', SLOW);
    await until(() => device.seen.slice(seen).some((r) => r.url.startsWith('/slow')), 'the slow run at the device');
    process.kill(child, 'SIGSTOP');
    await until(() => stderr.includes('overstayed its deadline'), 'the agent to report the kill', 15_000);
    expect(stderr).toContain(`the sandbox process (pid ${child}) died (killed because a run of slow.js overstayed its deadline of 1000 ms by more than 5000 ms`);
    // The run's own line follows the kill's, as the run in flight is ended: wait for it too
    // (a flake hunt beside 2 CPU hogs read stderr between the two writes once in 10).
    await until(() => /run slow@lab get_status: failure TIMEOUT_ERROR/.test(stderr), 'the run line of the killed run');
    await until(() => !alive(child), 'the wedged child to be gone');
    expect(await metrics()).toMatch(/^driverbox_sandbox_overstay_kills_total 1$/m);
    const quick = await upload('quick', QUICK);
    await until(async () => sandboxChildren(proc.pid!).length === 1, 'a new sandbox child');
    const next = await client.executeCustomDriverAction(quick, agentId, deviceId, 0);
    expect(next.outcome).toBe('success');
    expect(alive(proc.pid!)).toBe(true);
  }, 40_000);

  it('P43 the agent stops cleanly on SIGTERM after all of it', async () => {
    const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 30_000);
});
