// The store on PostgreSQL, against a throwaway server this file starts (Debian's postgresql):
// what differs from SQLite underneath (numbers, partitions, retention, migrations shared by
// several processes, errors) and the scale-out write rule. The rest of the store's behaviour is
// the same suite run on both databases (npm run test:postgres).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore, type Store } from '../../host/store/store.js';
import { SCHEMA_VERSION, schemaVersion } from '../../host/store/db/migrations.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { createCustomDriver } from '../../host/store/drivers/custom-drivers.js';
import { createAssociation } from '../../host/store/drivers/associations.js';
import { writeRunResult, writeScheduledRunResult } from '../../host/store/runs/report-run.js';
import { readRunTarget } from '../../host/store/runs/run-target.js';
import { listVariables } from '../../host/store/results/variables.js';
import { setHistoryRetention, pruneVariableHistory, variableHistory } from '../../host/store/results/variable-history.js';
import { DAY_MS, historyPartitionName } from '../../host/store/db/history-partitions.js';
import { StoreError } from '../../host/contract/errors.js';
import { getRun, runSlotOf } from '../../host/store/runs/runs.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import type { RunResult } from '../../host/contract/run-result.js';

let server: PostgresServer;
let databases = 0;

async function newDatabase(): Promise<string> {
  const name = `store_pg_${++databases}`;
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return server.urlOf(name);
}

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => server?.destroy());

const success = (variables: Array<[string, string]>): RunResult => ({
  status: 'success',
  errorType: null,
  message: null,
  variables: variables.map(([uid, value]) => ({ uid, label: uid, unit: null, value, valueType: 'STRING' })),
  tables: [],
  logs: [],
  warnings: [],
  http: [],
  action: 'get_status',
  limitExceeded: null,
  durationMs: 12.5,
}) as unknown as RunResult;

async function seeded(store: Store) {
  const agent = await ensureLocalAgent(store);
  const device = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.0.0.9' });
  const driver = await createCustomDriver(store, { name: 'nas-driver', code: 'function validate() { D.success(); } function get_status() { D.success(); }', minimalSamplePeriod: 300, requiresCredentials: false });
  const association = await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: device.id, samplePeriod: 300 });
  return { agent, device, driver, association };
}

