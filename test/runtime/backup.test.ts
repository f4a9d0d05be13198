// Configuration backups: the backup() entry point and D.createBackup's rules through
// createHost().run, the host's own check of what the runtime reports, `driverbox run --action
// backup` (text, --json, --report) and `actions`, and the store's configuration history.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runAssociation } from '../../host/agent/association-run.js';
import { InventoryError, parseInventory, syncInventory } from '../../host/agent/inventory/index.js';
import { createAgentRecord } from '../../host/store/fleet/agents.js';
import { getConfiguration, listConfigurations, MAX_CONFIGURATIONS_PER_DEVICE, md5 } from '../../host/store/results/configurations.js';
import { setDeviceCredentials } from '../../host/store/fleet/credentials.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { openDatabase } from '../../host/store/db/better-sqlite3.js';
import { sqliteKysely } from '../../host/store/db/database.js';
import { checkRunEnd } from '../../host/engine/isolate/check-report.js';
import { openStore } from '../../host/store/index.js';
import { migrate, migrations, SCHEMA_VERSION, schemaVersion } from '../../host/store/db/migrations.js';
import { writeRunResult } from '../../host/store/runs/report-run.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource, useHost } from '../helpers/host.js';
import { runCli } from '../helpers/cli.js';
import { openTestStore, rawMigration } from '../helpers/store.js';

const host = useHost();
const MiB = 1048576;
const drv = (body: string) => `function validate() { D.success(); }\nfunction get_status() { D.success(); }\nfunction backup() {\n${body}\n}\n`;
const backupRun = (body: string) => runSource(host, drv(body), { action: 'backup' });

