// Writing run results into the store: variables, history, tables, the run record and the
// activity entry in one transaction; failed runs; associations; reportRun for local runs.
import { describe, expect, it } from 'vitest';
import { listActivity } from '../host/store/activity-log.js';
import { ensureLocalAgent, createAgentRecord } from '../host/store/agents.js';
import { setDeviceCredentials } from '../host/store/credentials.js';
import { createDevice } from '../host/store/devices.js';
import { openStore, StoreError, type Store } from '../host/store/index.js';
import { reportRun } from '../host/store/report-local-run.js';
import { writeRunResult } from '../host/store/report-run.js';
import { getRun, listDeviceRuns } from '../host/store/runs.js';
import { listDeviceTables } from '../host/store/tables.js';
import { getVariable, listVariables, pruneVariableHistory, setHistoryRetention, variableHistory } from '../host/store/variables.js';
import { failure, success, variable } from './helpers/run-results.js';

const DAY = 24 * 3600_000;

function fixture() {
  const clock = { now: Date.UTC(2026, 0, 15, 12, 0, 0) };
  const store = openStore({ path: ':memory:', secretKey: 'test-secret', clock: () => clock.now });
  const agent = ensureLocalAgent(store);
  const device = createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.7' });
  return { store, clock, agent, device, target: { agentId: agent.id, deviceId: device.id, driverName: 'nas.js' } };
}

const deviceVariables = (store: Store, agentId: number, deviceId: number) =>
  listVariables(store, { kind: 'device', agentId, deviceId }, { limit: 1000, offset: 0, sortBy: 'path' });

