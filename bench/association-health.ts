// What the association health costs (docs/reference/health.md), on a SQLite file store (WAL, as
// openStore makes it):
// 1. Writes: --associations associations (one device each), their scheduled results written with
//    writeScheduledRunResult round-robin for --seconds: p50 / p99 of the whole result
//    transaction, and of the health's part alone (recordAssociationHealth, its 3 statements, timed
//    in a transaction of its own on the same rows).
// 2. Reads: the store's clock advanced so each association has --runs runs spread over the last
//    day (every bucket row the bound allows), then listAssociationHealth of the whole agent
//    --queries times: p50 / p99, and the bucket rows the store holds.
// Run: node --import tsx bench/association-health.ts [--associations 2000] [--runs 288] [--seconds 5] [--queries 20]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../host/store/store.js';
import { ensureLocalAgent } from '../host/store/fleet/agents.js';
import { createDevice } from '../host/store/fleet/devices.js';
import { createCustomDriver } from '../host/store/drivers/custom-drivers.js';
import { createAssociation } from '../host/store/drivers/associations.js';
import { writeScheduledRunResult } from '../host/store/runs/report-run.js';
import { healthWriteOf, recordAssociationHealth } from '../host/store/runs/association-health.js';
import { listAssociationHealth } from '../host/store/runs/association-health-list.js';
import type { RunResult } from '../host/contract/run-result.js';

const { values } = parseArgs({ options: { associations: { type: 'string', default: '2000' }, runs: { type: 'string', default: '288' }, seconds: { type: 'string', default: '5' }, queries: { type: 'string', default: '20' } } });
const associations = Number(values.associations);
const runsPerAssociation = Number(values.runs);
const seconds = Number(values.seconds);
const queries = Number(values.queries);

const clock = { now: Date.UTC(2026, 10, 28, 0, 0, 0) };
const dir = mkdtempSync(join(tmpdir(), 'driverbox-health-bench-'));
const store = await openStore({ path: join(dir, 'store.db'), clock: () => clock.now });
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!.toFixed(3);
const result = (i: number): RunResult => ({
  status: i % 7 === 0 ? 'failure' : 'success', errorType: i % 7 === 0 ? 'AUTHENTICATION_ERROR' : null, message: i % 7 === 0 ? 'refused' : null,
  variables: i % 7 === 0 ? [] : [{ uid: 'v', label: 'V', value: String(i), unit: null, valueType: 'NUMBER' }],
  tables: [], logs: [], warnings: [], http: [], action: 'get_status', limitExceeded: null, durationMs: 20,
});

try {
  const agent = await ensureLocalAgent(store);
  const driver = await createCustomDriver(store, { name: 'bench', code: 'function validate() { D.success(); } function get_status() { D.success(); }', requiresCredentials: false });
  const ids: Array<{ id: number; deviceId: number }> = [];
  for (let i = 0; i < associations; i++) {
    const device = await createDevice(store, agent.id, { displayName: `d${i}`, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });
    const a = await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: device.id, samplePeriod: 300 });
    ids.push({ id: a.id, deviceId: device.id });
  }
  const write = async (k: number) => {
    const a = ids[k % ids.length]!;
    await writeScheduledRunResult(store, { agentId: agent.id, deviceId: a.deviceId, customDriverId: driver.id, associationId: a.id, driverName: 'bench' }, result(k), { activity: false, deviceSecrets: [] });
  };
  // 1. Writes.
  const whole: number[] = [];
  const part: number[] = [];
  const end = performance.now() + seconds * 1000;
  for (let k = 0; performance.now() < end; k++) {
    clock.now += 10;
    let t = performance.now();
    await write(k);
    whole.push(performance.now() - t);
    const a = ids[k % ids.length]!;
    t = performance.now();
    await store.transaction(() => recordAssociationHealth(store, a.id, 1, healthWriteOf(result(k), clock.now, 5)));
    part.push(performance.now() - t);
  }
  console.log(`writes: ${whole.length} results in ${seconds} s; result transaction p50 ${pct(whole, 50)} ms p99 ${pct(whole, 99)} ms; the health's part (3 statements) p50 ${pct(part, 50)} ms p99 ${pct(part, 99)} ms`);
  // 2. Reads: runs spread over the last day for every association.
  const step = Math.floor(86_400_000 / runsPerAssociation);
  for (let r = 0; r < runsPerAssociation; r++) {
    clock.now += step;
    await store.transaction(async () => {
      for (const a of ids) await recordAssociationHealth(store, a.id, 1, healthWriteOf(result(r), clock.now, 5));
    });
  }
  const rows = await store.statement<[], { n: number }>('SELECT count(*) AS n FROM association_health_counts').get();
  const reads: number[] = [];
  let listed = 0;
  for (let q = 0; q < queries; q++) {
    const t = performance.now();
    listed = (await listAssociationHealth(store, { agentId: agent.id })).length;
    reads.push(performance.now() - t);
  }
  console.log(`reads: ${listed} entries, ${rows!.n} bucket rows (${(Number(rows!.n) / associations).toFixed(1)} per association); whole-agent list p50 ${pct(reads, 50)} ms p99 ${pct(reads, 99)} ms`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
