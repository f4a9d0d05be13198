// The store work of one scheduled run (G7, docs/architecture/scale-out.md: CPU per run in scale-out mode):
// the rows a run reads as it needs them (no used-variable count, no driver parameters or list of
// the driver's devices), the association with its driver, device (with its SNMP settings), kept
// state, parameter values and every scope of the device's credentials (for the request and for
// masking the result) in one statement, the association marked run inside the result's
// transaction, a slot's record written whole in one statement. The outcomes are those of
// before: the parameters, credentials and kept state reach the run, the result is masked, a deleted
// association ends it unwritten, a second result for a slot is refused, nothing of it written.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runAssociation, type AssociationRunContext, type AssociationRunHooks } from '../../host/agent/association-run.js';
import type { DeviceStateSnapshot } from '../../host/contract/device-state.js';
import type { RunRequest } from '../../host/contract/run-request.js';
import type { RunExecutor } from '../../host/contract/run-executor.js';
import { DeviceRunPruner } from '../../host/agent/device-run-pruner.js';
import { driverCodeHash } from '../../host/store/drivers/inventory-driver-code.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createAssociation, deleteAssociation } from '../../host/store/drivers/associations.js';
import { getDeviceCredentials, setDeviceCredentials } from '../../host/store/fleet/credentials.js';
import { createCustomDriver } from '../../host/store/drivers/custom-drivers.js';
import { StoreDeviceStates } from '../../host/store/runs/device-states.js';
import { createDevice, setSnmpAuthentication } from '../../host/store/fleet/devices.js';
import { getRun, runSlotOf } from '../../host/store/runs/runs.js';
import { writeScheduledRunResult, type WriteRunOptions } from '../../host/store/runs/report-run.js';
import { listDeviceTables } from '../../host/store/results/tables.js';
import { writeOwnership } from '../../host/store/drivers/ownership.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { StoreError } from '../../host/contract/errors.js';
import { SqlStatement } from '../../host/store/db/sql-statement.js';
import type { Store } from '../../host/store/store.js';
import { openTestStore } from '../helpers/store.js';
import { failure, success, variable } from '../helpers/run-results.js';

let store: Store;
beforeEach(async () => {
  store = await openTestStore({ secretKey: 'run-statements' });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
});

const hooks: AssociationRunHooks = { started() {}, finished() {}, abandoned() {} };

/** Counts the statements executed from now on (a statement made once may run more than once). */
function countExecuted(): () => number {
  const spies = (['get', 'all', 'run', 'insert'] as const).map((method) => vi.spyOn(SqlStatement.prototype, method));
  return () => spies.reduce((n, spy) => n + spy.mock.calls.length, 0);
}

async function seeded() {
  const agent = await ensureLocalAgent(store);
  const device = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.9' });
  const driver = await createCustomDriver(store, {
    name: 'nas-driver',
    code: 'function validate() { D.success(); } function get_status() { D.success(); }',
    parameters: [
      { name: 'tag', valueType: 'STRING', defaultValue: 'x' },
      { name: 'zone', valueType: 'STRING', defaultValue: 'z0' },
    ],
    minimalSamplePeriod: 300,
    requiresCredentials: false,
  });
  const association = await createAssociation(store, {
    customDriverId: driver.id,
    agentId: agent.id,
    deviceId: device.id,
    samplePeriod: 300,
    parameters: [{ parameterId: driver.parameters[0]!.id, value: 'a1' }],
  });
  // Other devices on the driver: a run no longer reads the list of them.
  for (let i = 0; i < 3; i++) {
    const other = await createDevice(store, agent.id, { displayName: `other${i}`, ip: `10.0.1.${i}` });
    await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: other.id, samplePeriod: 300 });
  }
  const requests: RunRequest[] = [];
  const executor: RunExecutor = {
    async run(request) {
      requests.push(request);
      return success([variable('v', String(request.parameters?.tag))]);
    },
    async close() {},
  };
  // As the scale-out agent runs it: the device's kept state loaded around the run.
  const ctx: AssociationRunContext = {
    store,
    executor,
    deviceStates: new StoreDeviceStates(store),
    agentId: agent.id,
    write: { activity: false },
    runPruner: new DeviceRunPruner(store, { keep: 100, onError: () => {} }),
  };
  return { agent, device, driver, association, ctx, requests };
}

