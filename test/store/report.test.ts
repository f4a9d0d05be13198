// Writing run results into the store: variables, history, tables, the run record and the
// activity entry in one transaction; failed runs; associations; reportRun for local runs.
import { describe, expect, it } from 'vitest';
import { listActivity } from '../../host/store/fleet/activity-log.js';
import { ensureLocalAgent, createAgentRecord } from '../../host/store/fleet/agents.js';
import { setDeviceCredentials } from '../../host/store/fleet/credentials.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { openStore, StoreError, type Store } from '../../host/store/index.js';
import { reportRun } from '../../host/store/runs/report-local-run.js';
import { writeRunResult } from '../../host/store/runs/report-run.js';
import { getRun, listDeviceRuns } from '../../host/store/runs/runs.js';
import { listDeviceTables } from '../../host/store/results/tables.js';
import { getVariable, listVariables, writeVariable, writeVariables, type VariableWrite } from '../../host/store/results/variables.js';
import { pruneVariableHistory, setHistoryRetention, variableHistory } from '../../host/store/results/variable-history.js';
import { failure, success, variable } from '../helpers/run-results.js';
import { openTestStore } from '../helpers/store.js';

const DAY = 24 * 3600_000;

async function fixture() {
  const clock = { now: Date.UTC(2026, 0, 15, 12, 0, 0) };
  const store = await openTestStore({ secretKey: 'test-secret', clock: () => clock.now });
  const agent = await ensureLocalAgent(store);
  const device = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.7' });
  return { store, clock, agent, device, target: { agentId: agent.id, deviceId: device.id, driverName: 'nas.js' } };
}

const deviceVariables = async (store: Store, agentId: number, deviceId: number) =>
  await listVariables(store, { kind: 'device', agentId, deviceId }, { limit: 1000, offset: 0, sortBy: 'path' });

