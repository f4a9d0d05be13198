// The driverbox CLI as a user calls it (a spawned process): run, its exit codes, its text and --json output, and its usage errors.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../host/simulator/simulator.js';
import { openStore } from '../../host/store/store.js';

const exec = promisify(execFile);
const bin = path.resolve('bin/driverbox.js');
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-'));

function write(name: string, text: string): string {
  const file = path.join(work, name);
  writeFileSync(file, text);
  return file;
}

/** Runs the real CLI (without --no-node-snapshot: the launcher must add it). */
async function cli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [bin, ...args], {
      cwd: options.cwd ?? work,
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...options.env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const deviceDriver = `
/**
 * @remote_procedure
 * @label Get Status
 * @documentation Reads /info with basic auth.
 */
function get_status() {
  D.device.http.get({ url: '/info', auth: 'basic' }, function (err, res, body) {
    if (err) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (res.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    var info = JSON.parse(body);
    console.warn('param site = ' + D.getParameter('site'));
    D.success([D.createVariable('name', 'Name', info.name), D.createVariable('ip', 'IP', D.device.ip())]);
  });
}
/**
 * @remote_procedure
 * @label Reboot
 * @documentation Restarts the device.
 */
function custom_1() { D.success(); }
function validate() { D.success(); }
`;

describe('driverbox CLI', () => {
  let device: Simulator;
  beforeAll(async () => {
    device = await startSimulator({
      fixture: 1,
      routes: [{ path: '/info', auth: { username: 'admin', password: 's3cret' }, json: { name: 'router-7' } }],
    });
  });
  afterAll(() => device.close());

  it('runs a driver against a device and exits 0, printing one JSON object with --json', async () => {
    const driver = write('device-driver.js', deviceDriver);
    const params = write('params.json', JSON.stringify({ site: 'lab' }));
    const { code, stdout } = await cli(['run', driver, '--device-ip', '127.0.0.1', '--username', 'admin', '--password', 's3cret', '--port-map', `80=${device.httpPort}`, '--params', params, '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ status: 'success', errorType: null, message: null });
    expect(result.variables).toEqual([
      { uid: 'name', label: 'Name', value: 'router-7', unit: null, valueType: 'STRING' },
      { uid: 'ip', label: 'IP', value: '127.0.0.1', unit: null, valueType: 'STRING' },
    ]);
    expect(result.logs).toEqual([{ level: 'warn', message: 'param site = lab' }]);
    expect(typeof result.durationMs).toBe('number');
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });

  it('reads DEVICE_IP / DEVICE_USERNAME / DEVICE_PASSWORD from a .env file, the environment winning', async () => {
    const dir = mkdtempSync(path.join(work, 'envdir-'));
    writeFileSync(path.join(dir, '.env'), `# device\nDEVICE_IP=127.0.0.1\nDEVICE_USERNAME="admin"\nDEVICE_PASSWORD=wrong\n`);
    writeFileSync(path.join(dir, 'd.js'), deviceDriver);
    const failed = await cli(['run', 'd.js', '--port-map', `80=${device.httpPort}`, '--json'], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout).errorType).toBe('AUTHENTICATION_ERROR');
    const ok = await cli(['run', 'd.js', '--port-map', `80=${device.httpPort}`, '--json'], { cwd: dir, env: { DEVICE_PASSWORD: 's3cret' } });
    expect(ok.code).toBe(0);
  });

  it('prints variables as an aligned table with logs and the duration', async () => {
    const driver = write('human.js', deviceDriver);
    const { code, stdout } = await cli(['run', driver, '--device-ip', '127.0.0.1', '--username', 'admin', '--password', 's3cret', '--port-map', `80=${device.httpPort}`]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/✔ success in [\d.]+ ms/);
    expect(stdout).toMatch(/UID\s+LABEL\s+VALUE\s+UNIT\s+TYPE/);
    expect(stdout).toMatch(/name\s+Name\s+router-7\s+STRING/);
    expect(stdout).toMatch(/\[warn\]\s+param site = undefined/);
    expect(stdout).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/info → 200/);
  });

  it('exits 1 with the error type when the driver fails, and shows warnings', async () => {
    const driver = write('fails.js', `function get_status(){ D.failure(D.errorType.PARSING_ERROR); D.success(); }`);
    const { code, stdout } = await cli(['run', driver]);
    expect(code).toBe(1);
    expect(stdout).toContain('✖ failure: PARSING_ERROR');
    expect(stdout).toContain('D.success came after the run had already ended with D.failure');
  });

  it('reports a syntax error with the line and column of the driver', async () => {
    const driver = write('broken.js', `function get_status() {\n  var x = ;\n}\n`);
    const { code, stdout } = await cli(['run', driver, '--json']);
    expect(code).toBe(1);
    const result = JSON.parse(stdout);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toContain('broken.js:2:11');
  });

  it('--resolve and --ca: a driver dials the device by name over verified HTTPS, with no DNS entry', async () => {
    const sim = await startSimulator({
      fixture: 1,
      device: { host: 'nas.lab' },
      https: true,
      routes: [{ path: '/api', protocol: 'https', json: { model: 'N-2' } }],
    });
    try {
      const ca = write('sim-ca.pem', sim.certificatePem!);
      const driver = write(
        'tls-get.js',
        `function get_status() {
          D.device.http.get({ url: '/api', protocol: 'https', json: true }, function (error, response, body) {
            if (error) { console.error(error.code); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
            D.success([D.createVariable('model', 'Model', body.model)]);
          });
        }`,
      );
      const args = ['run', driver, '--device-host', 'nas.lab', '--resolve', `nas.lab=127.0.0.1,443=${sim.httpsPort}`, '--json'];
      const trusted = await cli([...args, '--ca', ca]);
      expect(trusted.code, trusted.stdout).toBe(0);
      expect(JSON.parse(trusted.stdout).variables).toEqual([{ uid: 'model', label: 'Model', value: 'N-2', unit: null, valueType: 'STRING' }]);
      const untrusted = await cli(args);
      expect(untrusted.code).toBe(1);
      expect(JSON.parse(untrusted.stdout).logs[0].message).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      await sim.close();
    }
  });

  it('runs the action given with --action', async () => {
    const driver = write('actions.js', deviceDriver);
    const { code, stdout } = await cli(['run', driver, '--action', 'custom_1', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).action).toBe('custom_1');
  });

  it.each([
    [['run'], /needs a driver file/],
    [['run', 'missing.js'], /driver file not found: .*missing\.js/],
    [['run', 'x.js', '--bogus'], /^driverbox run: unknown option --bogus\n/],
    [['run', 'x.js', '--timeout', 'soon'], /--timeout must be an integer/],
    [['run', 'x.js', '--port-map', '80:8080'], /--port-map expects FROM=TO/],
    [['run', 'x.js', '--resolve', 'api.example'], /--resolve expects NAME=IP, optionally followed by port pairs/],
    [['run', 'x.js', '--resolve', 'api.example=127.0.0.1,443:8443'], /--resolve expects FROM=TO pairs of ports/],
    [['run', 'x.js', '--ca', 'nowhere.pem'], /--ca: cannot read .*nowhere\.pem: no such file/],
    [['frobnicate'], /unknown command "frobnicate"/],
  ])('exits 2 with a clear message for %j', async (args, message) => {
    write('x.js', 'function get_status(){ D.success(); }');
    const { code, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('exits 2 for an unknown action and for a params file that is not JSON', async () => {
    const driver = write('ok.js', 'function get_status(){ D.success(); }');
    const unknown = await cli(['run', driver, '--action', 'reboot']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown action "reboot"');
    const bad = write('bad.json', '{ "site": ');
    const params = await cli(['run', driver, '--params', bad]);
    expect(params.code).toBe(2);
    expect(params.stderr).toContain(`--params: ${bad}:1:11: not valid JSON: Unexpected end of JSON input`);
  });

  it('lists entry points with their @label and @documentation', async () => {
    const driver = write('list.js', deviceDriver);
    const { code, stdout } = await cli(['actions', driver, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([
      { name: 'validate', label: null, documentation: null, remoteProcedure: false, line: 22 },
      { name: 'get_status', label: 'Get Status', documentation: 'Reads /info with basic auth.', remoteProcedure: true, line: 7 },
      { name: 'custom_1', label: 'Reboot', documentation: 'Restarts the device.', remoteProcedure: true, line: 21 },
    ]);
    const text = await cli(['actions', driver]);
    expect(text.stdout).toMatch(/custom_1\s+Reboot\s+Restarts the device\./);
  });

  it('demo runs every example driver against its simulated device and stores the results', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'driverbox-demo-'));
    const { code, stdout } = await cli(['demo'], { env: { DRIVERBOX_DATA_DIR: dataDir } });
    expect(code).toBe(0);
    const examples = Number(/(\d+) of \1 example drivers succeeded/.exec(stdout)?.[1]);
    expect(examples).toBeGreaterThanOrEqual(8);
    expect(stdout).toMatch(/battery\s+Battery charge\s+97\.5\s+%\s+NUMBER/);
    const stored = new RegExp(`Stored in ${path.join(dataDir, 'driverbox.db')}: agent "driverbox demo" \\(id (\\d+)\\), (\\d+) devices, (\\d+) variables`).exec(stdout);
    expect(stored?.[2]).toBe(String(examples));
    // Under the Enterprise Plan, with agent variables: every operation answers for the demo's agent.
    expect(stdout).toContain('The agent is under the Enterprise Plan: 2 agent variables');
    expect(stdout).toMatch(/, 0 applications\n/);
    // A second demo updates the same devices and variables instead of adding more.
    const again = await cli(['demo'], { env: { DRIVERBOX_DATA_DIR: dataDir } });
    expect(again.stdout).toContain(stored![0]);
    const store = await openStore({ path: path.join(dataDir, 'driverbox.db') });
    const runs = await store.statement('SELECT count(*) AS n FROM runs').get() as { n: number };
    // Configuration-management examples also run backup(): an unchanged configuration is stored once.
    const configurations = await store.statement('SELECT count(*) AS n FROM device_configurations').get() as { n: number };
    await store.close();
    const backups = (stdout.match(/ · backup · simulated/g) ?? []).length;
    expect(backups).toBeGreaterThanOrEqual(1);
    expect(runs.n).toBe((examples + backups) * 2);
    expect(configurations.n).toBe(backups);
  }, 120_000); // two demos, each starting 14 simulated devices and a sandbox
});