describe('opening', () => {
  it('migrates a new database once, even when several processes open it at the same time', async () => {
    const url = await newDatabase();
    const stores = await Promise.all([1, 2, 3, 4].map(() => openStore({ path: url, secretKey: 'shared-secret' })));
    try {
      for (const store of stores) expect(store.dialect).toBe('postgres');
      expect(await schemaVersion(stores[0]!.kysely, 'postgres')).toBe(SCHEMA_VERSION);
      // One salt: every process seals and unseals alike.
      const sealed = stores[0]!.secrets.encrypt('p4ss');
      for (const store of stores) expect(store.secrets.decrypt(sealed)).toBe('p4ss');
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM meta WHERE key = 'secret_salt'`.execute(stores[1]!.kysely);
      expect(rows[0]!.n).toBe(1);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('refuses another secret key than the one the shared store was first opened with', async () => {
    const url = await newDatabase();
    await (await openStore({ path: url, secretKey: 'first' })).close();
    await expect(openStore({ path: url, secretKey: 'second' })).rejects.toMatchObject({ code: 'SECRET_KEY_MISMATCH' });
  });

  it('says which server it cannot reach, without the password', async () => {
    const error = (await openStore({ path: `postgres://driverbox:hunter2@127.0.0.1:${server.port + 1}/x` }).catch((e: unknown) => e)) as StoreError;
    expect(error).toBeInstanceOf(StoreError);
    expect(error.code).toBe('STORE_UNOPENABLE');
    expect(error.message).toContain(`127.0.0.1:${server.port + 1}`);
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses a database a newer driverbox migrated', async () => {
    const url = await newDatabase();
    await (await openStore({ path: url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('UPDATE driverbox_schema SET version = version + 1');
    await client.end();
    await expect(openStore({ path: url })).rejects.toMatchObject({ code: 'STORE_TOO_NEW' });
  });
});

describe('a run result', () => {
  let store: Store;
  let now = Date.UTC(2026, 10, 25, 12);
  beforeAll(async () => {
    store = await openStore({ path: await newDatabase(), secretKey: 'k', clock: () => now });
  });
  afterAll(() => store.close());

  it('reads ids, times and counts back as numbers, and a NUL in a value as U+FFFD', async () => {
    const { agent, device, association } = await seeded(store);
    const written = await writeRunResult(store, { agentId: agent.id, deviceId: device.id, associationId: association.id }, success([['a', 'x\u0000y'], ['b', '2']]));
    const run = (await getRun(store, written.runId))!;
    expect(typeof run.id).toBe('number');
    expect(run.started).toBe(now - Math.round(12.5));
    expect(run.variableCount).toBe(2);
    const variables = await listVariables(store, { kind: 'device', agentId: agent.id, deviceId: device.id }, { limit: 10, offset: 0, sortBy: 'path' });
    expect(variables.map((v) => [v.path, v.value, typeof v.creationTime])).toEqual([
      ['a', 'x\uFFFDy', 'number'],
      ['b', '2', 'number'],
    ]);
    // A uid with a NUL is the same variable on its next write (written in one batch, found by the path read back).
    const first = await writeRunResult(store, { agentId: agent.id, deviceId: device.id, associationId: association.id }, success([['n\u0000ul', '1'], ['b', '3']]));
    now += 1000;
    const again = await writeRunResult(store, { agentId: agent.id, deviceId: device.id, associationId: association.id }, success([['n\u0000ul', '2']]));
    expect(again.variableIds).toEqual([first.variableIds[0]]);
    expect(first.variableIds[1]).toBe(written.variableIds[1]);
  });

  it('keeps history in one partition per UTC day, made as writes reach a new day', async () => {
    const { agent, device } = await seeded(store).catch(async () => {
      const agent = await ensureLocalAgent(store);
      return { agent, device: await createDevice(store, agent.id, { displayName: 'nas2', ip: '10.0.0.10' }) };
    });
    now = Date.UTC(2026, 11, 31, 23, 59);
    await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, success([['h', '1']]));
    now += 2 * 60_000; // the next day (and year)
    await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, success([['h', '2']]));
    const { rows } = await sql<{ relname: string }>`
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname = 'variable_history' ORDER BY c.relname`.execute(store.kysely);
    const names = rows.map((r) => r.relname);
    expect(names).toContain('variable_history_20261231');
    expect(names).toContain('variable_history_20270101');
    expect(historyPartitionName(Date.UTC(2027, 0, 1))).toBe('variable_history_20270101');
    const [h] = (await listVariables(store, { kind: 'device', agentId: agent.id, deviceId: device.id }, { limit: 10, offset: 0, sortBy: 'path' })).filter((v) => v.path === 'h');
    expect((await variableHistory(store, h!.id, 0, now)).map((s) => s.value)).toEqual(['1', '2']);
  });

  it('retention drops whole days that ended before the bound, and keeps the rest', async () => {
    const agent = await ensureLocalAgent(store);
    const device = await createDevice(store, agent.id, { displayName: 'old', ip: '10.0.0.11' });
    const start = Date.UTC(2027, 0, 10, 6);
    for (let day = 0; day < 5; day++) {
      now = start + day * DAY_MS;
      await writeRunResult(store, { agentId: agent.id, deviceId: device.id }, success([['r', String(day)]]));
    }
    await setHistoryRetention(store, 2);
    const dropped = await pruneVariableHistory(store);
    // now is day 4 at 06:00; the bound is day 2 at 06:00: days 0 and 1 ended before it, day 2 did not.
    expect(dropped).toBeGreaterThanOrEqual(2);
    const [r] = (await listVariables(store, { kind: 'device', agentId: agent.id, deviceId: device.id }, { limit: 10, offset: 0, sortBy: 'path' })).filter((v) => v.path === 'r');
    expect((await variableHistory(store, r!.id, 0, now)).map((s) => s.value)).toEqual(['2', '3', '4']);
    await setHistoryRetention(store, null);
  });
});

describe('the write rule: one result per association and slot', () => {
  let store: Store;
  let other: Store;
  beforeAll(async () => {
    const url = await newDatabase();
    store = await openStore({ path: url, secretKey: 'k' });
    other = await openStore({ path: url, secretKey: 'k' });
  });
  afterAll(async () => {
    await store.close();
    await other.close();
  });

  /** A device of its own with an association, for writers racing on its slot. */
  async function raceTarget(name: string, ip: string) {
    const agent = await ensureLocalAgent(store);
    const device = await createDevice(store, agent.id, { displayName: name, ip });
    const driver = await createCustomDriver(store, { name: `${name}-driver`, code: 'function validate() { D.success(); } function get_status() { D.success(); }', minimalSamplePeriod: 300, requiresCredentials: false });
    const association = await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: device.id, samplePeriod: 300 });
    return { agent, device, association, target: { agentId: agent.id, deviceId: device.id, associationId: association.id } };
  }

  it('keeps the first result for a slot, refuses a second from another process, and writes nothing of it', async () => {
    const { agent, device, association } = await seeded(store);
    const target = { agentId: agent.id, deviceId: device.id, associationId: association.id };
    const slotMs = Date.UTC(2026, 10, 25, 12, 0, 0);
    const first = await writeRunResult(store, target, success([['v', 'first']]), { slot: { slotMs, runner: 'agent-a' } });
    expect(await runSlotOf(store, first.runId)).toEqual({ slotMs, runner: 'agent-a' });
    const second = await writeRunResult(other, target, success([['v', 'second']]), { slot: { slotMs, runner: 'agent-b' } }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(StoreError);
    expect((second as StoreError).code).toBe('DUPLICATE_RUN');
    const [v] = await listVariables(store, { kind: 'device', agentId: agent.id, deviceId: device.id }, { limit: 10, offset: 0, sortBy: 'path' });
    expect(v!.value).toBe('first');
    // The next slot is its own.
    await writeRunResult(other, target, success([['v', 'next']]), { slot: { slotMs: slotMs + 60_000, runner: 'agent-b' } });
  });

  it('lets exactly one of many racing writers of one slot in', async () => {
    const { association, target } = await raceTarget('race', '10.0.0.12');
    const slotMs = Date.UTC(2026, 10, 25, 13);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => writeRunResult(i % 2 ? store : other, target, success([['v', `w${i}`]]), { slot: { slotMs, runner: `w${i}` } })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused.map((o) => (o.reason as StoreError).code)).toEqual(Array(7).fill('DUPLICATE_RUN'));
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM runs WHERE association_id = ${association.id} AND slot_ms = ${slotMs}`.execute(store.kysely);
    expect(rows[0]!.n).toBe(1);
  });

  it('a scheduled result (one statement): lets exactly one of many racing writers of a slot in, from two processes, and stores its variables alone', async () => {
    const { agent, device, target } = await raceTarget('race-once', '10.0.0.13');
    const slotMs = Date.UTC(2026, 10, 28, 9);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        writeScheduledRunResult(i % 2 ? store : other, target, success([['v', `w${i}`], [`only${i}`, 'x']]), { activity: false, deviceSecrets: [], slot: { slotMs, runner: `w${i}` } }),
      ),
    );
    const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused.map((o) => (o.reason as StoreError).code)).toEqual(Array(7).fill('DUPLICATE_RUN'));
    const variables = await listVariables(store, { kind: 'device', agentId: agent.id, deviceId: device.id }, { limit: 20, offset: 0, sortBy: 'path' });
    expect(variables.map((v) => [v.path, v.value])).toEqual([[`only${won[0]}`, 'x'], ['v', `w${won[0]}`]]);
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM variable_history h JOIN variables v ON v.id = h.variable_id WHERE v.device_id = ${device.id}`.execute(store.kysely);
    expect(rows[0]!.n).toBe(2);
  });
});