const count = async (store: Store, table: string) => (await store.statement(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

async function addAssociation(store: Store, agentId: number, deviceId: number, name: string): Promise<{ driverId: number; associationId: number }> {
  const now = store.now();
  const driver = await store
    .statement(`INSERT INTO custom_drivers (name, source, inspection, creation_time, update_time) VALUES (?, 'function get_status() { D.success(); }', '{}', ?, ?)`)
    .insert(name, now, now);
  const association = await store
    .statement(
      `INSERT INTO custom_driver_associations (custom_driver_id, agent_id, device_id, sample_period, creation_time, last_inspection_time) VALUES (?, ?, ?, 300, ?, ?)`,
    )
    .insert(driver, agentId, deviceId, now, now);
  return { driverId: driver, associationId: association };
}

describe('writeRunResult', () => {
  it('writes variables, their history, tables, the run and an activity entry; ids stay, previous values follow', async () => {
    const { store, clock, agent, device, target } = await fixture();
    const table = { label: 'Disks', columnHeaders: [{ label: 'Size', unit: 'GB', valueType: 'NUMBER' }], rows: [['sda', '500']] };
    const one = await writeRunResult(store, target, success([variable('cpu', '10', { unit: '%', valueType: 'NUMBER' }), variable('name', null)], { tables: [table] }));
    clock.now += 60_000;
    const two = await writeRunResult(store, target, success([variable('cpu', '12', { unit: '%', valueType: 'NUMBER' })], { logs: [{ level: 'info', message: 'read /info' }] }));
    expect(two.variableIds).toEqual([one.variableIds[0]]);

    const cpu = (await getVariable(store, one.variableIds[0]!))!;
    expect(cpu).toMatchObject({ path: 'cpu', value: '12', previousValue: '10', unit: '%', valueType: 'NUMBER', metric: null, hasHistory: true, deviceId: device.id, associationId: null });
    expect(cpu.creationTime).toBe(clock.now - 60_000);
    expect(cpu.valueUpdateTime).toBe(clock.now);
    // A variable the second run did not report keeps its value and time.
    expect(await getVariable(store, one.variableIds[1]!)).toMatchObject({ path: 'name', value: null, valueUpdateTime: clock.now - 60_000 });
    expect(await variableHistory(store, cpu.id, 0, clock.now)).toEqual([
      { timestamp: clock.now - 60_000, value: '10' },
      { timestamp: clock.now, value: '12' },
    ]);
    expect(await variableHistory(store, one.variableIds[1]!, 0, clock.now)).toEqual([{ timestamp: clock.now - 60_000, value: null }]);
    expect(await listDeviceTables(store, device.id)).toMatchObject([{ label: 'Disks', columns: table.columnHeaders, rows: table.rows }]);

    const run = (await getRun(store, two.runId))!;
    expect(run).toMatchObject({ agentId: agent.id, deviceId: device.id, driverName: 'nas.js', action: 'get_status', outcome: 'success', variableCount: 1, tableCount: 0, elapsedMs: 25 });
    expect(run.started).toBe(clock.now - 25);
    expect(run.log).toEqual([{ level: 'info', message: 'read /info' }]);
    expect((await listActivity(store, agent.id, { from: 0, to: clock.now })).map((e) => [e.type, e.deviceId, e.details?.run_id])).toEqual([
      ['custom_driver_execute', device.id, one.runId],
      ['custom_driver_execute', device.id, two.runId],
    ]);
  });

  it('keeps only the newest runs of the device when asked, and can leave the activity log out', async () => {
    const { store, clock, agent, device, target } = await fixture();
    const other = await createDevice(store, agent.id, { displayName: 'other', ip: '10.0.0.8' });
    const otherRun = (await writeRunResult(store, { ...target, deviceId: other.id }, success([variable('x', '1')]))).runId;
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      clock.now += 1000;
      ids.push((await writeRunResult(store, target, success([variable('cpu', String(i))]), { activity: false, keepRunsPerDevice: 3 })).runId);
    }
    expect((await listDeviceRuns(store, device.id)).map((r) => r.id)).toEqual(ids.slice(2).reverse());
    // Another device's runs are not touched, and only that first run was logged.
    expect(await getRun(store, otherRun)).toBeDefined();
    expect((await listActivity(store, agent.id, { from: 0, to: clock.now })).map((e) => e.details?.run_id)).toEqual([otherRun]);
    // The variables and their history are kept whatever happens to run records.
    expect(await variableHistory(store, (await deviceVariables(store, agent.id, device.id))[0]!.id, 0, clock.now)).toHaveLength(5);
  });

  it('records a failed run with its error, log, warnings and HTTP exchanges, leaving variables and tables untouched', async () => {
    const { store, clock, agent, device, target } = await fixture();
    const ok = await writeRunResult(store, target, success([variable('cpu', '10')], { tables: [{ label: 'T', columnHeaders: [{ label: 'A', unit: null, valueType: 'STRING' }], rows: [['r', 'x']] }] }));
    clock.now += 1000;
    const http = [{ method: 'GET', url: 'http://10.0.0.7/info', status: 401, error: null, errorMessage: null, startedMs: 1, headersMs: 3, durationMs: 4, requestBytes: 80, responseBytes: 20, redirectedTo: null }];
    const failed = await writeRunResult(
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
    expect(await getVariable(store, ok.variableIds[0]!)).toMatchObject({ value: '10', previousValue: null });
    expect(await variableHistory(store, ok.variableIds[0]!, 0, clock.now)).toHaveLength(1);
    expect((await listDeviceTables(store, device.id))[0]!.rows).toEqual([['r', 'x']]);
    expect(await getRun(store, failed.runId)).toMatchObject({
      outcome: 'failure',
      errorType: 'AUTHENTICATION_ERROR',
      errorMessage: 'bad password',
      log: [{ level: 'error', message: 'got 401' }],
      warnings: ['D.success called twice'],
      http,
      variableCount: 0,
    });
    const entry = (await listActivity(store, agent.id, { from: clock.now, to: clock.now, types: ['custom_driver_execute'] }))[0]!;
    expect(entry.description).toBe('nas.js get_status: failure (AUTHENTICATION_ERROR: bad password)');
    expect(entry.details).toMatchObject({ outcome: 'failure', error_type: 'AUTHENTICATION_ERROR', message: 'bad password' });
    expect((await listDeviceRuns(store, device.id)).map((r) => r.id)).toEqual([failed.runId, ok.runId]);
  });

  it('writes nothing at all when any part of the write fails', async () => {
    const { store, target } = await fixture();
    // A real database failure in the middle of the write: the second variable's insert aborts.
    if (store.dialect === 'postgres') {
      await store
        .statement(`CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.path = 'boom' THEN RAISE EXCEPTION 'boom refused'; END IF; RETURN NEW; END $$`)
        .run();
      await store.statement('CREATE TRIGGER refuse_boom BEFORE INSERT ON variables FOR EACH ROW EXECUTE FUNCTION refuse_boom()').run();
    } else {
      await store.statement(`CREATE TEMP TRIGGER refuse_boom BEFORE INSERT ON variables WHEN NEW.path = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END`).run();
    }
    await expect(async () => await writeRunResult(store, target, success([variable('cpu', '1'), variable('boom', '2')], { tables: [{ label: 'T', columnHeaders: [], rows: [] }] }))).rejects.toThrow(/boom refused/);
    for (const table of ['variables', 'variable_history', 'device_tables', 'runs', 'activity_log']) expect(await count(store, table), table).toBe(0);
  });

  it('refuses a device of another agent, or a result it cannot hold, naming the field', async () => {
    const { store, device, target } = await fixture();
    const stranger = await createAgentRecord(store, { displayName: 'other' });
    await expect(async () => await writeRunResult(store, { agentId: stranger.id, deviceId: device.id }, success([]))).rejects.toThrow(`device ${device.id} of agent ${stranger.id} not found`);
    const bad = async (result: unknown) => {
      try {
        await writeRunResult(store, target, result as never);
      } catch (error) {
        expect(error).toBeInstanceOf(StoreError);
        expect((error as StoreError).code).toBe('INVALID');
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(await bad({ ...success([]), status: 'ok' })).toContain('status must be "success" or "failure"');
    expect(await bad(success([variable('', '1')]))).toContain('variables[0].uid');
    expect(await bad(success([{ ...variable('x', '1'), value: 5 as never }]))).toContain('variables[0].value must be a string or null');
    expect(await bad({ ...success([]), tables: [{ label: '', columnHeaders: [], rows: [] }] })).toContain('tables[0].label');
    expect(await bad({ ...success([]), durationMs: 'soon' })).toContain('durationMs');
    expect(await count(store, 'runs')).toBe(0);
  });

  it('stores the last of duplicate uids and says so in the run’s warnings, once (not again when the runtime said it)', async () => {
    const { store, target } = await fixture();
    const run = await writeRunResult(store, target, success([variable('cpu', '1'), variable('mem', '5'), variable('cpu', '2')]));
    expect(run.variableIds).toHaveLength(2);
    const values = await Promise.all(run.variableIds.map(async (id) => (await getVariable(store, id))!));
    expect(values.map((v) => [v.path, v.value])).toEqual([['cpu', '2'], ['mem', '5']]);
    const said = 'duplicate variable uid "cpu": reported 2 times, values "1", "2"; all are in the run\'s result, the store keeps the last one ("2")';
    expect((await getRun(store, run.runId))!.warnings).toEqual([said]);
    const again = await writeRunResult(store, target, success([variable('cpu', '3'), variable('cpu', '4')], { warnings: ['duplicate variable uid "cpu": as the runtime said it'] }));
    expect((await getRun(store, again.runId))!.warnings).toEqual(['duplicate variable uid "cpu": as the runtime said it']);
    expect((await getVariable(store, again.variableIds[0]!))!.value).toBe('4');
  });

  it('replaces a table per device, association and label', async () => {
    const { store, clock, agent, device, target } = await fixture();
    const { associationId } = await addAssociation(store, agent.id, device.id, 'nas driver');
    const t = (label: string, value: string) => ({ label, columnHeaders: [{ label: 'V', unit: null, valueType: 'STRING' }], rows: [['r1', value]] });
    await writeRunResult(store, target, success([], { tables: [t('Disks', 'a'), t('Fans', 'a')] }));
    const firstIds = (await listDeviceTables(store, device.id)).map((x) => x.id);
    clock.now += 1000;
    await writeRunResult(store, target, success([], { tables: [t('Disks', 'b')] }));
    await writeRunResult(store, { ...target, associationId }, success([], { tables: [t('Disks', 'c')] }));
    const tables = await listDeviceTables(store, device.id);
    expect(tables.map((x) => [x.label, x.associationId, x.rows[0]![1]])).toEqual([
      ['Disks', null, 'b'],
      ['Disks', associationId, 'c'],
      ['Fans', null, 'a'],
    ]);
    expect(tables.filter((x) => x.associationId === null).map((x) => x.id).sort()).toEqual(firstIds.sort());
  });

  it('ties what an association writes to it: deleting the association deletes its variables and tables, runs stay', async () => {
    const { store, agent, device, target } = await fixture();
    const { driverId, associationId } = await addAssociation(store, agent.id, device.id, 'nas driver');
    const own = await writeRunResult(store, target, success([variable('manual', '1')]));
    const run = await writeRunResult(store, { ...target, customDriverId: driverId, associationId }, success([variable('cpu', '5')], { tables: [{ label: 'T', columnHeaders: [], rows: [] }] }));
    expect((await getVariable(store, run.variableIds[0]!))!.associationId).toBe(associationId);
    expect(await getRun(store, run.runId)).toMatchObject({ customDriverId: driverId, associationId });
    await store.statement('DELETE FROM custom_driver_associations WHERE id = ?').run(associationId);
    expect((await deviceVariables(store, agent.id, device.id)).map((v) => v.path)).toEqual(['manual']);
    expect(await variableHistory(store, run.variableIds[0]!, 0, store.now())).toEqual([]);
    expect(await listDeviceTables(store, device.id)).toEqual([]);
    expect(await getRun(store, run.runId)).toMatchObject({ associationId: null, outcome: 'success' });
    expect(await getVariable(store, own.variableIds[0]!)).toBeDefined();
  });

  it('writes many variables in a few statements, as writing each in turn would: batches, repeated paths, agent variables', async () => {
    const { store, clock, agent, device } = await fixture();
    const other = await createDevice(store, agent.id, { displayName: 'other', ip: '10.0.0.8' });
    // 250 writes (three batches), some paths twice (the second write follows the first), a mix of
    // new and existing variables, with and without history, nulls and empty strings.
    const round = (n: number): VariableWrite[] =>
      Array.from({ length: 250 }, (_, i) => ({
        path: `m-${i % 230}`,
        label: i % 7 === 0 ? null : `M ${i}`,
        unit: i % 3 === 0 ? '%' : null,
        value: i % 11 === 0 ? null : i % 13 === 0 ? '' : `${n}.${i}`,
        valueType: 'NUMBER',
        hasHistory: i % 5 !== 0,
      }));
    const both = async (writes: VariableWrite[]) => {
      const batched = await store.transaction(() => writeVariables(store, { agentId: agent.id, deviceId: device.id }, writes));
      const one: number[] = [];
      await store.transaction(async () => {
        for (const w of writes) one.push(await writeVariable(store, { agentId: agent.id, deviceId: other.id }, w));
      });
      return { batched, one };
    };
    const shape = async (ids: number[]) =>
      await Promise.all(
        ids.map(async (id) => {
          const { id: _id, deviceId: _device, ...rest } = (await getVariable(store, id))!;
          return { ...rest, history: await variableHistory(store, id, 0, clock.now) };
        }),
      );
    const first = await both(round(1).slice(0, 120));
    clock.now += 1000;
    const second = await both(round(2));
    expect(second.batched).toHaveLength(250);
    expect(second.batched[0]).toBe(first.batched[0]);
    expect(second.batched[232]).toBe(second.batched[2]); // m-2 again
    expect(await shape(second.batched)).toEqual(await shape(second.one));
    const m2 = (await getVariable(store, second.batched[2]!))!;
    expect(m2).toMatchObject({ value: '2.232', previousValue: '2.2', hasHistory: true, creationTime: clock.now - 1000, valueUpdateTime: clock.now });
    expect((await variableHistory(store, m2.id, 0, clock.now)).map((s) => s.value)).toEqual(['1.2', '2.2', '2.232']);

    const agentVariables = await store.transaction(() =>
      writeVariables(store, { agentId: agent.id, deviceId: null }, [{ path: 'a', value: '1' }, { path: 'b', value: '2', hasHistory: false }, { path: 'a', value: '3' }]),
    );
    expect(agentVariables[0]).toBe(agentVariables[2]);
    expect(await getVariable(store, agentVariables[0]!)).toMatchObject({ deviceId: null, value: '3', previousValue: '1' });
    expect(await variableHistory(store, agentVariables[1]!, 0, clock.now)).toEqual([]);
  });

  it('answers a deep page (read through its ids first) as the same slice of the whole list', async () => {
    const { store, agent, device } = await fixture();
    const other = await createDevice(store, agent.id, { displayName: 'other', ip: '10.0.0.8' });
    for (const id of [device.id, other.id]) {
      const writes = Array.from({ length: 700 }, (_, i) => ({ path: `p-${(i * 37) % 700}`, value: String(i % 9) }));
      await store.transaction(() => writeVariables(store, { agentId: agent.id, deviceId: id }, writes));
    }
    const scope = { kind: 'agent-devices' as const, agentId: agent.id };
    for (const sortBy of ['id', 'path', 'value'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const all = await listVariables(store, scope, { sortBy, direction, limit: 2000, offset: 0 });
        expect(all).toHaveLength(1400);
        for (const offset of [999, 1000, 1350]) {
          expect(await listVariables(store, scope, { sortBy, direction, limit: 100, offset })).toEqual(all.slice(offset, offset + 100));
        }
      }
    }
    const filtered = await listVariables(store, scope, { value: '3', limit: 2000, offset: 0 });
    expect(await listVariables(store, scope, { value: '3', limit: 10, offset: 1000 })).toEqual(filtered.slice(1000, 1010));
  });

  it('bounds history to the retention set, dropping older samples as variables are written or all at once', async () => {
    const { store, clock, target } = await fixture();
    const ids = [];
    for (let day = 0; day < 5; day++) {
      ids.push(...(await writeRunResult(store, target, success([variable('cpu', String(day)), ...(day === 0 ? [variable('once', 'x')] : [])]))).variableIds);
      clock.now += DAY;
    }
    const [cpu, once] = [ids[0]!, ids[1]!];
    expect(await variableHistory(store, cpu, 0, clock.now)).toHaveLength(5);
    await setHistoryRetention(store, 2);
    await writeRunResult(store, target, success([variable('cpu', '5')]));
    const values = async (id: number) => (await variableHistory(store, id, 0, clock.now)).map((s) => s.value);
    if (store.dialect === 'postgres') {
      // PostgreSQL drops whole UTC days of every variable at once (history-partitions.ts), never
      // row by row as variables are written: the days that ended before the bound (noon two days
      // ago) go, the day the bound falls in stays.
      expect(await values(cpu)).toEqual(['0', '1', '2', '3', '4', '5']);
      expect(await pruneVariableHistory(store)).toBe(4);
      expect(await values(cpu)).toEqual(['3', '4', '5']);
    } else {
      expect(await values(cpu)).toEqual(['3', '4', '5']);
      expect(await variableHistory(store, once, 0, clock.now)).toHaveLength(1); // not written since: pruned only on demand
      expect(await pruneVariableHistory(store)).toBe(1);
    }
    expect(await variableHistory(store, once, 0, clock.now)).toEqual([]);
    await expect(async () => await setHistoryRetention(store, 0)).rejects.toThrow(/positive number of days/);
    await setHistoryRetention(store, null);
    expect(await pruneVariableHistory(store)).toBe(0);
  });
});

describe('reportRun', () => {
  it('finds the device by IP or host name under the local agent, or creates it; credentials are not stored', async () => {
    const store = await openTestStore();
    const first = await reportRun(store, { device: { ip: '10.0.0.7', portMap: { 80: 8080 } }, driverName: 'nas.js', result: success([variable('cpu', '1')]) });
    expect(first.deviceCreated).toBe(true);
    expect(first.agentId).toBe((await ensureLocalAgent(store)).id);
    const again = await reportRun(store, { device: { ip: '10.0.0.7' }, driverName: 'nas.js', result: success([variable('cpu', '2')]) });
    expect(again).toMatchObject({ deviceId: first.deviceId, deviceCreated: false, variableIds: first.variableIds });
    const named = await reportRun(store, { device: { ip: '10.0.0.7', host: 'nas.local' }, result: success([]) });
    expect(named.deviceCreated).toBe(true);
    expect((await reportRun(store, { device: { host: 'nas.local' }, result: success([]) })).deviceId).toBe(named.deviceId);
    const device = await store.statement('SELECT * FROM devices WHERE id = ?').get(first.deviceId) as { ip: string; display_name: string; port_map: string; protocol: string };
    expect(device).toMatchObject({ ip: '10.0.0.7', display_name: '10.0.0.7', port_map: '{"80":8080}', protocol: 'IP' });
    expect(await count(store, 'device_credentials')).toBe(0);
    await expect(async () => await reportRun(store, { device: {}, result: success([]) })).rejects.toThrow(/without the device address/);
    await store.close();
  });

  it('leaves credentials set elsewhere alone and reports a failure like any other run', async () => {
    const store = await openTestStore({ secretKey: 's' });
    const agent = await ensureLocalAgent(store);
    const device = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.8' });
    await setDeviceCredentials(store, device.id, 'DEVICE_MANAGEMENT', { username: 'admin', password: 'pw' });
    const reported = await reportRun(store, { device: { ip: '10.0.0.8' }, result: failure('RESOURCE_UNAVAILABLE', null) });
    expect(reported.deviceId).toBe(device.id);
    expect((await getRun(store, reported.runId))!.outcome).toBe('failure');
    expect(await count(store, 'device_credentials')).toBe(1);
    await store.close();
  });
});
