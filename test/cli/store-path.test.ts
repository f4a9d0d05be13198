// Issue 19, item 3: every command finds the store the same way. With DRIVERBOX_STORE set, the
// real CLI's `run --report`, `drivers add`, `drivers list` and `serve` all use that one file,
// and nothing goes to the data folder.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startSimulator, type Simulator } from '../../host/simulator/simulator.js';
import { startServe } from '../helpers/serve-process.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-store-path-'));
const API_KEY = 'store-path-test-key';

const cli = (args: string[], env: Record<string, string>) => runBin(args, { cwd: work, env });

const driver = path.join(work, 'router.js');
writeFileSync(
  driver,
  `function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/info' }, function (err, res, body) {
    if (err) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    D.success([D.createVariable('model', 'Model', JSON.parse(body).model)]);
  });
}
`,
);

describe('DRIVERBOX_STORE', () => {
  let device: Simulator;
  beforeAll(async () => {
    device = await startSimulator({ fixture: 1, routes: [{ path: '/info', json: { model: 'RX-9' } }] });
  });
  afterAll(() => device.close());

  it('is the store of run --report, drivers add, drivers list and serve alike', async () => {
    const store = path.join(work, 'shared', 'lab.db');
    const dataDir = path.join(work, 'data');
    const env = { DRIVERBOX_STORE: store, DRIVERBOX_DATA_DIR: dataDir, DRIVERBOX_API_KEYS: API_KEY, DRIVERBOX_SECRET_KEY: 'store-path-secret' };

    const reported = await cli(['run', driver, '--device-ip', '127.0.0.1', '--port-map', `80=${device.httpPort}`, '--report'], env);
    expect(reported.code, reported.stderr).toBe(0);
    expect(reported.stderr).toContain(`reported to ${store}: agent 1, device 1 (127.0.0.1, new), run 1, 1 variable`);

    const added = await cli(['drivers', 'add', driver], env);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('added custom driver 1 "router", version 1: valid');

    const listed = await cli(['drivers', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 1, name: 'router' })]);

    const served = await startServe(['--quiet'], env);
    try {
      expect(served.output()).toMatch(new RegExp(`store +${store.replaceAll('.', '\\.')}\\n`));
      const get = async (url: string) => {
        const response = await fetch(`${served.url}/public-api/v1${url}`, { headers: { 'X-Api-Key': API_KEY } });
        expect(response.status, url).toBe(200);
        return response.json() as Promise<Array<Record<string, unknown>>>;
      };
      const devices = await get('/agent/1/device');
      expect(devices.map((d) => d.ip_addresses)).toEqual([['127.0.0.1']]);
      const variables = await get('/agent/1/device/variable');
      expect(variables.map((v) => [v.path, v.value])).toEqual([['model', 'RX-9']]);
      const drivers = await get('/custom-driver');
      expect(drivers.map((d) => d.name)).toEqual(['router']);
    } finally {
      await served.stop();
    }
    // Nothing went to the data folder's default store.
    expect(existsSync(path.join(dataDir, 'driverbox.db'))).toBe(false);
  });

  it('--store wins over DRIVERBOX_STORE, which wins over DRIVERBOX_DATA_DIR', async () => {
    const fromEnv = path.join(work, 'env.db');
    const fromFlag = path.join(work, 'flag.db');
    const env = { DRIVERBOX_STORE: fromEnv, DRIVERBOX_DATA_DIR: path.join(work, 'data2') };
    const listed = await cli(['drivers', 'list', '--store', fromFlag], env);
    expect(listed.stdout).toContain(`the library of ${fromFlag} holds no custom driver`);
    const viaEnv = await cli(['drivers', 'list'], env);
    expect(viaEnv.stdout).toContain(`the library of ${fromEnv} holds no custom driver`);
    const viaDataDir = await cli(['drivers', 'list'], { DRIVERBOX_DATA_DIR: path.join(work, 'data2') });
    expect(viaDataDir.stdout).toContain(`the library of ${path.join(work, 'data2', 'driverbox.db')} holds no custom driver`);
  });
});