const count = (store: Store, table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

function addAssociation(store: Store, agentId: number, deviceId: number, name: string): { driverId: number; associationId: number } {
  const now = store.now();
  const driver = store.db
    .prepare(`INSERT INTO custom_drivers (name, source, inspection, creation_time, update_time) VALUES (?, 'function get_status() { D.success(); }', '{}', ?, ?)`)
    .run(name, now, now);
  const association = store.db
    .prepare(
      `INSERT INTO custom_driver_associations (custom_driver_id, agent_id, device_id, sample_period, creation_time, last_inspection_time) VALUES (?, ?, ?, 300, ?, ?)`,
    )
    .run(driver.lastInsertRowid, agentId, deviceId, now, now);
  return { driverId: Number(driver.lastInsertRowid), associationId: Number(association.lastInsertRowid) };
}

describe('writeRunResult', () => {
  it('writes variables, their history, tables, the run and an activity entry; ids stay, previous values follow', () => {
    const { store, clock, agent, device, target } = fixture();
    const table = { label: 'Disks', columnHeaders: [{ label: 'Size', unit: 'GB', valueType: 'NUMBER' }], rows: [['sda', '500']] };
    const one = writeRunResult(store, target, success([variable('cpu', '10', { unit: '%', valueType: 'NUMBER' }), variable('name', null)], { tables: [table] }));
    clock.now += 60_000;
    const two = writeRunResult(store, target, success([variable('cpu', '12', { unit: '%', valueType: 'NUMBER' })], { logs: [{ level: 'info', message: 'read /info' }] }));
    expect(two.variableIds).toEqual([one.variableIds[0]]);

    const cpu = getVariable(store, one.variableIds[0]!)!;
    expect(cpu).toMatchObject({ path: 'cpu', value: '12', previousValue: '10', unit: '%', valueType: 'NUMBER', metric: null, hasHistory: true, deviceId: device.id, associationId: null });
    expect(cpu.creationTime).toBe(clock.now - 60_000);
    expect(cpu.valueUpdateTime).toBe(clock.now);
    // A variable the second run did not report keeps its value and time.
    expect(getVariable(store, one.variableIds[1]!)).toMatchObject({ path: 'name', value: null, valueUpdateTime: clock.now - 60_000 });
    expect(variableHistory(store, cpu.id, 0, clock.now)).toEqual([
      { timestamp: clock.now - 60_000, value: '10' },
      { timestamp: clock.now, value: '12' },
    ]);
    expect(variableHistory(store, one.variableIds[1]!, 0, clock.now)).toEqual([{ timestamp: clock.now - 60_000, value: null }]);
    expect(listDeviceTables(store, device.id)).toMatchObject([{ label: 'Disks', columns: table.columnHeaders, rows: table.rows }]);

    const run = getRun(store, two.runId)!;
    expect(run).toMatchObject({ agentId: agent.id, deviceId: device.id, driverName: 'nas.js', action: 'get_status', outcome: 'success', variableCount: 1, tableCount: 0, elapsedMs: 25 });
    expect(run.started).toBe(clock.now - 25);
    expect(run.log).toEqual([{ level: 'info', message: 'read /info' }]);
    expect(listActivity(store, agent.id, { from: 0, to: clock.now }).map((e) => [e.type, e.deviceId, e.details?.run_id])).toEqual([
      ['custom_driver_execute', device.id, one.runId],
      ['custom_driver_execute', device.id, two.runId],
    ]);
  });

  it('keeps only the newest runs of the device when asked, and can leave the activity log out', () => {
    const { store, clock, agent, device, target } = fixture();
    const other = createDevice(store, agent.id, { displayName: 'other', ip: '10.0.0.8' });
    const otherRun = writeRunResult(store, { ...target, deviceId: other.id }, success([variable('x', '1')])).runId;
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      clock.now += 1000;
      ids.push(writeRunResult(store, target, success([variable('cpu', String(i))]), { activity: false, keepRunsPerDevice: 3 }).runId);
    }
    expect(listDeviceRuns(store, device.id).map((r) => r.id)).toEqual(ids.slice(2).reverse());
    // Another device's runs are not touched, and only that first run was logged.
    expect(getRun(store, otherRun)).toBeDefined();
    expect(listActivity(store, agent.id, { from: 0, to: clock.now }).map((e) => e.details?.run_id)).toEqual([otherRun]);
    // The variables and their history are kept whatever happens to run records.
    expect(variableHistory(store, deviceVariables(store, agent.id, device.id)[0]!.id, 0, clock.now)).toHaveLength(5);
  });

  it('records a failed run with its error, log, warnings and HTTP exchanges, leaving variables and tables untouched', () => {
    const { store, clock, agent, device, target } = fixture();
    const ok = writeRunResult(store, target, success([variable('cpu', '10')], { tables: [{ label: 'T', columnHeaders: [{ label: 'A', unit: null, valueType: 'STRING' }], rows: [['r', 'x']] }] }));
    clock.now += 1000;
    const http = [{ method: 'GET', url: 'http://10.0.0.7/info', status: 401, error: null, errorMessage: null, startedMs: 1, headersMs: 3, durationMs: 4, requestBytes: 80, responseBytes: 20, redirectedTo: null }];
    const failed = writeRunResult(
      store,
      target,
      failure('AUTHENTICATION_ERROR', 'bad password', {
        variables: [variable('cpu', '99')], // a failed run's variables are not applied
        logs: [{ level: 'error', message: 'got 401' }],
        warnings: ['D.success called twice'],
        http,
        limitExceeded: null,
      }),
    );
    expect(failed.variableIds).toEqual([]);
    expect(getVariable(store, ok.variableIds[0]!)).toMatchObject({ value: '10', previousValue: null });
    expect(variableHistory(store, ok.variableIds[0]!, 0, clock.now)).toHaveLength(1);
    expect(listDeviceTables(store, device.id)[0]!.rows).toEqual([['r', 'x']]);
    expect(getRun(store, failed.runId)).toMatchObject({
      outcome: 'failure',
      errorType: 'AUTHENTICATION_ERROR',
      errorMessage: 'bad password',
      log: [{ level: 'error', message: 'got 401' }],
      warnings: ['D.success called twice'],
      http,
      variableCount: 0,
    });
    const entry = listActivity(store, agent.id, { from: clock.now, to: clock.now, types: ['custom_driver_execute'] })[0]!;
    expect(entry.description).toBe('nas.js get_status: failure (AUTHENTICATION_ERROR: bad password)');
    expect(entry.details).toMatchObject({ outcome: 'failure', error_type: 'AUTHENTICATION_ERROR', message: 'bad password' });
    expect(listDeviceRuns(store, device.id).map((r) => r.id)).toEqual([failed.runId, ok.runId]);
  });

  it('writes nothing at all when any part of the write fails', () => {
    const { store, target } = fixture();
    // A real SQLite failure in the middle of the write: the second variable's insert aborts.
    store.db.exec(`CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON variables WHEN NEW.path = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END`);
    expect(() => writeRunResult(store, target, success([variable('cpu', '1'), variable('boom', '2')], { tables: [{ label: 'T', columnHeaders: [], rows: [] }] }))).toThrow(/boom refused/);
    for (const table of ['variables', 'variable_history', 'device_tables', 'runs', 'activity_log']) expect(count(store, table), table).toBe(0);
  });

  it('refuses a device of another agent, or a result it cannot hold, naming the field', () => {
    const { store, device, target } = fixture();
    const stranger = createAgentRecord(store, { displayName: 'other' });
    expect(() => writeRunResult(store, { agentId: stranger.id, deviceId: device.id }, success([]))).toThrow(`device ${device.id} of agent ${stranger.id} not found`);
    const bad = (result: unknown) => {
      try {
        writeRunResult(store, target, result as never);
      } catch (error) {
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).code).toBe('INVALID');
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ ...success([]), status: 'ok' })).toContain('status must be "success" or "failure"');
    expect(bad(success([variable('', '1')]))).toContain('variables[0].uid');
    expect(bad(success([{ ...variable('x', '1'), value: 5 as never }]))).toContain('variables[0].value must be a string or null');
    expect(bad({ ...success([]), tables: [{ label: '', columnHeaders: [], rows: [] }] })).toContain('tables[0].label');
    expect(bad({ ...success([]), durationMs: 'soon' })).toContain('durationMs');
    expect(count(store, 'runs')).toBe(0);
  });

  it('stores the first of duplicate uids and says so in the run’s warnings', () => {
    const { store, target } = fixture();
    const run = writeRunResult(store, target, success([variable('cpu', '1'), variable('cpu', '2')]));
    expect(run.variableIds).toHaveLength(1);
    expect(getVariable(store, run.variableIds[0]!)!.value).toBe('1');
    expect(getRun(store, run.runId)!.warnings).toEqual(['duplicate variable uid "cpu": only the first one is stored']);
  });

  it('replaces a table per device, association and label', () => {
    const { store, clock, agent, device, target } = fixture();
    const { associationId } = addAssociation(store, agent.id, device.id, 'nas driver');
    const t = (label: string, value: string) => ({ label, columnHeaders: [{ label: 'V', unit: null, valueType: 'STRING' }], rows: [['r1', value]] });
    writeRunResult(store, target, success([], { tables: [t('Disks', 'a'), t('Fans', 'a')] }));
    const firstIds = listDeviceTables(store, device.id).map((x) => x.id);
    clock.now += 1000;
    writeRunResult(store, target, success([], { tables: [t('Disks', 'b')] }));
    writeRunResult(store, { ...target, associationId }, success([], { tables: [t('Disks', 'c')] }));
    const tables = listDeviceTables(store, device.id);
    expect(tables.map((x) => [x.label, x.associationId, x.rows[0]![1]])).toEqual([
      ['Disks', null, 'b'],
      ['Disks', associationId, 'c'],
      ['Fans', null, 'a'],
    ]);
    expect(tables.filter((x) => x.associationId === null).map((x) => x.id).sort()).toEqual(firstIds.sort());
  });

  it('ties what an association writes to it: deleting the association deletes its variables and tables, runs stay', () => {
    const { store, agent, device, target } = fixture();
    const { driverId, associationId } = addAssociation(store, agent.id, device.id, 'nas driver');
    const own = writeRunResult(store, target, success([variable('manual', '1')]));
    const run = writeRunResult(store, { ...target, customDriverId: driverId, associationId }, success([variable('cpu', '5')], { tables: [{ label: 'T', columnHeaders: [], rows: [] }] }));
    expect(getVariable(store, run.variableIds[0]!)!.associationId).toBe(associationId);
    expect(getRun(store, run.runId)).toMatchObject({ customDriverId: driverId, associationId });
    store.db.prepare('DELETE FROM custom_driver_associations WHERE id = ?').run(associationId);
    expect(deviceVariables(store, agent.id, device.id).map((v) => v.path)).toEqual(['manual']);
    expect(variableHistory(store, run.variableIds[0]!, 0, store.now())).toEqual([]);
    expect(listDeviceTables(store, device.id)).toEqual([]);
    expect(getRun(store, run.runId)).toMatchObject({ associationId: null, outcome: 'success' });
    expect(getVariable(store, own.variableIds[0]!)).toBeDefined();
  });

  it('bounds history to the retention set, dropping older samples as variables are written or all at once', () => {
    const { store, clock, target } = fixture();
    const ids = [];
    for (let day = 0; day < 5; day++) {
      ids.push(...writeRunResult(store, target, success([variable('cpu', String(day)), ...(day === 0 ? [variable('once', 'x')] : [])])).variableIds);
      clock.now += DAY;
    }
    const [cpu, once] = [ids[0]!, ids[1]!];
    expect(variableHistory(store, cpu, 0, clock.now)).toHaveLength(5);
    setHistoryRetention(store, 2);
    writeRunResult(store, target, success([variable('cpu', '5')]));
    expect(variableHistory(store, cpu, 0, clock.now).map((s) => s.value)).toEqual(['3', '4', '5']);
    expect(variableHistory(store, once, 0, clock.now)).toHaveLength(1); // not written since: pruned only on demand
    expect(pruneVariableHistory(store)).toBe(1);
    expect(variableHistory(store, once, 0, clock.now)).toEqual([]);
    expect(() => setHistoryRetention(store, 0)).toThrow(/positive number of days/);
    setHistoryRetention(store, null);
    expect(pruneVariableHistory(store)).toBe(0);
  });
});

