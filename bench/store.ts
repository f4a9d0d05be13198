// The store under load, on SQLite and on PostgreSQL side by side: how fast run results are
// written, and how fast the Monitoring API answers list / count / history queries over a large
// inventory. The same phases run on each store; the output gives PostgreSQL / SQLite per figure
// and a verdict per target of G8 (SCALE-OUT.md): ≥ 3,300 variable rows/s sustained with p99
// result transaction ≤ 50 ms, and list and history latency within 2× SQLite's.
//
// 1. Writes: a fresh store; runs of one driver reporting --variables variables (values change
//    every run) are written with writeRunResult (one transaction each), round-robin over 100
//    devices, for --seconds. Prints runs/s, variable rows/s and p50/p99 per result transaction.
// 2. Queries: a second store seeded with --devices devices × --variables variables (one
//    reported run each), plus --history runs spread over the past week for 100 of the devices so
//    history queries have samples (PostgreSQL: then VACUUM ANALYZE, what autovacuum does after a
//    bulk load). The server runs in this process; MonitoringClient asks each query --queries
//    times (random device each time) and prints p50/p99 per query. (History: the variable of
//    each device is found before the timing.)
//
// Stores: SQLite, a file in a temp folder (WAL, synchronous=NORMAL, as openStore makes it).
// PostgreSQL, a throwaway server the bench starts and destroys (test/helpers/postgres-server.ts,
// shared_buffers raised to 512 MB; fsync and synchronous_commit OFF unless --durable), or
// --postgres-url postgres://… an existing server, where a database per phase is made and dropped
// (its role needs CREATEDB).
//
// Run:     npm run bench:store
//          npm run bench:store -- --store postgres --durable --devices 2000 --queries 100 --json
// Options: --store sqlite|postgres|both (default both), --postgres-url URL, --durable,
//          --devices N (default 10000), --variables N (default 50), --seconds N (default 5),
//          --history N (default 48), --queries N (default 200), --json.
import { startMonitoringServer } from '../host/api/monitoring/server.js';
import { MonitoringClient } from '../host/api/monitoring/client/index.js';
import type { RunResult } from '../host/contract/run-result.js';
import { ensureLocalAgent } from '../host/store/fleet/agents.js';
import { createDevice } from '../host/store/fleet/devices.js';
import { writeRunResult } from '../host/store/runs/report-run.js';
import { intFlag, mean, parseFlags, percentile, runBench, switchFlag, table, usage } from './lib/common.js';
import { postgresTarget, sqliteTarget, type StoreKind, type StoreTarget } from './lib/store-targets.js';

interface Options {
  store: 'sqlite' | 'postgres' | 'both';
  postgresUrl: string | null;
  durable: boolean;
  devices: number;
  variables: number;
  seconds: number;
  history: number;
  queries: number;
  json: boolean;
}