describe("a scheduled run's statements", () => {
  it('a slot run of one action: 2 statements on PostgreSQL, 11 on SQLite with 3 for the health (26, then 18, then 10, then 6 on PostgreSQL, before), each row read once; its request and record as before', async () => {
    const { association, ctx, requests } = await seeded();
    const slot = { slotMs: Date.UTC(2026, 10, 27, 12), runner: 'agent-a' };
    const statements = vi.spyOn(store, 'statement');
    const executed = countExecuted();
    const [run] = await runAssociation({ ...ctx, slot }, association.id, ['get_status'], new AbortController().signal, hooks);
    const made = statements.mock.calls.map(([sql]) => sql.replace(/\s+/g, ' '));
    const count = executed();
    vi.restoreAllMocks();
    expect(run!.storeError).toBeNull();
    // A value set, and a parameter left at its default.
    expect(requests[0]!.parameters).toEqual({ tag: 'a1', zone: 'z0' });
    expect(requests[0]!.filename).toBe('nas-driver.js');
    // 26 at first: the association read in full twice, the driver with its parameters and
    // devices, a credentials statement per scope, the slot claimed then updated. 18 then: the
    // device, its credentials and SNMP settings read again for the write, the kept state read on
    // its own, the association marked run outside the write's transaction, the driver read on its
    // own, the retention bound read on PostgreSQL (which drops whole days). 10 then: the
    // parameters, credentials and the inventory's driver ids (a meta row) each read on their own,
    // the device's old runs pruned per result (now in batches: DeviceRunPruner). On PostgreSQL,
    // BEGIN and COMMIT besides.
    // 6 on PostgreSQL then (8 round trips with BEGIN and COMMIT): the write is now one statement
    // (slot-result-statement.ts).
    // The device's first run makes new variables: SQLite reads the device's variable count once
    // for its bound (StoreBounds.variablesPerDevice; a run making none reads none), PostgreSQL
    // counts inside the one statement.
    // The association's health (association-health.ts, issue 38): on SQLite 3 statements in the
    // transaction (its row, its buckets' counts, the prune), on PostgreSQL inside the one statement.
    const postgres = store.dialect === 'postgres';
    const expected = postgres ? 2 : 11;
    expect(count).toBe(expected);
    expect(made).toHaveLength(expected);
    const health = made.filter((sql) => /association_health/.test(sql));
    if (postgres) expect(health).toEqual([expect.stringMatching(/INSERT INTO runs .*INSERT INTO association_health .*INSERT INTO association_health_counts .*DELETE FROM association_health_counts/)]);
    else expect(health).toHaveLength(3);
    const boundCount = /SELECT count\(\*\)(?: AS n)? FROM variables WHERE device_id = [?$]/;
    expect(made.filter((sql) => /count\(\*\)/.test(sql.replace(boundCount, '')))).toEqual([]);
    expect(made.filter((sql) => boundCount.test(sql))).toHaveLength(1);
    // The association, its driver, device, kept state, parameters, credentials and the driver's origin in one row.
    const target = made.filter((sql) => /FROM custom_driver_associations a JOIN custom_drivers r .* JOIN devices d .* LEFT JOIN device_state s/.test(sql));
    expect(target).toHaveLength(1);
    expect(target[0]).toMatch(/FROM custom_driver_parameters .* FROM device_credentials .* FROM custom_driver_associations a/);
    expect(made.filter((sql) => /FROM custom_driver_associations a JOIN/.test(sql))).toHaveLength(1);
    expect(made.filter((sql) => /custom_driver_associations WHERE custom_driver_id/.test(sql))).toEqual([]);
    expect(made.filter((sql) => /FROM custom_driver_parameters/.test(sql))).toHaveLength(1);
    // The device once, with its SNMP settings; every scope of its credentials once.
    expect(made.filter((sql) => /FROM devices|JOIN devices/.test(sql))).toHaveLength(1);
    expect(made.filter((sql) => /device_credentials/.test(sql))).toHaveLength(1);
    expect(made.filter((sql) => /device_state/.test(sql))).toHaveLength(1);
    expect(made.filter((sql) => /UPDATE custom_driver_associations SET last_inspection_time/.test(sql))).toHaveLength(1);
    expect(target[0]).toMatch(/FROM meta WHERE key = 'agent_inventory_driver_code'/);
    // Besides the target, the retention bound on SQLite.
    expect(made.filter((sql) => /FROM meta/.test(sql))).toHaveLength(postgres ? 1 : 2);
    expect(made.filter((sql) => /^UPDATE runs/.test(sql))).toEqual([]);
    expect(made.filter((sql) => /INSERT INTO runs/.test(sql))).toHaveLength(1);
    // No run pruned here (DeviceRunPruner does it in batches); only the health's old buckets.
    expect(made.filter((sql) => /^DELETE(?! FROM association_health_counts)/.test(sql))).toEqual([]);
    if (postgres) {
      // Mark, record, variables and history: one statement, its own transaction.
      const write = made.filter((sql) => /^ WITH mark AS \(/.test(sql));
      expect(write).toHaveLength(1);
      expect(write[0]).toMatch(/INSERT INTO runs .* UPDATE variables .* INSERT INTO variables .* INSERT INTO variable_history/);
    }
    const record = (await getRun(store, run!.runId!))!;
    expect(record).toMatchObject({ outcome: 'success', action: 'get_status', variableCount: 1, tableCount: 0, associationId: association.id, driverName: 'nas-driver' });
    expect(await runSlotOf(store, run!.runId!)).toEqual({ slotMs: slot.slotMs, runner: 'agent-a' });
  });

  it("the device read once gives the run its credentials, SNMP settings and kept state, and masks the result with every scope's secrets", async () => {
    const { device, association, ctx } = await seeded();
    await setDeviceCredentials(store, device.id, 'DEVICE_MANAGEMENT', { username: 'dm-user', password: 'dm-secret-1' });
    await setDeviceCredentials(store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: 'cdm-user', password: 'cdm-secret-2' });
    await setSnmpAuthentication(store, device.id, { version: 'V2', snmp_read_community: 'community-ro-3' });
    const states = new StoreDeviceStates(store);
    const kept: DeviceStateSnapshot = { version: 1, sessions: [{ key: 'old', savedAt: 1, cookies: [{ key: 'sid', value: 'kept-1' }] }] };
    await states.save(device.id, kept);
    const requests: RunRequest[] = [];
    const leaking: RunExecutor = {
      async run(request) {
        requests.push(request);
        const left: DeviceStateSnapshot = { version: 1, sessions: [{ key: 'new', savedAt: 2, cookies: [{ key: 'sid', value: 'left-2' }] }] };
        return { ...failure('GENERIC_ERROR', 'device said dm-secret-1 cdm-secret-2 community-ro-3'), deviceState: left };
      },
      close: async () => {},
    };
    const [run] = await runAssociation({ ...ctx, executor: leaking, deviceStates: states }, association.id, ['get_status'], new AbortController().signal, hooks);
    expect(run!.storeError).toBeNull();
    expect(requests[0]!.device).toMatchObject({ username: 'cdm-user', password: 'cdm-secret-2', snmp: { version: 'v2c', community: 'community-ro-3' } });
    expect(requests[0]!.deviceState).toEqual(kept);
    const record = (await getRun(store, run!.runId!))!;
    expect(record.errorMessage).toBe('device said *** *** ***');
    // Merged with what was kept: both sessions.
    expect((await states.load(device.id))!.sessions.map((s) => s.key).sort()).toEqual(['new', 'old']);
  });

  it('a second result for the slot is refused (DUPLICATE_RUN), nothing of it written', async () => {
    const { device, association, ctx } = await seeded();
    const slot = { slotMs: Date.UTC(2026, 10, 27, 13), runner: 'agent-a' };
    await runAssociation({ ...ctx, slot }, association.id, ['get_status'], new AbortController().signal, hooks);
    const other: RunExecutor = { run: async () => success([variable('v', 'second'), variable('w', 'new')]), close: async () => {} };
    const [second] = await runAssociation({ ...ctx, executor: other, slot: { ...slot, runner: 'agent-b' } }, association.id, ['get_status'], new AbortController().signal, hooks);
    expect(second!.storeError).toBeInstanceOf(StoreError);
    expect((second!.storeError as StoreError).code).toBe('DUPLICATE_RUN');
    const values = await store.statement<[number], { path: string; value: string }>('SELECT path, value FROM variables WHERE device_id = ? ORDER BY path').all(device.id);
    expect(values).toEqual([{ path: 'v', value: 'a1' }]);
    const runs = await store.statement<[number], { n: number }>('SELECT count(*) AS n FROM runs WHERE association_id = ?').get(association.id);
    expect(Number(runs!.n)).toBe(1);
  });

  it('an association deleted while its run goes writes nothing', async () => {
    const { driver, association, ctx } = await seeded();
    const deleting: RunExecutor = {
      async run(request) {
        await deleteAssociation(store, driver.id, association.id);
        return ctx.executor.run(request);
      },
      close: async () => {},
    };
    const [run] = await runAssociation({ ...ctx, executor: deleting }, association.id, ['get_status'], new AbortController().signal, hooks);
    expect(run).toMatchObject({ runId: null, storeError: null });
    const runs = await store.statement<[], { n: number }>('SELECT count(*) AS n FROM runs').get();
    expect(Number(runs!.n)).toBe(0);
  });

  it("the code's origin comes with the target: the inventory's file for the driver may reach any host, other code under its id or an API driver none", async () => {
    const { driver, association, ctx, requests } = await seeded();
    const run = async () => {
      requests.length = 0;
      await runAssociation(ctx, association.id, ['get_status'], new AbortController().signal, hooks);
      return requests[0]!.externalHosts;
    };
    expect(await run()).toEqual([]);
    await writeOwnership(store, { devices: {}, drivers: { 'nas-driver': driver.id }, associations: {} }, { [driver.id]: driverCodeHash(driver.source) });
    expect(await run()).toBeUndefined();
    // The stored source changed (an update through the API): the same id, other code, no privilege.
    await store.statement('UPDATE custom_drivers SET source = ? WHERE id = ?').run(`${driver.source}\n`, driver.id);
    expect(await run()).toEqual([]);
    await store.statement('UPDATE custom_drivers SET source = ? WHERE id = ?').run(driver.source, driver.id);
    expect(await run()).toBeUndefined();
    // A store with only the old record of driver ids (a privilege by id): no privilege until the inventory syncs again.
    await store.statement('DELETE FROM meta WHERE key = ?').run('agent_inventory_driver_code');
    await store.statement('INSERT INTO meta (key, value) VALUES (?, ?)').run('agent_inventory_driver_ids', JSON.stringify([driver.id]));
    expect(await run()).toEqual([]);
    await writeOwnership(store, { devices: {}, drivers: {}, associations: {} }, {});
    expect(await run()).toEqual([]);
  });

  it('driver credentials: the first scope given wins, read in one statement', async () => {
    const { device } = await seeded();
    expect(await getDeviceCredentials(store, device.id)).toBeUndefined();
    await setDeviceCredentials(store, device.id, 'DEVICE_MANAGEMENT', { username: 'dm', password: 'p1' });
    expect(await getDeviceCredentials(store, device.id)).toEqual({ scope: 'DEVICE_MANAGEMENT', username: 'dm', password: 'p1' });
    await setDeviceCredentials(store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: 'cdm', password: 'p2' });
    const executed = countExecuted();
    expect(await getDeviceCredentials(store, device.id)).toEqual({ scope: 'CUSTOM_DRIVER_MANAGEMENT', username: 'cdm', password: 'p2' });
    vi.restoreAllMocks();
    expect(executed()).toBe(1);
    await store.statement('DELETE FROM device_credentials WHERE device_id = ? AND scope = ?').run(device.id, 'CUSTOM_DRIVER_MANAGEMENT');
    const again = countExecuted();
    expect(await getDeviceCredentials(store, device.id)).toMatchObject({ scope: 'DEVICE_MANAGEMENT' });
    vi.restoreAllMocks();
    expect(again()).toBe(1);
    await setDeviceCredentials(store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: 'cdm', password: 'p2' });
    expect(await getDeviceCredentials(store, device.id, ['DEVICE_MANAGEMENT', 'CUSTOM_DRIVER_MANAGEMENT'])).toMatchObject({ scope: 'DEVICE_MANAGEMENT' });
    expect(await getDeviceCredentials(store, device.id, [])).toBeUndefined();
  });
});