describe('reportRun', () => {
  it('finds the device by IP or host name under the local agent, or creates it; credentials are not stored', () => {
    const store = openStore({ path: ':memory:' });
    const first = reportRun(store, { device: { ip: '10.0.0.7', portMap: { 80: 8080 } }, driverName: 'nas.js', result: success([variable('cpu', '1')]) });
    expect(first.deviceCreated).toBe(true);
    expect(first.agentId).toBe(ensureLocalAgent(store).id);
    const again = reportRun(store, { device: { ip: '10.0.0.7' }, driverName: 'nas.js', result: success([variable('cpu', '2')]) });
    expect(again).toMatchObject({ deviceId: first.deviceId, deviceCreated: false, variableIds: first.variableIds });
    const named = reportRun(store, { device: { ip: '10.0.0.7', host: 'nas.local' }, result: success([]) });
    expect(named.deviceCreated).toBe(true);
    expect(reportRun(store, { device: { host: 'nas.local' }, result: success([]) }).deviceId).toBe(named.deviceId);
    const device = store.db.prepare('SELECT * FROM devices WHERE id = ?').get(first.deviceId) as { ip: string; display_name: string; port_map: string; protocol: string };
    expect(device).toMatchObject({ ip: '10.0.0.7', display_name: '10.0.0.7', port_map: '{"80":8080}', protocol: 'IP' });
    expect(count(store, 'device_credentials')).toBe(0);
    expect(() => reportRun(store, { device: {}, result: success([]) })).toThrow(/without the device address/);
    store.close();
  });

  it('leaves credentials set elsewhere alone and reports a failure like any other run', () => {
    const store = openStore({ path: ':memory:', secretKey: 's' });
    const agent = ensureLocalAgent(store);
    const device = createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.8' });
    setDeviceCredentials(store, device.id, 'DEVICE_MANAGEMENT', { username: 'admin', password: 'pw' });
    const reported = reportRun(store, { device: { ip: '10.0.0.8' }, result: failure('RESOURCE_UNAVAILABLE', null) });
    expect(reported.deviceId).toBe(device.id);
    expect(getRun(store, reported.runId)!.outcome).toBe('failure');
    expect(count(store, 'device_credentials')).toBe(1);
    store.close();
  });
});