describe('D.createBackup and backup()', () => {
  it('backup() reports running and startup with their sizes; the label defaults', async () => {
    const r = await backupRun(`D.success(D.createBackup({ label: 'Core', running: 'hostname sw1\\nvlan 10 name café\\n', startup: 'hostname sw0\\n' }));`);
    expect(r).toMatchObject({ status: 'success', action: 'backup', warnings: [] });
    expect(r.backup).toEqual({ label: 'Core', running: 'hostname sw1\nvlan 10 name café\n', startup: 'hostname sw0\n', runningBytes: Buffer.byteLength('hostname sw1\nvlan 10 name café\n'), startupBytes: 13 });
    expect(r.backup!.runningBytes).toBe(r.backup!.running.length + 1); // é is two bytes
    const plain = await backupRun(`var b = D.createBackup({ running: 'x' }); console.log(JSON.stringify(b)); D.success(b);`);
    expect(plain.logs[0]!.message).toBe('{"label":"Custom Driver Configuration Backup","running":"x","startup":null,"type":"backup"}');
    expect(plain.backup).toEqual({ label: 'Custom Driver Configuration Backup', running: 'x', startup: null, runningBytes: 1, startupBytes: null });
  });

  it("throws the platform's errors into the driver: running required and a string, 1 MiB each, startup a string or nothing", async () => {
    const r = await backupRun(`
      var tries = [undefined, null, 'text', {}, { running: 5 }, { running: 'x'.repeat(${MiB + 1}) }, { running: 'x', startup: 3 },
                   { running: 'x', startup: 'y'.repeat(${MiB + 1}) }, { running: 'x', label: 7 }];
      tries.forEach(function (t) { try { D.createBackup(t); console.log('accepted'); } catch (e) { console.log(e.name + ': ' + e.message); } });
      D.createBackup({ running: 'x'.repeat(${MiB}), startup: 'y'.repeat(${MiB}) });
      D.success();`);
    expect(r.logs.map((l) => l.message)).toEqual([
      'Error: Invalid configuration backup object - it must not be null or undefined',
      'Error: Invalid configuration backup object - it must not be null or undefined',
      'TypeError: Invalid configuration backup object - it must be an object with label, running and startup, not string',
      'TypeError: Invalid running configuration backup content - it must be string and not undefined',
      'TypeError: Invalid running configuration backup content - it must be string and not number',
      `RangeError: Maximum running configuration backup size exceeded: allowed ${MiB} bytes, provided ${MiB + 1}`,
      'TypeError: Invalid startup configuration backup content - it must be string, null or undefined and not number',
      `RangeError: Maximum startup configuration backup size exceeded: allowed ${MiB} bytes, provided ${MiB + 1}`,
      'TypeError: Invalid configuration backup label - it must be a string and not number',
    ]);
    // 1 MiB exactly passes; backup() that succeeds without a backup is warned about.
    expect(r.status).toBe('success');
    expect(r.backup).toBeUndefined();
    expect(r.warnings).toEqual([expect.stringMatching(/^backup\(\) succeeded without a configuration/)]);
  });

  it('an uncaught createBackup error ends the run as GENERIC_ERROR with the driver line', async () => {
    const r = await backupRun(`D.success(D.createBackup({ label: 'x' }));`);
    expect(r).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR' });
    expect(r.message).toMatch(/^TypeError: Invalid running configuration backup content - it must be string and not undefined\n\s+at backup \(driver\.js:4/);
  });

  it('D.success checks the backup again: changed after createBackup, or built by hand', async () => {
    const changed = await backupRun(`var b = D.createBackup({ running: 'ok' }); b.running = ['not', 'text']; D.success(b);`);
    expect(changed).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR' });
    expect(changed.message).toMatch(/^D\.success: TypeError: Invalid running configuration backup content - it must be string and not array/);
    const byHand = await backupRun(`D.success({ type: 'backup', label: 'hand', running: 'cfg' });`);
    expect(byHand.backup).toMatchObject({ label: 'hand', running: 'cfg', startup: null });
    const long = await backupRun(`D.success(D.createBackup({ label: 'L'.repeat(300), running: 'cfg' }));`);
    expect(long.backup!.label).toBe('L'.repeat(255));
    expect(long.warnings).toEqual(['D.createBackup: the label has 300 characters; it was cut to 255']);
  });

  it('two backups in one D.success: the first is kept; a second D.success is ignored; variables may come along', async () => {
    const r = await backupRun(`
      D.success(D.createBackup({ label: 'one', running: 'a' }), D.createBackup({ label: 'two', running: 'b' }));
      D.success(D.createBackup({ label: 'three', running: 'c' }));`);
    expect(r.backup!.label).toBe('one');
    expect(r.warnings).toEqual([
      'D.success was given two configuration backups; only the first one is kept',
      'D.success came after the run had already ended with D.success; it was ignored (the first outcome wins)',
    ]);
    const withVars = await backupRun(`D.success([D.createVariable('lines', 'Lines', 2)], D.createBackup({ running: 'a\\nb' }));`);
    expect(withVars.variables.map((v) => v.uid)).toEqual(['lines']);
    expect(withVars.backup!.running).toBe('a\nb');
  });

  it('a failure carries no backup; an exception in the driver after createBackup is the uncaught error', async () => {
    const failed = await backupRun(`D.createBackup({ running: 'a' }); D.failure(D.errorType.AUTHENTICATION_ERROR);`);
    expect(failed).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    expect(failed.backup).toBeUndefined();
  });

  it('the host refuses a forged report: a backup too large, of the wrong type, or on a failure', () => {
    const base = { status: 'success', errorType: null, message: null, variables: [], tables: [] };
    const bounds = { maxVariables: 10, maxTableRows: 10 };
    expect(checkRunEnd({ ...base, backup: { label: 'a', running: 'x'.repeat(MiB + 1), startup: null } }, bounds)).toMatch(/^backup\.running must be a string of 0 to 1048576 characters/);
    expect(checkRunEnd({ ...base, backup: { label: 'a', running: 'x', startup: 5 } }, bounds)).toMatch(/^backup\.startup must be a string/);
    expect(checkRunEnd({ ...base, backup: { label: '', running: 'x', startup: null } }, bounds)).toMatch(/^backup\.label must be a string of 1 to 255/);
    expect(checkRunEnd({ ...base, backup: 'cfg' }, bounds)).toBe('backup must be an object (got "cfg")');
    expect(checkRunEnd({ ...base, status: 'failure', errorType: 'GENERIC_ERROR', backup: { label: 'a', running: 'x', startup: null } }, bounds)).toBe('a failure carries no backup');
    // Rebuilt from the checked fields only.
    const ok = checkRunEnd({ ...base, backup: { label: 'a', running: 'x', startup: null, extra: { deep: 1 } } }, bounds);
    expect(ok).toEqual({ ...base, backup: { label: 'a', running: 'x', startup: null } });
  });

  it('the host refuses a backup the driver forges past the runtime (toJSON on Object.prototype)', async () => {
    const r = await backupRun(`
      var big = 'x'.repeat(${MiB + 10});
      Object.prototype.toJSON = function () { return this && this.type === 'backup' ? { label: 'f', running: big, startup: null } : this; };
      D.success(D.createBackup({ running: 'small' }));`);
    // Whatever the driver made the runtime send, nothing over the bound reaches the result.
    if (r.status === 'success') expect(r.backup!.running.length).toBeLessThanOrEqual(MiB);
    else expect(r.message).toMatch(/refused|could not be sent/);
  });

  it('an unknown action still names backup among the known ones', async () => {
    await expect(runSource(host, drv(''), { action: 'restore' })).rejects.toThrow(/use validate, get_status, backup or custom_1/);
  });
});

describe('driverbox run --action backup, actions', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'driverbox-backup-'));
  const file = path.join(work, 'switch.js');
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\\n');
  writeFileSync(
    file,
    `function validate() { D.success(); }
function get_status() { D.success(); }
/**
 * @label Backup Configuration
 * @documentation Saves the running configuration
 */
function backup() { D.success(D.createBackup({ label: 'sw1 running', running: '${lines}\\n', startup: '${lines}\\n' })); }
`,
  );

  it('prints the label, the sizes and the first 40 lines; --json carries the whole backup', async () => {
    const text = await runCli(['run', file, '--action', 'backup', '--device-ip', '127.0.0.1']);
    expect(text.code).toBe(0);
    const bytes = Buffer.byteLength(Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    expect(text.stdout).toContain(`Backup "sw1 running"\n  running: ${bytes} B   startup: ${bytes} B, same as running\n  | line 1\n`);
    expect(text.stdout).toContain('  | line 40\n  … 10 more lines (--json has the whole configuration)');
    expect(text.stdout).not.toContain('line 41');
    const json = await runCli(['run', file, '--action', 'backup', '--device-ip', '127.0.0.1', '--json']);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.backup).toMatchObject({ label: 'sw1 running', runningBytes: bytes, startupBytes: bytes });
    expect(parsed.backup.running.split('\n')).toHaveLength(51);
  });

  it('actions lists backup with its label', async () => {
    const listed = await runCli(['actions', file, '--json']);
    expect(JSON.parse(listed.stdout).map((e: { name: string; label: string | null }) => [e.name, e.label])).toEqual([
      ['validate', null],
      ['get_status', null],
      ['backup', 'Backup Configuration'],
    ]);
  });

  it('--report stores the backup in the device history; an identical one is "unchanged"', async () => {
    const store = path.join(work, 'r.db');
    const exec = promisify(execFile);
    const args = [path.resolve('bin/driverbox.js'), 'run', file, '--action', 'backup', '--device-ip', '127.0.0.9', '--report', '--store', store];
    const first = await exec(process.execPath, args, { env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    expect(first.stderr).toMatch(/run 1, 0 variables, configuration saved \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/);
    const second = await exec(process.execPath, args, { env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    expect(second.stderr).toMatch(/run 2, 0 variables, configuration unchanged/);
    const opened = await openStore({ path: store });
    try {
      const history = await listConfigurations(opened, 1);
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({ label: 'sw1 running', source: 'driver', runId: 1 });
      expect(history[0]!.lastBackup).toBeGreaterThanOrEqual(history[0]!.timestamp);
    } finally {
      await opened.close();
    }
  });
});

describe('the configuration history in the store', async () => {
  const clock = { now: Date.UTC(2026, 4, 1, 8, 0, 0, 250) };
  const store = await openTestStore({ secretKey: 'k', clock: () => clock.now });
  const agent = await createAgentRecord(store, { displayName: 'a' });
  const device = await createDevice(store, agent.id, { displayName: 'sw', ip: '10.0.0.2' });
  await setDeviceCredentials(store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: 'netadmin', password: 'Sw1tch-s3cret' });
  const result = (running: string, startup: string | null = null, status: 'success' | 'failure' = 'success'): RunResult => ({
    status,
    errorType: status === 'success' ? null : 'GENERIC_ERROR',
    message: null,
    variables: [],
    tables: [],
    logs: [],
    warnings: [],
    http: [],
    action: 'backup',
    limitExceeded: null,
    durationMs: 5,
    ...(status === 'success' ? { backup: { label: 'sw', running, startup, runningBytes: Buffer.byteLength(running), startupBytes: startup === null ? null : Buffer.byteLength(startup) } } : {}),
  });

  it('keeps changes only, in whole strictly increasing seconds, with the secrets masked', async () => {
    const one = await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, result('user netadmin secret Sw1tch-s3cret\n', 'v0'));
    expect(one.configuration).toEqual({ id: expect.any(Number), timestamp: Date.UTC(2026, 4, 1, 8, 0, 0), changed: true });
    clock.now += 100; // same second: the next change still gets its own second
    const same = await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, result('user netadmin secret Sw1tch-s3cret\n', 'v0'));
    expect(same.configuration).toMatchObject({ id: one.configuration!.id, changed: false });
    const two = await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, result('user *** secret ***\nvlan 2\n'));
    expect(two.configuration).toMatchObject({ timestamp: Date.UTC(2026, 4, 1, 8, 0, 1), changed: true });
    await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, result('ignored', null, 'failure'));
    const history = await listConfigurations(store, device.id);
    expect(history.map((h) => [h.timestamp - Date.UTC(2026, 4, 1, 8, 0, 0), h.startupMd5 !== null])).toEqual([
      [1000, false],
      [0, true],
    ]);
    const first = (await getConfiguration(store, device.id, Date.UTC(2026, 4, 1, 8, 0, 0)))!;
    expect(first.running).toBe('user *** secret ***\n');
    expect(first.runningMd5).toBe(md5('user *** secret ***\n'));
    expect(first.lastBackup).toBe(clock.now);
    expect((await getConfiguration(store, device.id, 'latest'))!.running).toBe('user *** secret ***\nvlan 2\n');
    expect(await getConfiguration(store, device.id, Date.UTC(2026, 4, 1, 9))).toBeNull();
  });

  it(`keeps the newest ${MAX_CONFIGURATIONS_PER_DEVICE} configurations of a device`, async () => {
    for (let i = 0; i < MAX_CONFIGURATIONS_PER_DEVICE + 5; i++) await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, result(`rev ${i}`));
    const history = await listConfigurations(store, device.id);
    expect(history).toHaveLength(MAX_CONFIGURATIONS_PER_DEVICE);
    expect((await getConfiguration(store, device.id, history[history.length - 1]!.timestamp))!.running).toBe('rev 5');
  });

  it('refuses a result whose backup the store cannot hold', async () => {
    const bad = { ...result('x'), backup: { label: 'x', running: 5 } } as unknown as RunResult;
    await expect(async () => await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, bad)).rejects.toThrow('cannot store the run result: backup.running must be a string');
  });
});