// On PostgreSQL a slot's result is one statement (slot-result-statement.ts); on SQLite the
// transaction. Both must store the same: these run on both databases.
describe("a slot's result, as stored", () => {
  async function slotWriter() {
    const { agent, device, association, driver } = await seeded();
    const target = { agentId: agent.id, deviceId: device.id, customDriverId: driver.id, associationId: association.id, driverName: driver.name };
    let slotMs = Date.UTC(2026, 10, 28, 0);
    const write = (result: RunResult, extra: WriteRunOptions = {}) =>
      writeScheduledRunResult(store, target, result, { activity: false, deviceSecrets: [], slot: { slotMs: (slotMs += 60_000), runner: 'agent-a' }, ...extra });
    const rows = () =>
      store
        .statement<[number], { id: number; path: string; value: string | null; previous_value: string | null; label: string | null; unit: string | null; value_type: string | null; creation_time: number; value_update_time: number; association_id: number }>(
          'SELECT id, path, value, previous_value, label, unit, value_type, creation_time, value_update_time, association_id FROM variables WHERE device_id = ? ORDER BY path',
        )
        .all(device.id);
    const samples = async (id: number) =>
      (await store.statement<[number], { value: string | null; timestamp: number }>('SELECT value, timestamp FROM variable_history WHERE variable_id = ? ORDER BY timestamp').all(id)).map((r) => [Number(r.timestamp), r.value]);
    return { device, association, write, rows, samples };
  }

  it('updates what the device has (its previous value kept), inserts the rest, one history sample each, ids in the order reported', async () => {
    const { association, write, rows, samples } = await slotWriter();
    const first = (await write(success([variable('v', '1', { unit: 'C' }), variable('w', 'x')])))!;
    const before = await rows();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await write(success([variable('w', 'y', { label: 'Dubya' }), variable('v', '2', { unit: 'F', valueType: 'NUMBER' }), variable('z', null)])))!;
    const after = await rows();
    const byPath = new Map(after.map((row) => [row.path, row]));
    expect(after.map((row) => row.path)).toEqual(['v', 'w', 'z']);
    expect(second.variableIds).toEqual(['w', 'v', 'z'].map((path) => Number(byPath.get(path)!.id)));
    expect(first.variableIds).toEqual(['v', 'w'].map((path) => Number(byPath.get(path)!.id)));
    expect(byPath.get('v')).toMatchObject({ value: '2', previous_value: '1', unit: 'F', value_type: 'NUMBER', label: 'V' });
    expect(byPath.get('w')).toMatchObject({ value: 'y', previous_value: 'x', label: 'Dubya' });
    expect(byPath.get('z')).toMatchObject({ value: null, previous_value: null });
    // Kept: the id and creation time; moved: the update time.
    const v0 = before.find((row) => row.path === 'v')!;
    expect(Number(byPath.get('v')!.creation_time)).toBe(Number(v0.creation_time));
    expect(Number(byPath.get('v')!.value_update_time)).toBeGreaterThan(Number(v0.value_update_time));
    expect(Number(byPath.get('z')!.creation_time)).toBe(Number(byPath.get('z')!.value_update_time));
    expect(after.every((row) => Number(row.association_id) === association.id)).toBe(true);
    const t1 = Number(v0.value_update_time);
    const t2 = Number(byPath.get('v')!.value_update_time);
    expect(await samples(Number(byPath.get('v')!.id))).toEqual([[t1, '1'], [t2, '2']]);
    expect(await samples(Number(byPath.get('z')!.id))).toEqual([[t2, null]]);
    const record = (await getRun(store, second.runId))!;
    expect(record).toMatchObject({ outcome: 'success', variableCount: 3, tableCount: 0, associationId: association.id });
    const marked = await store.statement<[number], { t: number }>('SELECT last_inspection_time AS t FROM custom_driver_associations WHERE id = ?').get(association.id);
    expect(Number(marked!.t)).toBe(t2);
  });

  it("a failure stores its record and leaves the device's variables as they were", async () => {
    const { write, rows } = await slotWriter();
    await write(success([variable('v', '1')]));
    const before = await rows();
    const failed = (await write(failure('TIMEOUT_ERROR', 'no answer')))!;
    expect(failed.variableIds).toEqual([]);
    expect(await rows()).toEqual(before);
    expect(await getRun(store, failed.runId)).toMatchObject({ outcome: 'failure', errorType: 'TIMEOUT_ERROR', errorMessage: 'no answer', variableCount: 0 });
  });

  it('tables, or more variables than one statement takes, go through the transaction and are stored whole', async () => {
    const { device, write, rows } = await slotWriter();
    const table = { label: 'disks', columnHeaders: [{ label: 'Name' }], rows: [['d1', 'sda']] };
    const executed = countExecuted();
    const withTable = (await write(success([variable('v', '1')], { tables: [table] as RunResult['tables'] })))!;
    if (store.dialect === 'postgres') expect(executed()).toBeGreaterThan(1);
    expect((await listDeviceTables(store, device.id)).map((t) => t.label)).toEqual(['disks']);
    expect(await getRun(store, withTable.runId)).toMatchObject({ tableCount: 1, variableCount: 1 });
    const many = Array.from({ length: 150 }, (_, i) => variable(`m${String(i).padStart(3, '0')}`, String(i)));
    const written = (await write(success(many)))!;
    const stored = new Map((await rows()).map((row) => [row.path, Number(row.id)]));
    expect(written.variableIds).toEqual(many.map((v) => stored.get(v.uid)));
  });

  it('a NUL in a path or value is kept as U+FFFD on PostgreSQL; paths that become one are written in turn', async () => {
    const { write, rows } = await slotWriter();
    const postgres = store.dialect === 'postgres';
    await write(success([variable('a\u0000b', 'x\u0000')]));
    expect((await rows()).map((row) => [row.path, row.value])).toEqual([[postgres ? 'a\uFFFDb' : 'a\u0000b', postgres ? 'x\uFFFD' : 'x\u0000']]);
    const both = (await write(success([variable('p\u0000', '1'), variable('p\uFFFD', '2')])))!;
    expect(both.variableIds).toHaveLength(2);
    const p = (await rows()).filter((row) => row.path.startsWith('p'));
    expect(p.map((row) => row.value)).toEqual(postgres ? ['2'] : ['1', '2']);
  });

  it('an association gone before the write stores nothing and answers null; a run out of time writes nothing (RUN_TOO_LATE)', async () => {
    const { association, write, rows } = await slotWriter();
    const late = new AbortController();
    late.abort(new Error('deadline'));
    await expect(write(success([variable('v', '1')]), { until: late.signal })).rejects.toMatchObject({ code: 'RUN_TOO_LATE' });
    expect(await rows()).toEqual([]);
    await store.statement('DELETE FROM custom_driver_associations WHERE id = ?').run(association.id);
    expect(await write(success([variable('v', '1')]))).toBeNull();
    expect(await rows()).toEqual([]);
    const runs = await store.statement<[], { n: number }>('SELECT count(*) AS n FROM runs').get();
    expect(Number(runs!.n)).toBe(0);
  });

  it('a second result for the slot is refused and leaves the first as stored', async () => {
    const { write, rows } = await slotWriter();
    const slot = { slotMs: Date.UTC(2026, 10, 28, 6), runner: 'agent-a' };
    const first = (await write(success([variable('v', '1')]), { slot }))!;
    const stored = await rows();
    await expect(write(success([variable('v', '2'), variable('w', '3')]), { slot: { ...slot, runner: 'agent-b' } })).rejects.toMatchObject({ code: 'DUPLICATE_RUN' });
    expect(await rows()).toEqual(stored);
    expect(await runSlotOf(store, first.runId)).toEqual({ slotMs: slot.slotMs, runner: 'agent-a' });
  });
});
