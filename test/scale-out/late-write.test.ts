// Scale-out: a result commits only within its run's deadline. Found by the fault rig's partition
// scenario (bench/cluster): an agent cut off from Redis and PostgreSQL ended its run at D, but its
// result write waited on the dead link and landed ~29 s after the slot, long after the job's lock
// could have passed to another agent (a 60 s association would then have been polled twice, and
// the stale result would have won the slot and overwritten newer values). Now the write checks
// the run's signal before its transaction and just before COMMIT, and rolls back (RUN_TOO_LATE).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAssociation } from '../../host/agent/association-run.js';
import type { RunExecutor } from '../../host/contract/run-executor.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createAssociation } from '../../host/store/drivers/associations.js';
import { createCustomDriver } from '../../host/store/drivers/custom-drivers.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { writeRunResult } from '../../host/store/runs/report-run.js';
import { StoreError } from '../../host/contract/errors.js';
import type { Store } from '../../host/store/store.js';
import { openTestStore } from '../helpers/store.js';

const success = (value: string): RunResult =>
  ({
    status: 'success',
    errorType: null,
    message: null,
    variables: [{ uid: 'v', label: 'v', unit: null, value, valueType: 'STRING' }],
    tables: [],
    logs: [],
    warnings: [],
    http: [],
    action: 'get_status',
    limitExceeded: null,
    durationMs: 5,
  }) as unknown as RunResult;

let store: Store;

beforeEach(async () => {
  store = await openTestStore({ secretKey: 'late-write' });
});
afterEach(async () => {
  await store.close();
});

async function seeded() {
  const agent = await ensureLocalAgent(store);
  const device = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.9' });
  const driver = await createCustomDriver(store, { name: 'nas-driver', code: 'function validate() { D.success(); } function get_status() { D.success(); }', minimalSamplePeriod: 300, requiresCredentials: false });
  const association = await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: device.id, samplePeriod: 300 });
  return { agent, device, driver, association };
}

async function runsOf(associationId: number): Promise<number> {
  const row = await store.statement<[number], { n: number }>('SELECT count(*) AS n FROM runs WHERE association_id = ?').get(associationId);
  return Number(row?.n ?? 0);
}

describe('a scale-out result past its run deadline', () => {
  it('is refused before the transaction when the run already ended (RUN_TOO_LATE), nothing written', async () => {
    const { agent, device, association } = await seeded();
    const ended = new AbortController();
    ended.abort(new Error('run of association passed its deadline of 4000 ms'));
    const target = { agentId: agent.id, deviceId: device.id, associationId: association.id };
    const error = await writeRunResult(store, target, success('late'), { slot: { slotMs: 1_000_000, runner: 'a2' }, until: ended.signal }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('RUN_TOO_LATE');
    expect((error as Error).message).toMatch(/deadline of 4000 ms/);
    expect(await runsOf(association.id)).toBe(0);
    // The slot stays free for the agent that runs it in time.
    await writeRunResult(store, target, success('in time'), { slot: { slotMs: 1_000_000, runner: 'a1' }, until: new AbortController().signal });
    expect(await runsOf(association.id)).toBe(1);
  });

  it('is rolled back whole when the deadline passes while the write is under way', async () => {
    const { agent, device, association } = await seeded();
    const run = new AbortController();
    const target = { agentId: agent.id, deviceId: device.id, associationId: association.id };
    const writing = writeRunResult(store, target, success('slow store'), { slot: { slotMs: 2_000_000, runner: 'a2' }, until: run.signal });
    // The deadline passes after the write began (its first check passed) and before it commits.
    run.abort(new Error('deadline'));
    const error = await writing.catch((e: unknown) => e);
    expect((error as StoreError).code).toBe('RUN_TOO_LATE');
    expect(await runsOf(association.id)).toBe(0);
    const variables = await store.statement<[number], { n: number }>('SELECT count(*) AS n FROM variables WHERE device_id = ?').get(device.id);
    expect(Number(variables?.n ?? 0)).toBe(0);
  });

  it('is not written by a queue run whose deadline passed during the sandbox run; the run ends there', async () => {
    const { agent, association } = await seeded();
    const deadline = new AbortController();
    const executor = {
      // The sandbox answers only after the run's deadline (a link that came back, a resumed process).
      run: async () => {
        deadline.abort(new Error('deadline'));
        return success('stale');
      },
    } as unknown as RunExecutor;
    const finished: unknown[] = [];
    const runs = await runAssociation(
      { store, executor, agentId: agent.id, write: { activity: false }, slot: { slotMs: 3_000_000, runner: 'a2' } },
      association.id,
      ['get_status', 'other_action'],
      deadline.signal,
      { started: () => undefined, finished: (r) => finished.push(r), abandoned: () => undefined },
    );
    expect(runs).toHaveLength(1);
    expect((runs[0]!.storeError as StoreError).code).toBe('RUN_TOO_LATE');
    expect(runs[0]!.runId).toBeNull();
    expect(await runsOf(association.id)).toBe(0);
  });

  it('is written as before by an embedded run (no slot): the signal only stops the next action', async () => {
    const { agent, association } = await seeded();
    const stopping = new AbortController();
    const executor = {
      run: async () => {
        stopping.abort(new Error('agent stopping'));
        return success('kept');
      },
    } as unknown as RunExecutor;
    const runs = await runAssociation({ store, executor, agentId: agent.id, write: { activity: false } }, association.id, ['get_status', 'other_action'], stopping.signal, {
      started: () => undefined,
      finished: () => undefined,
      abandoned: () => undefined,
    });
    expect(runs).toHaveLength(1);
    expect(runs[0]!.storeError).toBeNull();
    expect(await runsOf(association.id)).toBe(1);
  });
});
