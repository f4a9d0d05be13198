// An association's health (host/store/runs/association-health.ts), written with each result on
// both databases and through each writer: the scheduled write (on PostgreSQL a slot's result is
// one statement, slot-result-statement.ts; on SQLite the transaction), the general transaction
// (tables), and an API execution's writeRunResult. The store's clock is the test's, so the
// streak's times, the ratios' windows and the buckets' pruning are exact.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAssociation, getAssociation } from '../../host/store/drivers/associations.js';
import { createCustomDriver } from '../../host/store/drivers/custom-drivers.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { writeRunResult, writeScheduledRunResult, type WriteRunOptions } from '../../host/store/runs/report-run.js';
import { listAssociationHealth } from '../../host/store/runs/association-health-list.js';
import { getRun } from '../../host/store/runs/runs.js';
import type { RunResult } from '../../host/contract/run-result.js';
import type { Store } from '../../host/store/store.js';
import { openTestStore } from '../helpers/store.js';
import { failure, success, variable } from '../helpers/run-results.js';

const T0 = Date.UTC(2026, 10, 29, 2, 50, 0);
const clock = { now: T0 };
let store: Store;
beforeEach(async () => {
  clock.now = T0;
  store = await openTestStore({ secretKey: 'health', clock: () => clock.now });
});
afterEach(async () => {
  await store.close();
});

async function seeded(period = 300) {
  const agent = await ensureLocalAgent(store);
  const nas = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.9' });
  const ups = await createDevice(store, agent.id, { displayName: 'ups', ip: '10.0.0.10' });
  const driver = await createCustomDriver(store, {
    name: 'login',
    code: 'function validate() { D.success(); } function get_status() { D.success(); } /** @remote_procedure @label Reboot */ function custom_1() { D.success(); }',
    minimalSamplePeriod: 300,
    requiresCredentials: false,
  });
  const onNas = await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: nas.id, samplePeriod: period });
  const onUps = await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: ups.id, samplePeriod: period });
  const target = (association: { id: number; deviceId: number }) => ({ agentId: agent.id, deviceId: association.deviceId, customDriverId: driver.id, associationId: association.id, driverName: 'login' });
  /** A scheduled result at the clock's now (the slot's one-statement write on PostgreSQL when `slot`). */
  let slots = 0;
  const scheduled = async (association: { id: number; deviceId: number }, result: RunResult, options: WriteRunOptions = {}) => {
    const write: WriteRunOptions = { activity: false, deviceSecrets: [], ...options };
    return (await writeScheduledRunResult(store, target(association), result, write))!;
  };
  const slot = async (association: { id: number; deviceId: number }, result: RunResult, latenessMs = 0) =>
    scheduled(association, result, { slot: { slotMs: T0 + ++slots * 1000, runner: 'a' }, latenessMs });
  const health = async (association: { id: number }, action = 'get_status') =>
    (await listAssociationHealth(store, { agentId: agent.id })).find((h) => h.associationId === association.id && h.action === action)!;
  return { agent, nas, ups, driver, onNas, onUps, target, scheduled, slot, health };
}

const authFailure = () => failure('AUTHENTICATION_ERROR', 'the device refused the login (401)');

