// The store under load: how fast run results are written, and how fast the Monitoring API
// answers list / count / history queries over a large inventory.
//
// 1. Writes: a file store (WAL) in a temp folder; runs of one driver reporting --variables
//    variables (values change every run) are written with writeRunResult, round-robin over
//    100 devices, for --seconds. Prints runs/s, variables/s and p50/p99 per write.
// 2. Queries: a second file store seeded with --devices devices × --variables variables (one
//    reported run each), plus --history runs spread over the past week for 100 of the devices so
//    history queries have samples. The server runs in this process; MonitoringClient asks each
//    query --queries times (random device each time) and prints p50/p99 per query.
//
// Run:     npm run bench:store
//          npm run bench:store -- --devices 2000 --queries 100 --json
// Options: --devices N (default 10000), --variables N (default 50), --seconds N (default 5),
//          --history N (default 48), --queries N (default 200), --json.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startMonitoringServer } from '../host/api/monitoring/server.js';
import { MonitoringClient } from '../host/api/monitoring/client/index.js';
import type { RunResult } from '../host/run-result.js';
import { ensureLocalAgent } from '../host/store/agents.js';
import { createDevice } from '../host/store/devices.js';
import { writeRunResult } from '../host/store/report-run.js';
import { openStore, type Store } from '../host/store/store.js';
import { intFlag, mean, parseFlags, percentile, runBench, switchFlag, table } from './lib/common.js';

interface Options {
  devices: number;
  variables: number;
  seconds: number;
  history: number;
  queries: number;
  json: boolean;
}

function parseOptions(argv: string[]): Options {
  return parseFlags<Options>(
    argv,
    { devices: 10_000, variables: 50, seconds: 5, history: 48, queries: 200, json: false },
    {
      '--devices': intFlag('devices'),
      '--variables': intFlag('variables'),
      '--seconds': intFlag('seconds'),
      '--history': intFlag('history', true),
      '--queries': intFlag('queries'),
      '--json': switchFlag('json'),
    },
    'usage: npm run bench:store -- [--devices N] [--variables N] [--seconds S] [--history N] [--queries N] [--json]',
  );
}

/** A successful get_status result with n variables whose values depend on `round`. */
function result(n: number, round: number): RunResult {
  const variables = Array.from({ length: n }, (_, i) => ({
    uid: `metric-${String(i).padStart(3, '0')}`,
    label: `Metric ${i}`,
    value: String((round * 31 + i * 7) % 1000),
    unit: i % 3 === 0 ? '%' : null,
    valueType: 'NUMBER',
  }));
  return {
    status: 'success',
    errorType: null,
    message: null,
    variables,
    tables: [],
    logs: [{ level: 'info', message: `round ${round}` }],
    warnings: [],
    http: [],
    action: 'get_status',
    limitExceeded: null,
    durationMs: 12,
  };
}

const ms = (ns: bigint) => Number(ns) / 1e6;
const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

async function tempStore(clock: () => number): Promise<{ store: Store; dir: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-bench-store-'));
  return { store: await openStore({ path: path.join(dir, 'bench.db'), clock }), dir };
}

async function benchWrites(options: Options) {
  let now = Date.now();
  const { store, dir } = await tempStore(() => now);
  const agent = await ensureLocalAgent(store);
  const devices = [];
  for (let i = 0; i < 100; i++) devices.push(await createDevice(store, agent.id, { displayName: `dev-${i}`, ip: `10.1.${i >> 8}.${i & 255}` }));
  const times: number[] = [];
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(options.seconds) * 1_000_000_000n;
  let round = 0;
  for (let t = start; t < deadline; t = process.hrtime.bigint()) {
    const device = devices[round % devices.length]!;
    now += 1000;
    const before = process.hrtime.bigint();
    await writeRunResult(store, { agentId: agent.id, deviceId: device.id, driverName: 'bench' }, result(options.variables, round));
    times.push(ms(process.hrtime.bigint() - before));
    round++;
  }
  const seconds = ms(process.hrtime.bigint() - start) / 1000;
  times.sort((a, b) => a - b);
  const size = statSync(path.join(dir, 'bench.db')).size + statSync(path.join(dir, 'bench.db-wal')).size;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { runs: round, runsPerSecond: round / seconds, variablesPerSecond: (round * options.variables) / seconds, p50: percentile(times, 50), p99: percentile(times, 99), mean: mean(times), bytes: size };
}

