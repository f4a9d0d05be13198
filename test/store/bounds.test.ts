// Bounds that hold over time (StoreBounds): a device's variables, and the run records of writes
// that are not an agent's scheduled runs (API executions, run --report). Every writer of results
// keeps them — the general transaction, a scheduled slot's write (on PostgreSQL one statement)
// and the Monitoring API's execute action — with a warning that names what was refused.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../../host/config/server-config.js';
import { ConfigError } from '../../host/contract/errors.js';
import { startMonitoringServer } from '../../host/api/monitoring/server.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { DEFAULT_STORE_BOUNDS, openStore, StoreError, type Store } from '../../host/store/index.js';
import { writeRunResult, writeScheduledRunResult } from '../../host/store/runs/report-run.js';
import { getRun, listDeviceRuns } from '../../host/store/runs/runs.js';
import { useHost } from '../helpers/host.js';
import { success, variable } from '../helpers/run-results.js';
import { openTestStore } from '../helpers/store.js';

const host = useHost();

async function seeded(store: Store) {
  const agent = await ensureLocalAgent(store);
  const device = await createDevice(store, agent.id, { displayName: 'grower', ip: '10.0.0.9' });
  const now = store.now();
  const driverId = await store
    .statement(`INSERT INTO custom_drivers (name, source, inspection, creation_time, update_time) VALUES (?, 'function get_status() { D.success(); }', '{}', ?, ?)`)
    .insert('grower.js', now, now);
  const associationId = await store
    .statement(`INSERT INTO custom_driver_associations (custom_driver_id, agent_id, device_id, sample_period, creation_time, last_inspection_time) VALUES (?, ?, ?, 300, ?, ?)`)
    .insert(driverId, agent.id, device.id, now, now);
  return { agent, device, target: { agentId: agent.id, deviceId: device.id, customDriverId: driverId, associationId, driverName: 'grower.js' } };
}

const vars = (prefix: string, n: number, value = '1') => Array.from({ length: n }, (_, i) => variable(`${prefix}${i}`, value));

async function variableRows(store: Store, deviceId: number) {
  return await store.statement<[number], { id: number; path: string; value: string | null }>('SELECT id, path, value FROM variables WHERE device_id = ? ORDER BY path').all(deviceId);
}

const historyCount = async (store: Store, deviceId: number) =>
  Number((await store.statement<[number], { n: number }>('SELECT count(*) AS n FROM variable_history h JOIN variables v ON v.id = h.variable_id WHERE v.device_id = ?').get(deviceId))!.n);

const refusedWarning = (max: number, uids: string[], more = 0) =>
  `the device has reached its bound of ${max} variables: ${uids.length + more} new variable${uids.length + more === 1 ? '' : 's'} of this run not stored (` +
  `${uids.map((u) => JSON.stringify(u)).join(', ')}${more ? ` and ${more} more` : ''}); the ones it has are still updated (store bound variablesPerDevice)`;