describe('named statements (parsed and planned once per connection)', () => {
  it("a run's target is read through one; a table of its * changed by another process is read again under a new name", async () => {
    const url = await newDatabase();
    // One connection: what it has prepared can be read on it.
    const store = await openStore({ path: url, secretKey: 'k', pool: { max: 1 } });
    try {
      const { agent, association } = await seeded(store);
      const prepared = async () =>
        (await sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(store.kysely)).rows;
      expect(await prepared()).toEqual([]);
      const first = await readRunTarget(store, agent.id, association.id);
      await readRunTarget(store, agent.id, association.id);
      const named = await prepared();
      expect(named).toHaveLength(1);
      expect(named[0]!.name).toMatch(/^driverbox_\d+$/);
      expect(named[0]!.statement).toMatch(/FROM custom_driver_associations a/);
      // Another process migrates a table the statement reads with d.*.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query('ALTER TABLE devices ADD COLUMN added_later TEXT');
      await admin.end();
      const again = await readRunTarget(store, agent.id, association.id);
      expect(again!.device).toEqual(first!.device);
      expect((await prepared()).map((p) => p.name)).toEqual(expect.arrayContaining([named[0]!.name, expect.stringMatching(/^driverbox_\d+_r\d+$/)]));
    } finally {
      await store.close();
    }
  });
});