describe('the agent schedules backup() when the inventory lists it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-backup-inventory-'));
  writeFileSync(path.join(dir, 'cfg.js'), drv(`D.success(D.createBackup({ label: 'sched', running: 'hostname ' + D.device.ip() + '\\n' }));`));
  writeFileSync(path.join(dir, 'plain.js'), 'function validate() { D.success(); }\nfunction get_status() { D.success(); }\n');
  const inventory = (driverPath: string) => `
version: 1
devices:
  - name: sw
    ip: 127.0.0.1
drivers:
  - name: cfg
    path: ${driverPath}
    samplePeriod: 3600
    actions: [get_status, backup]
associations:
  - driver: cfg
    device: sw
`;

  it('accepts backup for a driver that defines it, refuses it otherwise; a run writes the history', async () => {
    const parsed = parseInventory(inventory('cfg.js'), { format: 'yaml', file: path.join(dir, 'inventory.yaml'), env: {} });
    expect(parsed.drivers[0]!.actions).toEqual(['get_status', 'backup']);
    let problems: readonly string[] = [];
    try {
      parseInventory(inventory('plain.js'), { format: 'yaml', file: path.join(dir, 'inventory.yaml'), env: {} });
    } catch (error) {
      problems = (error as InventoryError).problems;
    }
    expect(problems).toEqual(['line 10: drivers[0].actions[1]: plain.js defines no function backup() (it has get_status, validate)']);

    const store = await openTestStore({ secretKey: 'k' });
    try {
      const synced = await syncInventory(store, parsed);
      const job = synced.scheduled[0]!;
      const runs = await runAssociation(
        { store, executor: host, agentId: synced.agentId, write: { activity: false } },
        job.id,
        job.actions,
        new AbortController().signal,
        { started() {}, finished() {}, abandoned() {} },
      );
      expect(runs.map((r) => [r.action, r.result.status])).toEqual([
        ['get_status', 'success'],
        ['backup', 'success'],
      ]);
      const history = await listConfigurations(store, job.deviceId);
      expect(history).toMatchObject([{ label: 'sched', source: 'driver', runId: runs[1]!.runId }]);
      expect((await getConfiguration(store, job.deviceId, 'latest'))!.running).toBe('hostname 127.0.0.1\n');
    } finally {
      await store.close();
    }
  });
});