describe("an association's health", () => {
  it('counts a failure streak from its first failure; a success ends it; each writer (slot statement, transaction) writes the same', async () => {
    const { onNas, slot, scheduled, health } = await seeded();
    expect((await health(onNas as never, null as never))).toMatchObject({ state: 'pending', action: null, consecutiveFailures: 0, lastRunTime: null });
    const first = await slot(onNas, authFailure(), 1200);
    let h = await health(onNas);
    expect(h).toMatchObject({
      state: 'failing',
      lastOutcome: 'failure',
      errorType: 'AUTHENTICATION_ERROR',
      errorMessage: 'the device refused the login (401)',
      failingSince: T0,
      consecutiveFailures: 1,
      lastSuccessTime: null,
      lastFailureTime: T0,
      lastRunId: first.runId,
      lastRunTime: T0,
      latenessMs: 1200,
      elapsedMs: 25,
    });
    // Two more failures a minute apart, one through the general transaction (a table): the streak
    // grows, its start stays at the first failure.
    clock.now += 60_000;
    await slot(onNas, authFailure());
    clock.now += 60_000;
    const third = await scheduled(onNas, failure('AUTHENTICATION_ERROR', 'still refused', { tables: [] }), { keepRunsPerDevice: 100 });
    h = await health(onNas);
    expect(h).toMatchObject({ state: 'failing', failingSince: T0, consecutiveFailures: 3, lastFailureTime: T0 + 120_000, errorMessage: 'still refused', lastRunId: third.runId, latenessMs: null });
    // The association's last_inspection_time (Public API) is the health's last run, to the ms.
    expect((await getAssociation(store, onNas.id))!.lastInspectionTime).toBe(h.lastRunTime);
    clock.now += 60_000;
    const ok = await slot(onNas, success([variable('uptime', '5')]));
    h = await health(onNas);
    expect(h).toMatchObject({ state: 'ok', lastOutcome: 'success', errorType: null, errorMessage: null, failingSince: null, consecutiveFailures: 0, lastSuccessTime: T0 + 180_000, lastFailureTime: T0 + 120_000, lastRunId: ok.runId });
    expect(h.runs1h).toBe(4);
    expect(h.successes1h).toBe(1);
    expect(h.successRatio1h).toBe(0.25);
    expect(h.successRatio24h).toBe(0.25);
    // A new streak starts at its own first failure.
    clock.now += 60_000;
    await slot(onNas, failure('RESOURCE_UNAVAILABLE', 'no route'));
    h = await health(onNas);
    expect(h).toMatchObject({ failingSince: T0 + 240_000, consecutiveFailures: 1, errorType: 'RESOURCE_UNAVAILABLE', lastSuccessTime: T0 + 180_000 });
    expect(await getRun(store, h.lastRunId!)).toMatchObject({ outcome: 'failure', errorType: 'RESOURCE_UNAVAILABLE', associationId: onNas.id });
  });

  it('success ratios over the last hour and day from their buckets, old buckets pruned by the writes (at most 61 + 25 rows)', async () => {
    const { onNas, slot, health } = await seeded();
    // 26 hours, one run every 10 minutes: failures during the first 2 hours, then successes
    // except every third run.
    const outcomes: boolean[] = [];
    for (let i = 0; i < 26 * 6; i++) {
      const ok = i >= 12 && i % 3 !== 0;
      outcomes.push(ok);
      await slot(onNas, ok ? success([]) : authFailure());
      clock.now += 600_000;
    }
    clock.now -= 600_000; // now: the last run's time
    const times = outcomes.map((_, i) => T0 + i * 600_000);
    const minuteStart = Math.floor(clock.now / 60_000) * 60_000 - 59 * 60_000;
    const hourStart = Math.floor(clock.now / 3_600_000) * 3_600_000 - 23 * 3_600_000;
    const within = (from: number) => outcomes.filter((_, i) => times[i]! >= from);
    const h = await health(onNas);
    expect(h.runs1h).toBe(within(minuteStart).length);
    expect(h.successes1h).toBe(within(minuteStart).filter(Boolean).length);
    expect(h.runs24h).toBe(within(hourStart).length);
    expect(h.successes24h).toBe(within(hourStart).filter(Boolean).length);
    expect(h.successRatio24h).toBeCloseTo(within(hourStart).filter(Boolean).length / within(hourStart).length, 10);
    // Runs of the first two hours (all failures) have left the day's window.
    expect(h.runs24h).toBeLessThan(outcomes.length);
    const rows = await store
      .statement<[number], { width_ms: number; n: number }>('SELECT width_ms, count(*) AS n FROM association_health_counts WHERE association_id = ? GROUP BY width_ms ORDER BY width_ms')
      .all(onNas.id);
    expect(rows.map((r) => [Number(r.width_ms), Number(r.n)])).toEqual([[60_000, 6], [3_600_000, 24]]);
    // An hour on, the hour's window is empty: null, not 0.
    clock.now += 3_600_000;
    expect((await health(onNas)).successRatio1h).toBeNull();
  });

  it("a late write of an older result counts in the ratios but leaves the last outcome as it is", async () => {
    const { onNas, scheduled, health } = await seeded();
    clock.now += 120_000;
    await scheduled(onNas, success([]));
    const newer = await health(onNas);
    clock.now -= 60_000; // the store's clock as an older result's write saw it
    await scheduled(onNas, authFailure());
    const h = await health(onNas);
    expect(h).toMatchObject({ state: 'ok', lastRunTime: newer.lastRunTime, consecutiveFailures: 0, failingSince: null, runs1h: 2, successes1h: 1 });
  });

  it('an API execution (writeRunResult with the association) marks it run and writes its health per action', async () => {
    const { onUps, target, health } = await seeded();
    clock.now += 5000;
    const run = await writeRunResult(store, target(onUps), failure('GENERIC_ERROR', 'reboot refused', { action: 'custom_1' }));
    expect(await health(onUps, 'custom_1')).toMatchObject({ state: 'failing', consecutiveFailures: 1, lastRunId: run.runId, failingSince: T0 + 5000 });
    expect((await getAssociation(store, onUps.id))!.lastInspectionTime).toBe(T0 + 5000);
    await writeRunResult(store, target(onUps), success([], { action: 'get_status' }));
    expect(await health(onUps, 'get_status')).toMatchObject({ state: 'ok' });
    expect(await health(onUps, 'custom_1')).toMatchObject({ state: 'failing' });
    // A run without an association (run --report, the demo) writes no health.
    const before = await store.statement<[], { n: number }>('SELECT count(*) AS n FROM association_health').get();
    await writeRunResult(store, { agentId: target(onUps).agentId, deviceId: onUps.deviceId, driverName: 'x' }, failure('GENERIC_ERROR', 'x'));
    expect(await store.statement<[], { n: number }>('SELECT count(*) AS n FROM association_health').get()).toEqual(before);
  });

  it('lists failing first (longest failing first), filters by state, errorType and device; stale when overdue', async () => {
    const { agent, nas, onNas, onUps, slot, health } = await seeded(300);
    await slot(onUps, failure('RESOURCE_UNAVAILABLE', 'down'));
    clock.now += 1000;
    await slot(onNas, authFailure());
    clock.now += 1000;
    await slot(onNas, success([]));
    clock.now += 1000;
    await slot(onNas, authFailure());
    const all = await listAssociationHealth(store, { agentId: agent.id });
    expect(all.map((h) => [h.deviceName, h.state, h.failingSince])).toEqual([
      ['ups', 'failing', T0],
      ['nas', 'failing', T0 + 3000],
    ]);
    expect((await listAssociationHealth(store, { agentId: agent.id, errorType: 'AUTHENTICATION_ERROR' })).map((h) => h.associationId)).toEqual([onNas.id]);
    expect((await listAssociationHealth(store, { agentId: agent.id, deviceId: nas.id })).map((h) => h.associationId)).toEqual([onNas.id]);
    expect(await listAssociationHealth(store, { agentId: agent.id, state: 'ok' })).toEqual([]);
    await slot(onUps, success([]));
    expect((await health(onUps)).state).toBe('ok');
    // 2 periods + 60 s without a run: stale (a failing one stays failing, flagged stale).
    clock.now += 2 * 300_000 + 60_001;
    expect(await health(onUps)).toMatchObject({ state: 'stale', stale: true, lastOutcome: 'success' });
    expect(await health(onNas)).toMatchObject({ state: 'failing', stale: true });
  });

  it('goes with its association: deleted with it', async () => {
    const { onNas, slot, driver } = await seeded();
    await slot(onNas, authFailure());
    const rows = async () =>
      Number((await store.statement<[number, number], { n: number }>('SELECT (SELECT count(*) FROM association_health WHERE association_id = ?) + (SELECT count(*) FROM association_health_counts WHERE association_id = ?) AS n').get(onNas.id, onNas.id))!.n);
    expect(await rows()).toBe(3); // its row, its minute's and hour's buckets
    await store.statement('DELETE FROM custom_driver_associations WHERE id = ?').run(onNas.id);
    expect(driver.id).toBeGreaterThan(0);
    expect(await rows()).toBe(0);
  });
});
