// `driverbox agent`: the real bin/driverbox.js running an inventory against a device on
// loopback, serving /metrics, reloading on SIGHUP and draining on SIGTERM; and its usage errors.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../host/store/store.js';
import { runCli } from '../helpers/cli.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { waitFor } from '../helpers/wait-for.js';

const bin = path.resolve('bin/driverbox.js');

const DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/status?body=up' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success([D.createVariable('state', 'State', body)]);
  });
}`;

const SLOW_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/slow?ms=1500' }, function (error, response, body) {
    D.success([D.createVariable('slow', 'Slow', body)]);
  });
}`;

let device: DeviceServer | null = null;
afterEach(async () => {
  await device?.close();
  device = null;
});

const runMain = (argv: string[], env: NodeJS.ProcessEnv = {}) => runCli(argv, { env });

function inventory(port: number, associations: string[]): string {
  return [
    'version: 1',
    'devices:',
    `  - { name: a, ip: 127.0.0.1, portMap: { 80: ${port} } }`,
    `  - { name: b, ip: 127.0.0.1, portMap: { 80: ${port} } }`,
    'drivers:',
    '  - { name: poll, path: poll.js, samplePeriod: 1 }',
    '  - { name: slow, path: slow.js, samplePeriod: 60 }',
    'associations:',
    ...associations.map((a) => `  - ${a}`),
    '',
  ].join('\n');
}


