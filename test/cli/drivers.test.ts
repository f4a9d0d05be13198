// `driverbox drivers add | list` against a real store file, then read back through the store and
// a Monitoring API server over that same file, called through main() as the CLI calls it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseParamFlag } from '../../host/cli/commands/drivers.js';
import { main } from '../../host/cli/main.js';
import { type CliIo } from '../../host/cli/io.js';
import { startMonitoringServer } from '../../host/api/monitoring/server.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { listCustomDrivers } from '../../host/store/drivers/custom-drivers.js';
import { openStore } from '../../host/store/index.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-drivers-cli-'));
const pdu = path.resolve('drivers-examples/pdu-outlets/driver.js');

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), cwd: work, env: { NO_COLOR: '1', ...env }, stdoutStream: {} };
  const code = await main(['drivers', ...argv], io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** A usage mistake: exit 2 and the message on stderr. */
async function expectUsage(argv: string[], message: string): Promise<void> {
  const result = await run(argv);
  expect(result.code, argv.join(' ')).toBe(2);
  expect(result.stderr, argv.join(' ')).toContain(message);
}

describe('driverbox drivers add', () => {
  const store = path.join(work, 'lib.db');

  it('adds a driver with parameters, named after its folder, and lists it', async () => {
    const added = await run(['add', pdu, '--param', 'outlet:NUMBER=2', '--param', 'zones:list=a,b', '--min-sample-period', '600', '--store', store]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('added custom driver 1 "pdu-outlets", version 1: valid');
    expect(added.stdout).toContain('action 2: Switch Outlet Off (line 75)');
    expect(added.stdout).toContain('parameter 1 outlet: NUMBER = 2');
    expect(added.stdout).toContain('parameter 2 zones: LIST = ["a","b"]');
    expect(added.stdout).toContain('minimal sample period 600 s; requires credentials');

    const listed = await run(['list', '--store', store]);
    expect(listed.stdout.split('\n')).toEqual([
      'ID  NAME         VERSION  VALID  ACTIONS                                                        DEVICES',
      '1   pdu-outlets  1        yes    1 Power-cycle Outlet, 2 Switch Outlet Off, 3 Switch Outlet On',
    ]);
    const json = JSON.parse((await run(['list', '--json', '--store', store])).stdout);
    expect(json).toEqual([expect.objectContaining({ id: 1, name: 'pdu-outlets', is_valid: true, minimal_sample_period: 600, device_ids: [] })]);
  });

  it('stores the driver where driverbox serve reads it', async () => {
    const db = await openStore({ path: store, secretKey: null });
    const server = await startMonitoringServer({ store: db, apiKeys: ['k'] });
    const client = new MonitoringClient({ baseUrl: server.url, apiKey: 'k' });
    try {
      const details = await client.getCustomDriver(1);
      expect(details.parameters?.map((p) => [p.name, p.value_type, p.default_value])).toEqual([
        ['outlet', 'NUMBER', 2],
        ['zones', 'LIST', ['a', 'b']],
      ]);
    } finally {
      await client.close();
      await server.close();
      await db.close();
    }
  });

  it('refuses a second driver of the same name; --update stores a new version', async () => {
    const again = await run(['add', pdu, '--store', store]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe('driverbox drivers add: a custom driver named "pdu-outlets" already exists (id 1)');
    const edited = path.join(work, 'pdu-outlets.js');
    writeFileSync(edited, 'function validate() { D.success(); }\nfunction get_status() { D.success(); }\n');
    const updated = await run(['add', edited, '--update', '--store', store]);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain('updated custom driver 1 "pdu-outlets", version 2: valid');
    const db = await openStore({ path: store, secretKey: null });
    const [driver] = await listCustomDrivers(db);
    await db.close();
    expect(driver).toMatchObject({ version: 2, minimalSamplePeriod: 600 });
    expect(driver!.parameters.map((p) => p.name)).toEqual(['outlet', 'zones']); // kept: --param not given
  });

  it('stores invalid code with its errors and exits 1', async () => {
    const broken = path.join(work, 'broken.js');
    writeFileSync(broken, 'function validate() {}\nfunction get_status() {\n  return (;\n}\n');
    const result = await run(['add', broken, '--store', store]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('added custom driver 2 "broken", version 1: INVALID');
    expect(result.stderr).toContain(`${broken}:3: SyntaxError: Unexpected token ';' at driver.js:3:11`);
    expect(result.stderr).toContain('the driver is stored but cannot run until its code is fixed');
  });

  it('uses the default store of DRIVERBOX_DATA_DIR', async () => {
    const dataDir = path.join(work, 'data');
    const result = await run(['add', pdu, '--name', 'PDU', '--no-credentials'], { DRIVERBOX_DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('does not require credentials');
    expect((await run(['list'], { DRIVERBOX_DATA_DIR: dataDir })).stdout).toContain('PDU');
    const empty = await run(['list'], { DRIVERBOX_DATA_DIR: path.join(work, 'empty') });
    expect(empty.stdout).toBe(`the library of ${path.join(work, 'empty', 'driverbox.db')} holds no custom driver; add one with driverbox drivers add <driver.js>`);
  });

  it('names the mistake in its usage errors', async () => {
    await expectUsage(['add', '--store', store], 'drivers add needs one driver file: driverbox drivers add <driver.js>');
    await expectUsage(['add', path.join(work, 'nope.js')], `cannot read driver file ${path.join(work, 'nope.js')}: no such file`);
    await expectUsage(['add', pdu, '--param', 'outlet'], '--param expects name:TYPE or name:TYPE=default');
    await expectUsage(['add', pdu, '--param', 'outlet:BOOL'], '--param outlet: type must be one of STRING, NUMBER, LIST (got "BOOL")');
    await expectUsage(['add', pdu, '--param', 'outlet:NUMBER=two'], '--param outlet: a NUMBER default must be a number (got "two")');
    await expectUsage(['add', pdu, '--name', 'x', '--min-sample-period', '42', '--store', store], 'minimal_sample_period: must be one of 300, 600');
    await expectUsage(['add', pdu, '--requires-credentials', '--no-credentials'], 'not both');
    await expectUsage(['remove'], 'unknown drivers command "remove"');
    expect((await run([])).code).toBe(2);
    expect((await run(['add', '--help'])).stdout).toContain('Usage: driverbox drivers add <driver.js> [options]');
  });

  it('parses --param values by type', () => {
    expect(parseParamFlag('site:STRING=lab 3')).toEqual({ name: 'site', valueType: 'STRING', defaultValue: 'lab 3' });
    expect(parseParamFlag('hosts:LIST=')).toEqual({ name: 'hosts', valueType: 'LIST', defaultValue: [] });
    expect(parseParamFlag('port:number')).toEqual({ name: 'port', valueType: 'NUMBER', defaultValue: null });
  });
});
