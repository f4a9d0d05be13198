// `driverbox run drv.js --simulate device.json`, through the real bin/driverbox.js: one run against
// a simulator started for it (port map, parameters, certificate from the fixture) and stopped after
// it, with the other run flags (--json, --verbose, --record, credential flags) working as usual.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../host/store/store.js';

const exec = promisify(execFile);
const bin = path.resolve('bin/driverbox.js');
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-run-simulate-'));

function write(name: string, data: unknown): string {
  const file = path.join(work, name);
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data, null, 2));
  return file;
}

/** Runs the CLI; resolves with its exit code and output whatever the code. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1', DRIVERBOX_DATA_DIR: path.join(work, 'data') } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Basic auth over HTTPS, a parameter, and a host name only the simulator knows.
write('device.json', {
  fixture: 1,
  device: { host: 'nas.lab', username: 'admin', password: 'fixture-pass' },
  parameters: { site: 'lab-3' },
  https: true,
  routes: [{ path: '/status', protocol: 'https', auth: 'device', json: { temp: 40 } }],
});
write(
  'driver.js',
  `function get_status() {
  D.device.http.get({ url: '/status', protocol: 'https', auth: 'basic', json: true }, function (error, response, body) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    D.success([D.createVariable('temp', 'Temp', body.temp), D.createVariable('site', 'Site', D.getParameter('site'))]);
  });
}`,
);

/** Whether something accepts connections on this port now. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('driverbox run --simulate', () => {
  it('runs once against a simulator of the fixture (host name, verified certificate, parameters, credentials), then stops it', async () => {
    const { code, stdout } = await cli(['run', 'driver.js', '--simulate', 'device.json', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ status: 'success', variables: [{ uid: 'temp', value: '40' }, { uid: 'site', value: 'lab-3' }] });
    expect(result.http).toHaveLength(1);
    expect(result.http[0]).toMatchObject({ method: 'GET', status: 200 });
    const url = new URL(result.http[0].url);
    expect(url.hostname).toBe('nas.lab');
    expect(await listening(Number(url.port))).toBe(false);
  });

  it('--report writes the result to the store as the fixture\'s device (by its host name, named after the fixture), twice to the same device; no password stored', async () => {
    const file = path.join(work, 'report.db');
    const first = await cli(['run', 'driver.js', '--simulate', 'device.json', '--report', '--store', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr.trim()).toBe(`reported to ${file}: agent 1, device 1 (nas.lab, new), run 1, 2 variables`);
    const second = await cli(['run', 'driver.js', '--simulate', 'device.json', '--report', '--store', file]);
    expect(second.stderr.trim()).toBe(`reported to ${file}: agent 1, device 1 (nas.lab), run 2, 2 variables`);
    const store = await openStore({ path: file });
    try {
      expect(await store.statement('SELECT display_name, ip, host_name FROM devices').all()).toEqual([{ display_name: 'device.json (simulated)', ip: '127.0.0.1', host_name: 'nas.lab' }]);
    } finally {
      await store.close();
    }
    expect(readFileSync(file).includes('fixture-pass')).toBe(false);
  });

  it('flags win over the fixture: a wrong --password fails the run with AUTHENTICATION_ERROR', async () => {
    const { code, stdout } = await cli(['run', 'driver.js', '--simulate', 'device.json', '--password', 'wrong', '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
  });

  it('--verbose shows the exchange with the credentials masked; --record saves a recording that --replay answers from', async () => {
    const verbose = await cli(['run', 'driver.js', '--simulate', 'device.json', '--verbose', '--record', 'nas.rec.json']);
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toContain('driver.js · get_status · simulated: device.json');
    expect(verbose.stdout).toMatch(/GET https:\/\/nas\.lab:\d+\/status → 200/);
    expect(verbose.stdout).toContain('< content-type: application/json');
    expect(verbose.stdout).not.toContain('fixture-pass');
    expect(verbose.stdout).not.toContain(Buffer.from('admin:fixture-pass').toString('base64'));
    expect(verbose.stderr).toContain(`recorded to ${path.join(work, 'nas.rec.json')}`);
    expect(readFileSync(path.join(work, 'nas.rec.json'), 'utf8')).not.toContain('fixture-pass');
    const replayed = await cli(['run', 'driver.js', '--replay', 'nas.rec.json', '--json']);
    // A recording keeps no parameters (they may hold keys): the device's answer is what it replays.
    expect(JSON.parse(replayed.stdout)).toMatchObject({ status: 'success', variables: [{ uid: 'temp', value: '40' }, { uid: 'site', value: null }] });
  });

  it("serves the external hosts in hosts/<name>.json beside the fixture (the cloud example, as npm start runs it)", async () => {
    const example = path.resolve('drivers-examples/cloud-energy');
    expect(existsSync(path.join(example, 'hosts'))).toBe(true);
    const { code, stdout } = await cli(['run', path.join(example, 'driver.js'), '--simulate', path.join(example, 'device.json'), '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'success' });
    expect(code).toBe(0);
  });

  it.each([
    [['--device-ip', '10.0.0.7'], '--simulate and --device-ip cannot be used together: the simulator is the device, on ports it chooses'],
    [['--port-map', '80=8080'], '--simulate and --port-map cannot be used together'],
    [['--replay', 'nas.rec.json'], '--simulate and --replay cannot be used together: the simulator is the device, a replay answers without one'],
  ])('%j with --simulate: exit 2', async (flags, message) => {
    const { code, stderr } = await cli(['run', 'driver.js', '--simulate', 'device.json', ...flags]);
    expect(code).toBe(2);
    expect(stderr).toContain(`driverbox run: ${message}`);
  });

  it('a bad fixture: exit 2 with its problems', async () => {
    write('bad.json', { fixture: 1, routes: [{ path: 'status' }] });
    const { code, stderr } = await cli(['run', 'driver.js', '--simulate', 'bad.json']);
    expect(code).toBe(2);
    expect(stderr).toContain(`fixture ${path.join(work, 'bad.json')}`);
    expect(stderr).toContain('routes[0].path: must be a path starting with "/"');
  });
});