describe('driverbox agent', () => {
  it('schedules the inventory, serves /metrics, reloads on SIGHUP, and drains the run in flight on SIGTERM', async () => {
    device = await startDeviceServer();
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-agent-'));
    writeFileSync(path.join(dir, 'poll.js'), DRIVER);
    writeFileSync(path.join(dir, 'slow.js'), SLOW_DRIVER);
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(file, inventory(device.port, ['{ driver: poll, device: a }']));
    const proc = spawn(process.execPath, [bin, 'agent', '--inventory', file, '--port', '0', '--jitter', '0', '--verbose'], {
      env: { PATH: process.env.PATH, DRIVERBOX_DATA_DIR: dir },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));

    await waitFor('the banner', () => /metrics +http:\/\/127\.0\.0\.1:\d+\/metrics/.test(stdout));
    expect(stdout).toContain(`1 association(s) scheduled from ${file}`);
    const base = /metrics +(http:\/\/127\.0\.0\.1:\d+)\/metrics/.exec(stdout)![1]!;
    await waitFor('two runs', () => (stdout.match(/run poll@a get_status: success/g) ?? []).length >= 2);
    const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/driverbox_runs_total\{action="get_status",outcome="success"\} [2-9]/);

    // SIGHUP with a new association: the slow one starts and is in flight at SIGTERM.
    writeFileSync(file, inventory(device.port, ['{ driver: poll, device: a }', '{ driver: slow, device: b }']));
    proc.kill('SIGHUP');
    await waitFor('the reload', () => stdout.includes('Reloaded: added 1 association (slow@b) (2 association(s) in the inventory)'));
    await waitFor('the slow run to start', () => device!.seen.some((r) => r.url.startsWith('/slow')));

    // A bad inventory on SIGHUP is refused; the agent keeps going.
    writeFileSync(file, 'version: 2\n');
    proc.kill('SIGHUP');
    await waitFor('the refused reload', () => stderr.includes('reload refused, the previous inventory stays in use'));

    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('Stopping (SIGTERM)');
    expect(stdout).toMatch(/Stopped: 1 run\(s\) finished, 0 ended by the grace/);
    expect(stdout).toContain('run slow@b get_status: success');

    // The store was closed cleanly and holds the runs, the slow one included.
    const secretKey = readFileSync(path.join(dir, 'secret.key'), 'utf8').trim();
    const store = await openStore({ path: path.join(dir, 'driverbox.db'), secretKey });
    try {
      const rows = await store.statement("SELECT driver_name, outcome FROM runs WHERE driver_name = 'slow'").all();
      expect(rows).toEqual([{ driver_name: 'slow', outcome: 'success' }]);
      const polls = await store.statement("SELECT COUNT(*) AS n FROM runs WHERE driver_name = 'poll'").get() as { n: number };
      expect(polls.n).toBeGreaterThanOrEqual(2);
    } finally {
      await store.close();
    }
  });

  it("says once on stderr when the store starts refusing a device's new variables (its bound bit), not every run", async () => {
    device = await startDeviceServer();
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-agent-'));
    // Three new uids every run against a bound of 2 variables per device.
    writeFileSync(path.join(dir, 'poll.js'), `
function validate() { D.success(); }
function get_status() {
  var t = Date.now();
  D.success([D.createVariable('a' + t, 'A', 1), D.createVariable('b' + t, 'B', 2), D.createVariable('c' + t, 'C', 3)]);
}`);
    writeFileSync(path.join(dir, 'slow.js'), SLOW_DRIVER);
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(file, inventory(device.port, ['{ driver: poll, device: a }']));
    const config = path.join(dir, 'server.json');
    writeFileSync(config, JSON.stringify({ storeBounds: { variablesPerDevice: 2 } }));
    const proc = spawn(process.execPath, [bin, 'agent', '--inventory', file, '--config', config, '--port', '0', '--jitter', '0', '--verbose', '--summary-interval', '0'], {
      env: { PATH: process.env.PATH, DRIVERBOX_DATA_DIR: dir },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | string | null>((resolve) => proc.on('exit', (code, signal) => resolve(signal ?? code)));
    await waitFor('three runs', () => (stdout.match(/run poll@a get_status: success/g) ?? []).length >= 3);
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
    const said = stderr.split('\n').filter((line) => line.includes('the store refused part of the result'));
    // The first run's third variable, then every variable of the later runs: refused each run, said once.
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^driverbox agent: poll@a get_status: the store refused part of the result \(said once while it lasts\): .*variablesPerDevice/);
  });

  /** Starts the real agent with `args`, waits for its banner, stops it; answers what it printed. */
  async function agentBanner(args: string[], dir: string): Promise<{ stdout: string; stderr: string; code: number | string | null }> {
    const proc = spawn(process.execPath, [bin, 'agent', ...args, '--port', '0', '--jitter', '0', '--summary-interval', '0', '--grace', '0'], {
      env: { PATH: process.env.PATH, DRIVERBOX_DATA_DIR: dir },
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // A death by signal is answered as the signal's name, so that a failure says which.
    const exited = new Promise<number | string | null>((resolve) => proc.on('exit', (code, signal) => resolve(signal ?? code)));
    await waitFor('the banner', () => stdout.includes('Ctrl-C to stop') || proc.exitCode !== null);
    proc.kill('SIGTERM');
    return { stdout, stderr, code: await exited };
  }

  it('--inventory is the inventory and --config the server config file, as for serve; the old spellings still work with one deprecation line each', async () => {
    device = await startDeviceServer();
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-agent-'));
    writeFileSync(path.join(dir, 'poll.js'), DRIVER);
    writeFileSync(path.join(dir, 'slow.js'), SLOW_DRIVER);
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(file, inventory(device.port, ['{ driver: poll, device: a }']));
    const serverConfig = path.join(dir, 'server.json');
    writeFileSync(serverConfig, JSON.stringify({ apiKeys: ['key-from-the-config-file'], store: 'from-config.db' }));

    const today = await agentBanner(['--inventory', file, '--config', serverConfig], dir);
    expect(today.code).toBe(0);
    expect(today.stderr).toBe('');
    expect(today.stdout).toContain(`1 association(s) scheduled from ${file}`);
    expect(today.stdout).toContain('(1 key(s), from the config file)');
    expect(today.stdout).toMatch(new RegExp(`store +${path.join(dir, 'from-config.db').replaceAll('.', '\\.')}`));

    const old = await agentBanner(['--config', file, '--server-config', serverConfig], dir);
    expect(old.code).toBe(0);
    expect(old.stderr.trim().split('\n')).toEqual([
      `driverbox agent: deprecated: --config ${file} names an inventory; write --inventory ${file} (--config is the server config file, as for serve)`,
      `driverbox agent: deprecated: --server-config is now --config; write --config ${serverConfig}`,
    ]);
    expect(old.stdout).toContain(`1 association(s) scheduled from ${file}`);
    expect(old.stdout).toContain('(1 key(s), from the config file)');
  });

  it('an old-style --config naming a JSON inventory is read as the inventory (with the deprecation line)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-agent-'));
    const file = path.join(dir, 'inventory.json');
    writeFileSync(file, JSON.stringify({ version: 1, devices: [{ name: 'a', ip: 'not-an-ip' }] }));
    const r = await runMain(['agent', '--config', file, '--port', '0'], { DRIVERBOX_DATA_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`deprecated: --config ${file} names an inventory; write --inventory ${file}`);
    expect(r.stderr).toContain(`the inventory cannot be used: ${file}`);
    // Both an inventory in --config and --inventory: which one is meant is not guessed.
    const both = await runMain(['agent', '--config', file, '--inventory', file], { DRIVERBOX_DATA_DIR: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`--config ${file} is an inventory, and --inventory ${file} is given too`);
  });

  it('refuses a bad inventory with the file and every problem, exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-agent-'));
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(file, 'version: 1\ndevices:\n  - { name: a, ip: not-an-ip }\ndrivers:\n  - { name: x, path: missing.js }\n');
    const r = await runMain(['agent', '--inventory', file, '--port', '0'], { DRIVERBOX_DATA_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the inventory cannot be used: ${file}: 2 problems`);
    expect(r.stderr).toContain('missing.js');
  });

  it.each([
    [['--max-concurrent', '0'], '--max-concurrent must be an integer >= 1 (got "0")'],
    [['--grace', 'soon'], '--grace must be an integer >= 0 (got "soon")'],
    [['--verbose', '--quiet'], '--verbose and --quiet cannot be used together'],
    [['inventory.yaml'], 'the inventory goes after --inventory'],
    [['--nope'], 'unknown option --nope'],
    [['--inventroy', 'inventory.yaml'], 'unknown option --inventroy (did you mean --inventory?)'],
  ])('refuses %j with a usage error', async (args, message) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-agent-'));
    const r = await runMain(['agent', ...args], { DRIVERBOX_DATA_DIR: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});