async function benchQueries(options: Options) {
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
  let now = weekAgo;
  const { store, dir } = await tempStore(() => now);
  const agent = await ensureLocalAgent(store);
  const seedStart = process.hrtime.bigint();
  const devices: number[] = [];
  await store.transaction(async () => {
    for (let i = 0; i < options.devices; i++) {
      const device = await createDevice(store, agent.id, { displayName: `dev-${i}`, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });
      await writeRunResult(store, { agentId: agent.id, deviceId: device.id, driverName: 'bench' }, result(options.variables, i));
      devices.push(device.id);
    }
  });
  const historyDevices = devices.slice(0, 100);
  for (let h = 0; h < options.history; h++) {
    now = weekAgo + Math.round(((h + 1) / (options.history + 1)) * 7 * 24 * 3600 * 1000);
    await store.transaction(async () => {
      for (const id of historyDevices) await writeRunResult(store, { agentId: agent.id, deviceId: id, driverName: 'bench' }, result(options.variables, h + 1));
    });
  }
  now = Date.now();
  const seedSeconds = ms(process.hrtime.bigint() - seedStart) / 1000;
  const variableRows = (await store.statement<[], { n: number }>('SELECT count(*) AS n FROM variables').get())!.n;
  const historyRows = (await store.statement<[], { n: number }>('SELECT count(*) AS n FROM variable_history').get())!.n;

  const server = await startMonitoringServer({ store, apiKeys: ['bench-key-123'] });
  const client = new MonitoringClient({ baseUrl: server.url, apiKey: 'bench-key-123' });
  const pick = (list: number[]) => list[Math.floor(Math.random() * list.length)]!;
  const firstVariables = new Map<number, number>();
  const variableOf = async (deviceId: number) => {
    let id = firstVariables.get(deviceId);
    if (id === undefined) {
      const [first] = await client.listDeviceVariables(agent.id, deviceId, { page_size: 1 });
      id = first!.id;
      firstVariables.set(deviceId, id);
    }
    return id;
  };
  const lastPage = Math.max(0, Math.floor(variableRows / 100) - 1);
  const queries: Array<[string, () => Promise<unknown>]> = [
    ['listDeviceVariables (one device, 100)', () => client.listDeviceVariables(agent.id, pick(devices), { page_size: 100 })],
    ['countDeviceVariables', () => client.countDeviceVariables(agent.id, pick(devices))],
    ['listAgentDeviceVariables page 0 ×100', () => client.listAgentDeviceVariables(agent.id, { page_size: 100 })],
    [`listAgentDeviceVariables page ${lastPage} ×100`, () => client.listAgentDeviceVariables(agent.id, { page_size: 100, page_number: lastPage })],
    ['listAgentDeviceVariables sort value desc', () => client.listAgentDeviceVariables(agent.id, { page_size: 100, sort_by: 'value', sorting_direction: 'desc' })],
    ['listAgentDeviceVariables path filter', () => client.listAgentDeviceVariables(agent.id, { page_size: 100, path: 'metric-007' })],
    ['countAgentDeviceVariables', () => client.countAgentDeviceVariables(agent.id)],
    ['getVariableHistory (1 week)', async () => {
      const deviceId = pick(historyDevices);
      return client.getVariableHistory(agent.id, deviceId, await variableOf(deviceId));
    }],
  ];
  const rows: Array<{ query: string; p50: number; p99: number; mean: number; items: number }> = [];
  for (const [name, run] of queries) {
    const times: number[] = [];
    let items = 0;
    for (let i = 0; i < options.queries; i++) {
      const before = process.hrtime.bigint();
      const answer = await run();
      times.push(ms(process.hrtime.bigint() - before));
      items = Array.isArray(answer) ? answer.length : typeof answer === 'number' ? answer : 0;
    }
    times.sort((a, b) => a - b);
    rows.push({ query: name, p50: percentile(times, 50), p99: percentile(times, 99), mean: mean(times), items });
  }
  await client.close();
  await server.close();
  const bytes = statSync(path.join(dir, 'bench.db')).size;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { seedSeconds, variableRows, historyRows, bytes, rows };
}

runBench('bench:store', async () => {
  const options = parseOptions(process.argv.slice(2));
  const writes = await benchWrites(options);
  const queries = await benchQueries(options);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ options, writes, queries }, null, 2)}\n`);
    return 0;
  }
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  process.stdout.write(
    [
      `Writes: runs of ${options.variables} variables into a file store (WAL), ${options.seconds} s`,
      table(
        ['', 'runs', 'runs/s', 'variables/s', 'p50 ms', 'p99 ms', 'file'],
        [['writeRunResult', String(writes.runs), fmt(writes.runsPerSecond), fmt(writes.variablesPerSecond), fmt(writes.p50), fmt(writes.p99), mb(writes.bytes)]],
      ),
      '',
      `Queries through MonitoringClient → driverbox serve (in process), ${options.devices} devices × ${options.variables} variables`,
      `  seeded ${queries.variableRows} variables, ${queries.historyRows} history samples in ${queries.seedSeconds.toFixed(1)} s; file ${mb(queries.bytes)}`,
      table(
        ['query', 'items', 'p50 ms', 'p99 ms', 'mean ms'],
        queries.rows.map((r) => [r.query, String(r.items), fmt(r.p50), fmt(r.p99), fmt(r.mean)]),
      ),
      '',
    ].join('\n'),
  );
  return 0;
});
