// What the agent says about its runs, as an operator reads it: the real bin/driverbox.js running
// an inventory against loopback devices. A failed run's line carries its first cause (the
// exchange that failed, or the driver's error log), not only which D.failure ended it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { waitFor } from '../helpers/wait-for.js';

const bin = path.resolve('bin/driverbox.js');

let device: DeviceServer | null = null;
let agent: ChildProcess | null = null;
afterEach(async () => {
  if (agent && agent.exitCode === null) {
    const gone = new Promise((resolve) => agent!.on('exit', resolve));
    agent.kill('SIGTERM');
    await gone;
  }
  agent = null;
  await device?.close();
  device = null;
});

/** A port nothing listens on: bound, read, closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the agent on `inventory` in a fresh folder; its output accumulates in the answer. */
function startAgent(dir: string, file: string, extra: string[] = []): { out: { stdout: string; stderr: string } } {
  const proc = spawn(process.execPath, [bin, 'agent', '--inventory', file, '--port', '0', '--jitter', '0', '--summary-interval', '0', '--grace', '0', ...extra], {
    env: { PATH: process.env.PATH, DRIVERBOX_DATA_DIR: dir },
  });
  agent = proc;
  const out = { stdout: '', stderr: '' };
  proc.stdout.on('data', (d: Buffer) => (out.stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out.stderr += d.toString()));
  return { out };
}

const lineOf = (text: string, start: string): string | undefined => text.split('\n').find((l) => l.startsWith(start));

describe("the agent's per-run line names the first cause", () => {
  it('a refused connection, an HTTP 401 and an error log each appear on the failed run\'s line', async () => {
    device = await startDeviceServer();
    const dead = await closedPort();
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-agent-messages-'));
    writeFileSync(
      path.join(dir, 'poll.js'),
      `function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/status?code=401' }, function (error, response) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    D.success();
  });
}`,
    );
    writeFileSync(
      path.join(dir, 'logs.js'),
      `function validate() { D.success(); }
function get_status() { console.error('the device said: firmware too old'); D.failure(D.errorType.PARSING_ERROR); }`,
    );
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(
      file,
      [
        'version: 1',
        'devices:',
        `  - { name: dead, ip: 127.0.0.1, portMap: { 80: ${dead} } }`,
        `  - { name: live, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`,
        'drivers:',
        '  - { name: poll, path: poll.js, samplePeriod: 60 }',
        '  - { name: logs, path: logs.js, samplePeriod: 60 }',
        'associations:',
        '  - { driver: poll, device: dead }',
        '  - { driver: poll, device: live }',
        '  - { driver: logs, device: live }',
        '',
      ].join('\n'),
    );
    const { out } = startAgent(dir, file);
    await waitFor('three failed runs', () => ['run poll@dead', 'run poll@live', 'run logs@live'].every((s) => lineOf(out.stderr, s)), 30_000);

    expect(lineOf(out.stderr, 'run poll@dead')).toMatch(
      new RegExp(`^run poll@dead get_status: failure RESOURCE_UNAVAILABLE: the driver called D\\.failure\\(RESOURCE_UNAVAILABLE\\) at poll\\.js:4:\\d+; cause: GET http://127\\.0\\.0\\.1:${dead}/status\\?code=401 failed with ECONNREFUSED(: .+)? \\(\\d+ ms\\)$`),
    );
    expect(lineOf(out.stderr, 'run poll@live')).toMatch(
      new RegExp(`^run poll@live get_status: failure AUTHENTICATION_ERROR: the driver called D\\.failure\\(AUTHENTICATION_ERROR\\) at poll\\.js:5:\\d+; cause: GET http://127\\.0\\.0\\.1:${device.port}/status\\?code=401 answered 401 \\(\\d+ ms\\)$`),
    );
    expect(lineOf(out.stderr, 'run logs@live')).toMatch(/^run logs@live get_status: failure PARSING_ERROR: the driver called D\.failure\(PARSING_ERROR\) at logs\.js:2:\d+; cause: the driver logged: the device said: firmware too old \(\d+ ms\)$/);
  });
});

describe('a SIGHUP reload says what it changed', () => {
  const OK_DRIVER = `function validate() { D.success(); }\nfunction get_status() { D.success(); }\n`;
  function inventory(devices: string[], associations: string[]): string {
    return [
      'version: 1',
      'devices:',
      ...devices.map((d) => `  - { name: ${d}, ip: 127.0.0.1 }`),
      'drivers:',
      '  - { name: poll, path: poll.js, samplePeriod: 60 }',
      '  - { name: other, path: other.js, samplePeriod: 60 }',
      'associations:',
      ...associations.map((a) => `  - ${a}`),
      '',
    ].join('\n');
  }

  it('added, updated and removed associations, devices and drivers by name; "nothing changed" when nothing did', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-agent-messages-'));
    writeFileSync(path.join(dir, 'poll.js'), OK_DRIVER);
    writeFileSync(path.join(dir, 'other.js'), OK_DRIVER);
    const file = path.join(dir, 'inventory.yaml');
    writeFileSync(file, inventory(['a', 'b'], ['{ driver: poll, device: a }', '{ driver: other, device: a }']));
    const { out } = startAgent(dir, file);
    await waitFor('the banner', () => out.stdout.includes('Ctrl-C to stop'), 30_000);

    // A device and its association added, a driver's code changed, an association removed.
    writeFileSync(path.join(dir, 'poll.js'), `${OK_DRIVER}// changed\n`);
    writeFileSync(file, inventory(['a', 'b', 'c'], ['{ driver: poll, device: a }', '{ driver: poll, device: c }']));
    agent!.kill('SIGHUP');
    await waitFor('the reload', () => out.stdout.includes('Reloaded:'), 30_000);
    expect(lineOf(out.stdout, 'Reloaded:')).toBe(
      'Reloaded: added 1 association (poll@c), 1 device (c); updated 1 driver (poll); removed 1 association (other@a) (2 association(s) in the inventory); 2 scheduled.',
    );

    agent!.kill('SIGHUP');
    await waitFor('the second reload', () => out.stdout.split('\n').filter((l) => l.startsWith('Reloaded:')).length === 2, 30_000);
    expect(out.stdout.split('\n').filter((l) => l.startsWith('Reloaded:'))[1]).toBe('Reloaded: nothing changed (2 association(s) in the inventory); 2 scheduled.');
  });
});