describe('store bounds', () => {
  it('defaults: 2000 variables, 100 runs and 100 tables per device; a bound that is not a positive integer or null is refused', async () => {
    expect(DEFAULT_STORE_BOUNDS).toEqual({ variablesPerDevice: 2000, runsPerDevice: 100, tablesPerDevice: 100 });
    const store = await openTestStore();
    try {
      expect(store.bounds).toEqual(DEFAULT_STORE_BOUNDS);
    } finally {
      await store.close();
    }
    await expect(openStore({ path: ':memory:', bounds: { variablesPerDevice: 0 } })).rejects.toThrow(
      new StoreError('INVALID', 'store bounds: variablesPerDevice must be an integer ≥ 1 or null (got 0)'),
    );
  });

  it('the server config file (serve, agent) sets them: storeBounds, null for none; a wrong one is a config error', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-bounds-'));
    const config = (storeBounds: unknown) => {
      const file = path.join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ store: ':memory:', apiKeys: ['12345678'], secretKey: '12345678', storeBounds }));
      return resolveServerConfig({ flags: { config: file }, env: {}, cwd: dir });
    };
    expect(config({ variablesPerDevice: 5000, runsPerDevice: null }).storeBounds).toEqual({ variablesPerDevice: 5000, runsPerDevice: null });
    expect(() => config({ variablesPerDevice: 0 })).toThrow(new ConfigError(`${path.join(dir, 'config.json')}: storeBounds.variablesPerDevice must be an integer ≥ 1, or null for no bound`));
    expect(() => config({ variables: 5 })).toThrow(/unknown field "storeBounds.variables" \(known: variablesPerDevice, runsPerDevice, tablesPerDevice\)/);
  });

  for (const writer of ['writeRunResult', 'a scheduled slot'] as const) {
    it(`variables per device through ${writer}: existing ones updated, new ones past the bound refused with a warning, no row and no history for them`, async () => {
      const store = await openTestStore({ bounds: { variablesPerDevice: 10 } });
      try {
        const { device, target } = await seeded(store);
        let slotMs = Date.UTC(2026, 10, 29, 0);
        const write = (result: ReturnType<typeof success>) =>
          writer === 'writeRunResult'
            ? writeRunResult(store, target, result)
            : writeScheduledRunResult(store, target, result, { activity: false, deviceSecrets: [], slot: { slotMs: (slotMs += 60_000) } }).then((r) => r!);

        const first = await write(success(vars('a', 6)));
        expect(first.warnings).toEqual([]);
        expect(first.variableIds).toHaveLength(6);

        // 6 the device has (new values) and 14 new: room for 4, in the order reported.
        const second = await write(success([...vars('a', 6, '2'), ...vars('n', 14)]));
        const warning = refusedWarning(10, ['n4', 'n5', 'n6', 'n7', 'n8', 'n9', 'n10', 'n11', 'n12', 'n13']);
        expect(second.warnings).toEqual([warning]);
        expect(second.variableIds).toHaveLength(10);
        const run = (await getRun(store, second.runId))!;
        expect(run.warnings).toEqual([warning]);
        expect(run.variableCount).toBe(10);
        const rows = await variableRows(store, device.id);
        expect(rows.map((r) => r.path)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'n0', 'n1', 'n2', 'n3']);
        expect(rows.filter((r) => r.path.startsWith('a')).every((r) => r.value === '2')).toBe(true);
        expect(await historyCount(store, device.id)).toBe(6 + 10);

        // Full: what it has is still updated; every new one is refused, more than ten counted.
        const third = await write(success([...vars('n', 4, '3'), ...vars('z', 12)]));
        expect(third.warnings).toEqual([refusedWarning(10, vars('z', 10).map((v) => v.uid), 2)]);
        expect(third.variableIds).toHaveLength(4);
        expect((await variableRows(store, device.id)).filter((r) => r.value === '3').map((r) => r.path)).toEqual(['n0', 'n1', 'n2', 'n3']);
        expect(await variableRows(store, device.id)).toHaveLength(10);
        expect(await historyCount(store, device.id)).toBe(16 + 4);
      } finally {
        await store.close();
      }
    });
  }

  it('tables per device: the ones the device has are replaced, new labels past the bound refused with a warning', async () => {
    const store = await openTestStore({ bounds: { tablesPerDevice: 2 } });
    try {
      const { device, target } = await seeded(store);
      const table = (label: string, value: string) => ({ label, columnHeaders: [{ label: 'V', unit: null, valueType: 'STRING' }], rows: [[`${label}-1`, value]] });
      let slotMs = Date.UTC(2026, 10, 29, 0);
      expect((await writeRunResult(store, target, success([], { tables: [table('t1', 'a')] }))).warnings).toEqual([]);
      const second = (await writeScheduledRunResult(store, target, success([], { tables: [table('t1', 'b'), table('t2', 'b'), table('t3', 'b'), table('t4', 'b')] }), {
        activity: false,
        deviceSecrets: [],
        slot: { slotMs: (slotMs += 60_000) },
      }))!;
      const warning = 'the device has reached its bound of 2 tables: 2 new tables of this run not stored ("t3", "t4"); the ones it has are still updated (store bound tablesPerDevice)';
      expect(second.warnings).toEqual([warning]);
      expect(await getRun(store, second.runId)).toMatchObject({ warnings: [warning], tableCount: 2 });
      const rows = await store.statement<[number], { label: string; rows: string }>('SELECT label, rows FROM device_tables WHERE device_id = ? ORDER BY label').all(device.id);
      expect(rows).toEqual([{ label: 't1', rows: '[["t1-1","b"]]' }, { label: 't2', rows: '[["t2-1","b"]]' }]);
    } finally {
      await store.close();
    }
  });

  it('a run record keeps at most 2048 characters of an exchange URL or error message, with a warning; with a refused variable the record has both warnings', async () => {
    const store = await openTestStore({ bounds: { variablesPerDevice: 1 } });
    try {
      const { target } = await seeded(store);
      const exchange = (url: string, errorMessage: string | null) => ({
        method: 'GET', url, status: errorMessage ? null : 200, error: errorMessage ? 'ECONNRESET' : null, errorMessage,
        startedMs: 0, headersMs: null, durationMs: 1, requestBytes: 0, responseBytes: 0, redirectedTo: null,
      });
      const long = `http://10.0.0.9/${'p'.repeat(5000)}`;
      const http = [exchange('http://10.0.0.9/short', null), exchange(long, 'x'.repeat(3000))];
      const written = (await writeScheduledRunResult(store, target, success([variable('a', '1'), variable('b', '1')], { http }), {
        activity: false, deviceSecrets: [], slot: { slotMs: Date.UTC(2026, 10, 29, 1) },
      }))!;
      const run = (await getRun(store, written.runId))!;
      expect(run.http[0]).toEqual(http[0]);
      expect(run.http[1]!.url).toBe(`${long.slice(0, 2048)}…(${long.length - 2048} more characters not stored)`);
      expect(run.http[1]!.errorMessage).toBe(`${'x'.repeat(2048)}…(952 more characters not stored)`);
      expect(run.warnings).toEqual([
        '2 HTTP exchange URL(s) or error message(s) longer than 2048 characters were cut in the stored run record',
        refusedWarning(1, ['b']),
      ]);
    } finally {
      await store.close();
    }
  });

  it('writeRunResult keeps the store\'s runsPerDevice newest runs of the device; keepRunsPerDevice null keeps all; a scheduled run is left to its agent\'s pruner', async () => {
    const clock = { now: Date.UTC(2026, 10, 29, 0) };
    const store = await openTestStore({ bounds: { runsPerDevice: 3 }, clock: () => clock.now });
    try {
      const { device, target } = await seeded(store);
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) {
        clock.now += 1000;
        ids.push((await writeRunResult(store, target, success([variable('x', String(i))]))).runId);
      }
      expect((await listDeviceRuns(store, device.id)).map((r) => r.id)).toEqual(ids.slice(3).reverse());
      clock.now += 1000;
      const kept = (await writeRunResult(store, target, success([]), { keepRunsPerDevice: null })).runId;
      clock.now += 1000;
      const scheduled = (await writeScheduledRunResult(store, target, success([]), { activity: false }))!.runId;
      expect((await listDeviceRuns(store, device.id)).map((r) => r.id)).toEqual([scheduled, kept, ...ids.slice(3).reverse()]);
    } finally {
      await store.close();
    }
  });

  it('through the Monitoring API: executions are pruned to runsPerDevice, and a driver naming new variables every run is told where the bound bit', async () => {
    const store = await openTestStore({ secretKey: 'bounds', bounds: { runsPerDevice: 3, variablesPerDevice: 5 } });
    const server = await startMonitoringServer({ store, apiKeys: ['k'], host });
    const client = new MonitoringClient({ baseUrl: server.url, apiKey: 'k' });
    try {
      const agent = await ensureLocalAgent(store);
      const device = await createDevice(store, agent.id, { displayName: 'noisy', ip: '192.0.2.20' });
      // Four new uids every run, and a log line of 1 KB.
      const driver = await client.createCustomDriver({
        name: 'noisy',
        code: `function validate() { D.success(); }
function get_status() {
  console.info(new Array(1025).join('x'));
  var stamp = String(Math.random()).slice(2, 10);
  D.success([0, 1, 2, 3].map(function (i) { return D.createVariable('v' + stamp + i, 'V', i); }));
}`,
      });
      await client.createCustomDriverAssociation(driver.id, agent.id, device.id, {});
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await client.executeCustomDriverAction(driver.id, agent.id, device.id, 0));
      expect(answers.map((a) => a.outcome)).toEqual(['success', 'success', 'success', 'success', 'success']);
      expect(answers[0]!.log!.filter((l) => l.startsWith('warning:'))).toEqual([]);
      // Run 2 fits one of its four; runs 3-5 none.
      expect(answers[1]!.log!.find((l) => l.startsWith('warning:'))).toMatch(/^warning: the device has reached its bound of 5 variables: 3 new variables of this run not stored \("v\d+[123]", /);
      for (const later of answers.slice(2)) expect(later.log!.find((l) => l.startsWith('warning:'))).toMatch(/: 4 new variables of this run not stored/);
      expect((await variableRows(store, device.id)).length).toBe(5);
      const runs = await listDeviceRuns(store, device.id);
      expect(runs).toHaveLength(3);
      expect(runs.every((r) => r.log[0]!.message.length === 1024)).toBe(true);
    } finally {
      await client.close();
      await server.close();
      await store.close();
    }
  }, 60_000);
});
