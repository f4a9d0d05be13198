// An agent's runs kept per device, pruned in batches (G7, docs/architecture/scale-out.md): the devices written
// since the last prune, all in one statement, every N results or after a delay; nothing else
// touched; a device keeps its newest runs.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeviceRunPruner } from '../../host/agent/device-run-pruner.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { writeRunResult } from '../../host/store/runs/report-run.js';
import { listDeviceRuns } from '../../host/store/runs/runs.js';
import type { Store } from '../../host/store/store.js';
import { success, variable } from '../helpers/run-results.js';
import { openTestStore } from '../helpers/store.js';

let store: Store;
const clock = { now: Date.UTC(2026, 10, 27, 12) };
beforeEach(async () => {
  store = await openTestStore({ clock: () => clock.now });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
});

async function devicesWithRuns(count: number, runs: number) {
  const agent = await ensureLocalAgent(store);
  const devices: { id: number; runIds: number[] }[] = [];
  for (let d = 0; d < count; d++) devices.push({ id: (await createDevice(store, agent.id, { displayName: `dev${d}`, ip: `10.0.2.${d}` })).id, runIds: [] });
  for (let r = 0; r < runs; r++) {
    clock.now += 1000;
    for (const device of devices) device.runIds.push((await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, success([variable('v', String(r))]), { activity: false })).runId);
  }
  return devices;
}

const kept = async (deviceId: number) => (await listDeviceRuns(store, deviceId)).map((r) => r.id);

describe('DeviceRunPruner', () => {
  it('prunes the devices noted, in one statement, after the delay: each keeps its newest runs, a device not noted keeps all', async () => {
    const [a, b, c] = await devicesWithRuns(3, 4);
    const errors: Error[] = [];
    const pruner = new DeviceRunPruner(store, { keep: 2, everyResults: 100, everyMs: 50, onError: (e) => errors.push(e) });
    // This store's statements only: with no per-file isolation another file's store may still be closing.
    const statements = vi.spyOn(store, 'statement');
    const deletes = () => statements.mock.calls.filter(([sql]) => sql.includes('DELETE FROM runs')).length;
    pruner.noted(a!.id);
    pruner.noted(b!.id);
    pruner.noted(a!.id);
    // Nothing before the delay.
    expect(await kept(a!.id)).toHaveLength(4);
    await vi.waitFor(async () => expect(await kept(a!.id)).toEqual(a!.runIds.slice(2).reverse()), { timeout: 5000, interval: 20 });
    expect(deletes()).toBe(1);
    expect(await kept(b!.id)).toEqual(b!.runIds.slice(2).reverse());
    expect(await kept(c!.id)).toEqual(c!.runIds.slice().reverse());
    expect(errors).toEqual([]);
  });

  it('prunes at once after everyResults results, and on prune() (the agent stopping)', async () => {
    const [a, b] = await devicesWithRuns(2, 3);
    const pruner = new DeviceRunPruner(store, { keep: 1, everyResults: 2, everyMs: 3_600_000, onError: (e) => { throw e; } });
    pruner.noted(a!.id);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await kept(a!.id)).toHaveLength(3);
    pruner.noted(a!.id);
    await vi.waitFor(async () => expect(await kept(a!.id)).toEqual([a!.runIds[2]]), { timeout: 5000, interval: 20 });
    pruner.noted(b!.id);
    expect(await kept(b!.id)).toHaveLength(3);
    await pruner.prune();
    expect(await kept(b!.id)).toEqual([b!.runIds[2]]);
  });

  it('a failed prune is reported and its devices pruned by the next one', async () => {
    const [a] = await devicesWithRuns(1, 3);
    const errors: Error[] = [];
    const pruner = new DeviceRunPruner(store, { keep: 1, everyMs: 3_600_000, onError: (e) => errors.push(e) });
    pruner.noted(a!.id);
    const real = store.statement.bind(store);
    const fail = vi.spyOn(store, 'statement').mockImplementationOnce((sql, options) => {
      const statement = real(sql, options);
      vi.spyOn(statement, 'run').mockRejectedValueOnce(new Error('store down'));
      return statement;
    });
    await pruner.prune();
    expect(errors.map((e) => e.message)).toEqual(['could not prune the runs of 1 device(s): store down']);
    expect(await kept(a!.id)).toHaveLength(3);
    fail.mockRestore();
    await pruner.prune();
    expect(await kept(a!.id)).toEqual([a!.runIds[2]]);
  });

  it('refuses bad bounds with what is wrong', () => {
    const onError = () => {};
    expect(() => new DeviceRunPruner(store, { keep: -1, onError })).toThrow('DeviceRunPruner: keep must be an integer ≥ 0 (got -1)');
    expect(() => new DeviceRunPruner(store, { keep: 3, everyResults: 0, onError })).toThrow('everyResults must be an integer ≥ 1');
    expect(() => new DeviceRunPruner(store, { keep: 3, everyMs: 1.5, onError })).toThrow('everyMs must be an integer ≥ 1');
  });
});