describe('migration 3 (configuration backups)', () => {
  it('upgrades a version 2 store in place, keeping its data, and applies nothing more on reopening', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'driverbox-migrate-3-')), 'v2.db');
    const raw = openDatabase(file);
        for (const m of migrations.filter((m) => m.version <= 2)) await m.up(rawMigration(raw));
    raw.pragma('user_version = 2');
    raw.prepare("INSERT INTO agents (display_name, creation_time, status_last_change) VALUES ('old site', 1000, 1000)").run();
    raw.close();
    const store = await openStore({ path: file });
    try {
      expect((await schemaVersion(store.kysely, store.dialect))).toBe(SCHEMA_VERSION); // and any later migration
      const device = await createDevice(store, 1, { displayName: 'sw', ip: '10.0.0.3' });
      await writeRunResult(store, { agentId: 1, deviceId: device.id }, { status: 'success', errorType: null, message: null, variables: [], tables: [], logs: [], warnings: [], http: [], action: 'backup', limitExceeded: null, durationMs: 1, backup: { label: 'l', running: 'r', startup: null, runningBytes: 1, startupBytes: null } });
      expect(await listConfigurations(store, device.id)).toHaveLength(1);
    } finally {
      await store.close();
    }
    const again = openDatabase(file);
    expect(await migrate(sqliteKysely(again), 'sqlite', file)).toEqual([]);
    again.close();
  });
});
