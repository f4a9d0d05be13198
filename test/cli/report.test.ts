// `driverbox run … --report [--store]`: the real CLI against a simulated device, writing the
// result into a store file that the test then reads back.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startSimulator, type Simulator } from '../../host/simulator/simulator.js';
import { listActivity } from '../../host/store/fleet/activity-log.js';
import { openStore } from '../../host/store/index.js';
import { listDeviceRuns } from '../../host/store/runs/runs.js';
import { listVariables } from '../../host/store/results/variables.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-report-'));
const PASSWORD = 'pw-9f3c1d7e-never-stored';

const cli = (args: string[], env: Record<string, string> = {}) => runBin(args, { cwd: work, env });

const driver = path.join(work, 'info.js');
writeFileSync(
  driver,
  `function get_status() {
  D.device.http.get({ url: '/info', auth: 'basic' }, function (err, res, body) {
    if (err) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (res.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    D.success([D.createVariable('name', 'Name', JSON.parse(body).name), D.createVariable('ip', 'IP', D.device.ip())]);
  });
}
`,
);

/** The variables of the store's one device, by path. */
async function storedVariables(file: string) {
  const store = await openStore({ path: file });
  try {
    const device = await store.statement('SELECT id, agent_id FROM devices').all() as Array<{ id: number; agent_id: number }>;
    expect(device).toHaveLength(1);
    const vars = await listVariables(store, { kind: 'device', agentId: device[0]!.agent_id, deviceId: device[0]!.id }, { limit: 100, offset: 0, sortBy: 'path' });
    return {
      vars: Object.fromEntries(vars.map((v) => [v.path, v])),
      runs: await listDeviceRuns(store, device[0]!.id),
      activity: await listActivity(store, device[0]!.agent_id, { from: 0, to: Date.now() + 1000 }),
      credentials: (await store.statement('SELECT count(*) AS n FROM device_credentials').get() as { n: number }).n,
    };
  } finally {
    await store.close();
  }
}

describe('driverbox run --report', () => {
  let device: Simulator;
  beforeAll(async () => {
    device = await startSimulator({ fixture: 1, routes: [{ path: '/info', auth: { username: 'admin', password: PASSWORD }, json: { name: 'router-7' } }] });
  });
  afterAll(() => device.close());
  const deviceArgs = () => ['--device-ip', '127.0.0.1', '--port-map', `80=${device.httpPort}`, '--username', 'admin'];

  it('writes the result to --store, says where, and keeps the device for the next run; the password is not stored', async () => {
    const file = path.join(work, 'one', 'results.db');
    const ok = await cli(['run', driver, ...deviceArgs(), '--password', PASSWORD, '--report', '--store', file, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).status).toBe('success'); // stdout stays one JSON object
    expect(ok.stderr.trim()).toBe(`reported to ${file}: agent 1, device 1 (127.0.0.1, new), run 1, 2 variables`);
    const first = await storedVariables(file);
    expect(first.vars.name).toMatchObject({ value: 'router-7', label: 'Name', hasHistory: true });
    expect(first.vars.ip!.value).toBe('127.0.0.1');

    // A failed run: recorded, variables untouched, exit code 1.
    const failed = await cli(['run', driver, ...deviceArgs(), '--password', 'wrong', '--report', '--store', file]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`reported to ${file}: agent 1, device 1 (127.0.0.1), run 2, 0 variables`);
    const second = await storedVariables(file);
    expect(second.vars.name).toEqual(first.vars.name);
    expect(second.runs.map((r) => [r.outcome, r.errorType, r.driverName])).toEqual([
      ['failure', 'AUTHENTICATION_ERROR', 'info.js'],
      ['success', null, 'info.js'],
    ]);
    expect(second.activity.map((e) => [e.type, e.user, e.description])).toEqual([
      ['custom_driver_execute', 'driverbox run', 'info.js get_status: success, 2 variables'],
      ['custom_driver_execute', 'driverbox run', 'info.js get_status: failure (AUTHENTICATION_ERROR: the driver called D.failure(AUTHENTICATION_ERROR) at info.js:4:42)'],
    ]);
    expect(second.credentials).toBe(0);
    for (const part of [file, `${file}-wal`]) {
      if (existsSync(part)) expect(readFileSync(part).includes(PASSWORD), part).toBe(false);
    }
  });

  it('uses driverbox.db in the data folder without --store', async () => {
    const dataDir = path.join(work, 'data');
    const { code, stderr } = await cli(['run', driver, ...deviceArgs(), '--password', PASSWORD, '--report'], { DRIVERBOX_DATA_DIR: dataDir });
    expect(code).toBe(0);
    const file = path.join(dataDir, 'driverbox.db');
    expect(stderr).toContain(`reported to ${file}:`);
    expect((await storedVariables(file)).vars.name!.value).toBe('router-7');
  });

  it('refuses, before running, --report without a device address, --store without --report, and a store it cannot open', async () => {
    const noAddress = await cli(['run', driver, '--report', '--store', path.join(work, 'x.db')]);
    expect(noAddress.code).toBe(2);
    expect(noAddress.stderr).toContain('--report needs the device address (--device-ip or --device-host)');
    expect(existsSync(path.join(work, 'x.db'))).toBe(false);

    const storeOnly = await cli(['run', driver, ...deviceArgs(), '--store', path.join(work, 'y.db')]);
    expect(storeOnly.code).toBe(2);
    expect(storeOnly.stderr).toContain('--store is only used with --report');

    const blocker = path.join(work, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const unopenable = await cli(['run', driver, ...deviceArgs(), '--report', '--store', path.join(blocker, 'z.db')]);
    expect(unopenable.code).toBe(2);
    expect(unopenable.stderr).toContain(`--report: cannot open the store at ${path.join(blocker, 'z.db')}`);
    expect(unopenable.stdout).toBe(''); // the driver did not run
  });
});