function parseOptions(argv: string[]): Options {
  const options = parseFlags<Options>(
    argv,
    { store: 'both', postgresUrl: null, durable: false, devices: 10_000, variables: 50, seconds: 5, history: 48, queries: 200, json: false },
    {
      '--store': (o, value) => {
        const v = value();
        if (v !== 'sqlite' && v !== 'postgres' && v !== 'both') usage(`--store must be sqlite, postgres or both (got ${JSON.stringify(v)})`);
        o.store = v;
      },
      '--postgres-url': (o, value) => {
        const v = value();
        if (!v || !/^postgres(ql)?:\/\//i.test(v)) usage(`--postgres-url needs a postgres:// URL (got ${JSON.stringify(v)})`);
        o.postgresUrl = v;
      },
      '--durable': switchFlag('durable'),
      '--devices': intFlag('devices'),
      '--variables': intFlag('variables'),
      '--seconds': intFlag('seconds'),
      '--history': intFlag('history', true),
      '--queries': intFlag('queries'),
      '--json': switchFlag('json'),
    },
    'usage: npm run bench:store -- [--store sqlite|postgres|both] [--postgres-url URL] [--durable] [--devices N] [--variables N] [--seconds S] [--history N] [--queries N] [--json]',
  );
  if (options.durable && options.postgresUrl) usage('--durable applies to the bench\'s own PostgreSQL server; an existing server keeps its own settings');
  if (options.store === 'sqlite' && (options.durable || options.postgresUrl)) usage('--durable and --postgres-url need --store postgres or both');
  return options;
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
const fmt = (v: number) => (!Number.isFinite(v) ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

interface WriteFigures {
  runs: number;
  runsPerSecond: number;
  variablesPerSecond: number;
  p50: number;
  p99: number;
  mean: number;
  bytes: number;
}

interface QueryRow {
  query: string;
  /** G8 speaks of list and history latency; the counts are measured as well, outside it. */
  g8: boolean;
  p50: number;
  p99: number;
  mean: number;
  items: number;
}

interface QueryFigures {
  seedSeconds: number;
  variableRows: number;
  historyRows: number;
  bytes: number;
  rows: QueryRow[];
}

async function benchWrites(target: StoreTarget, options: Options): Promise<WriteFigures> {
  let now = Date.now();
  const { store, bytes, dispose } = await target.open('writes', () => now);
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
  const size = await bytes();
  await dispose();
  return { runs: round, runsPerSecond: round / seconds, variablesPerSecond: (round * options.variables) / seconds, p50: percentile(times, 50), p99: percentile(times, 99), mean: mean(times), bytes: size };
}

async function benchQueries(target: StoreTarget, options: Options): Promise<QueryFigures> {
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
  let now = weekAgo;
  const { store, bytes, dispose } = await target.open('queries', () => now);
  const agent = await ensureLocalAgent(store);
  const seedStart = process.hrtime.bigint();
  const devices: number[] = [];
  // Seeded in transactions of 500 devices: one transaction of all would hold PostgreSQL's locks
  // and snapshot for minutes; SQLite commits as fast either way.
  for (let from = 0; from < options.devices; from += 500) {
    await store.transaction(async () => {
      for (let i = from; i < Math.min(options.devices, from + 500); i++) {
        const device = await createDevice(store, agent.id, { displayName: `dev-${i}`, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });
        await writeRunResult(store, { agentId: agent.id, deviceId: device.id, driverName: 'bench' }, result(options.variables, i));
        devices.push(device.id);
      }
    });
  }
  const historyDevices = devices.slice(0, 100);
  for (let h = 0; h < options.history; h++) {
    now = weekAgo + Math.round(((h + 1) / (options.history + 1)) * 7 * 24 * 3600 * 1000);
    await store.transaction(async () => {
      for (const id of historyDevices) await writeRunResult(store, { agentId: agent.id, deviceId: id, driverName: 'bench' }, result(options.variables, h + 1));
    });
  }
  now = Date.now();
  if (store.dialect === 'postgres') await store.statement('VACUUM ANALYZE').run();
  const seedSeconds = ms(process.hrtime.bigint() - seedStart) / 1000;
  const variableRows = (await store.statement<[], { n: number }>('SELECT count(*) AS n FROM variables').get())!.n;
  const historyRows = (await store.statement<[], { n: number }>('SELECT count(*) AS n FROM variable_history').get())!.n;

  const server = await startMonitoringServer({ store, apiKeys: ['bench-key-123'] });
  const client = new MonitoringClient({ baseUrl: server.url, apiKey: 'bench-key-123' });
  const pick = (list: number[]) => list[Math.floor(Math.random() * list.length)]!;
  // The variable each history query asks for, found before the timing starts.
  const firstVariables = new Map<number, number>();
  for (const deviceId of historyDevices) {
    const [first] = await client.listDeviceVariables(agent.id, deviceId, { page_size: 1 });
    firstVariables.set(deviceId, first!.id);
  }
  const lastPage = Math.max(0, Math.floor(variableRows / 100) - 1);
  const queries: Array<[string, boolean, () => Promise<unknown>]> = [
    ['listDeviceVariables (one device, 100)', true, () => client.listDeviceVariables(agent.id, pick(devices), { page_size: 100 })],
    ['countDeviceVariables', false, () => client.countDeviceVariables(agent.id, pick(devices))],
    ['listAgentDeviceVariables page 0 ×100', true, () => client.listAgentDeviceVariables(agent.id, { page_size: 100 })],
    [`listAgentDeviceVariables page ${lastPage} ×100`, true, () => client.listAgentDeviceVariables(agent.id, { page_size: 100, page_number: lastPage })],
    ['listAgentDeviceVariables sort value desc', true, () => client.listAgentDeviceVariables(agent.id, { page_size: 100, sort_by: 'value', sorting_direction: 'desc' })],
    ['listAgentDeviceVariables path filter', true, () => client.listAgentDeviceVariables(agent.id, { page_size: 100, path: 'metric-007' })],
    ['countAgentDeviceVariables', false, () => client.countAgentDeviceVariables(agent.id)],
    ['getVariableHistory (1 week)', true, () => {
      const deviceId = pick(historyDevices);
      return client.getVariableHistory(agent.id, deviceId, firstVariables.get(deviceId)!);
    }],
  ];
  const rows: QueryRow[] = [];
  for (const [name, g8, run] of queries) {
    const times: number[] = [];
    let items = 0;
    for (let i = 0; i < options.queries; i++) {
      const before = process.hrtime.bigint();
      const answer = await run();
      times.push(ms(process.hrtime.bigint() - before));
      items = Array.isArray(answer) ? answer.length : typeof answer === 'number' ? answer : 0;
    }
    times.sort((a, b) => a - b);
    rows.push({ query: name, g8, p50: percentile(times, 50), p99: percentile(times, 99), mean: mean(times), items });
  }
  await client.close();
  await server.close();
  const size = await bytes();
  await dispose();
  return { seedSeconds, variableRows, historyRows, bytes: size, rows };
}

interface StoreFigures {
  kind: StoreKind;
  describe: string;
  writes: WriteFigures;
  queries: QueryFigures;
}

async function benchOn(kind: StoreKind, options: Options): Promise<StoreFigures> {
  if (!options.json) process.stderr.write(`bench:store: ${kind} …\n`);
  const target = kind === 'sqlite' ? await sqliteTarget() : await postgresTarget(options.postgresUrl ?? undefined, options.durable);
  try {
    const writes = await benchWrites(target, options);
    const queries = await benchQueries(target, options);
    return { kind, describe: target.describe, writes, queries };
  } finally {
    await target.close();
  }
}

// ---------------------------------------------------------------------------- G8

const G8 = { variablesPerSecond: 3300, p99Ms: 50, latencyRatio: 2 };

interface Verdict {
  target: string;
  figure: string;
  met: boolean;
}

function verdicts(pg: StoreFigures, sqlite: StoreFigures | undefined): Verdict[] {
  const out: Verdict[] = [
    { target: `variable rows/s ≥ ${G8.variablesPerSecond}`, figure: fmt(pg.writes.variablesPerSecond), met: pg.writes.variablesPerSecond >= G8.variablesPerSecond },
    { target: `p99 result transaction ≤ ${G8.p99Ms} ms`, figure: `${fmt(pg.writes.p99)} ms`, met: pg.writes.p99 <= G8.p99Ms },
  ];
  if (!sqlite) return out;
  // The third target, over G8's queries (lists and history) at p50 and p99; then each query.
  const each: Verdict[] = [];
  let g8Met = 0;
  let g8All = 0;
  let worst = 0;
  for (const [i, row] of pg.queries.rows.entries()) {
    const base = sqlite.queries.rows[i]!;
    const p50 = row.p50 / base.p50;
    const p99 = row.p99 / base.p99;
    const met = p50 <= G8.latencyRatio && p99 <= G8.latencyRatio;
    if (row.g8) {
      g8All++;
      if (met) g8Met++;
      worst = Math.max(worst, p50, p99);
    }
    each.push({ target: `  ${row.g8 ? '' : '(outside G8) '}${row.query}`, figure: `p50 ${p50.toFixed(2)}×, p99 ${p99.toFixed(2)}×`, met });
  }
  out.push({
    target: `list and history latency ≤ ${G8.latencyRatio}× SQLite (p50 and p99)`,
    figure: `${g8Met} of ${g8All} queries, worst ratio ${worst.toFixed(2)}×`,
    met: g8Met === g8All,
  });
  return [...out, ...each];
}

// ---------------------------------------------------------------------------- output

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;

function report(options: Options, figures: StoreFigures[]): string {
  const sqlite = figures.find((f) => f.kind === 'sqlite');
  const pg = figures.find((f) => f.kind === 'postgres');
  const both = sqlite && pg;
  const cols = figures.map((f) => (f.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'));
  const headers = both ? ['', ...cols, 'PG / SQLite'] : ['', ...cols];
  const line = (name: string, pick: (f: StoreFigures) => number, show = fmt) => {
    const cells = figures.map((f) => show(pick(f)));
    return both ? [name, ...cells, `${(pick(pg) / pick(sqlite)).toFixed(2)}×`] : [name, ...cells];
  };
  const lines = [
    ...figures.map((f) => `${f.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${f.describe}`),
    '',
    `Writes: writeRunResult of ${options.variables} variables (one transaction each), round-robin over 100 devices, ${options.seconds} s`,
    table(headers, [
      line('runs', (f) => f.writes.runs, String),
      line('runs/s', (f) => f.writes.runsPerSecond),
      line('variable rows/s', (f) => f.writes.variablesPerSecond),
      line('p50 ms per result', (f) => f.writes.p50),
      line('p99 ms per result', (f) => f.writes.p99),
      line('mean ms per result', (f) => f.writes.mean),
      line('size', (f) => f.writes.bytes, mb),
    ]),
    '',
    `Queries through MonitoringClient → driverbox serve (in process), ${options.devices} devices × ${options.variables} variables, ${options.queries} each`,
    ...figures.map(
      (f) =>
        `  ${f.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: seeded ${f.queries.variableRows} variables, ${f.queries.historyRows} history samples in ${f.queries.seedSeconds.toFixed(1)} s; ${mb(f.queries.bytes)}`,
    ),
    table(
      ['query', 'items', ...figures.flatMap((f) => [`${f.kind === 'sqlite' ? 'SQLite' : 'PG'} p50`, `${f.kind === 'sqlite' ? 'SQLite' : 'PG'} p99`]), ...(both ? ['p50 PG/SQ', 'p99 PG/SQ'] : [])],
      figures[0]!.queries.rows.map((row, i) => {
        const cells = figures.flatMap((f) => [fmt(f.queries.rows[i]!.p50), fmt(f.queries.rows[i]!.p99)]);
        const ratios = both ? [`${(pg.queries.rows[i]!.p50 / sqlite.queries.rows[i]!.p50).toFixed(2)}×`, `${(pg.queries.rows[i]!.p99 / sqlite.queries.rows[i]!.p99).toFixed(2)}×`] : [];
        return [row.query, String(row.items), ...cells, ...ratios];
      }),
      2,
    ),
    '  (ms; the ratios are PostgreSQL / SQLite)',
  ];
  if (pg) {
    lines.push('', `G8 (SCALE-OUT.md 4.5) on PostgreSQL${pg.describe.includes('DURABILITY OFF') ? ', durability off (see above)' : ', durable'}:`);
    for (const v of verdicts(pg, sqlite)) lines.push(`  ${v.met ? 'met    ' : 'NOT MET'}  ${v.target}: ${v.figure}`);
    if (!sqlite) lines.push('  (latency against SQLite: run with --store both)');
  }
  return `${lines.join('\n')}\n`;
}

runBench('bench:store', async () => {
  const options = parseOptions(process.argv.slice(2));
  const kinds: StoreKind[] = options.store === 'both' ? ['sqlite', 'postgres'] : [options.store];
  const figures: StoreFigures[] = [];
  for (const kind of kinds) figures.push(await benchOn(kind, options));
  if (options.json) {
    const pg = figures.find((f) => f.kind === 'postgres');
    const g8 = pg ? verdicts(pg, figures.find((f) => f.kind === 'sqlite')) : undefined;
    process.stdout.write(`${JSON.stringify({ options, stores: figures, g8 }, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(report(options, figures));
  return 0;
});
