// Throughput of an SNMP-walk driver through host.run(), side by side with raw net-snmp.
//
// What it measures: the SNMP simulator (host/simulator/snmp/, net-snmp's Agent on 127.0.0.1)
// serves an ifTable-like subtree of --rows rows × 5 columns. A driver walks it
// (D.device.createSNMPSession().walk, v2c, maxRepetitions 24), checks the count and reports it
// as one variable. In the same process the same walk is done with raw net-snmp: a "run" opens
// a session, walks the subtree (session.subtree, maxRepetitions 24), collects the values as
// the platform does and closes the session — what the host does per call. Runs are closed-loop
// (C workers, each starting its next run when the last ends); each series is measured in
// --rounds chunks alternating the two sides, so a busy spell of the machine weighs on both.
// The agent runs in the same process: its CPU is in both sides' figures alike.
//
// Run:     npm run bench:snmp
//          npm run bench:snmp -- --runs 500 --rows 100 --concurrency 4 --json
// Options: --runs N (runs per side; default 400, or env RUNS), --warmup N (default 30),
//          --rows N (table rows; default 50 → 250 values), --rounds N (default 4),
//          --concurrency C (default 1), --json (one JSON object on stdout).
import snmp from 'net-snmp';
import { createHost } from '../host/index.js';
import { startSimulator } from '../host/simulator/simulator.js';
import type { FixtureSpec } from '../host/simulator/fixture-types.js';
import { outputValue } from '../host/bridges/snmp/values.js';
import { ensureRuntimeBundle, intFlag, mean, parseFlags, percentile, positiveInt, runBench, switchFlag, table } from './lib/common.js';

interface Options {
  runs: number;
  warmup: number;
  rows: number;
  rounds: number;
  concurrency: number;
  json: boolean;
}

const HELP = `Usage: npm run bench:snmp -- [--runs N] [--warmup N] [--rows N] [--rounds N] [--concurrency C] [--json]
An SNMP-walk driver through host.run() against the SNMP simulator, side by side with raw net-snmp.`;

const BASE = '1.3.6.1.2.1.2.2.1';
const COLUMNS = 5;

function fixtureOf(rows: number): FixtureSpec {
  const oids: Record<string, NonNullable<FixtureSpec['snmp']>['oids'][string]> = {};
  for (let row = 1; row <= rows; row++) {
    oids[`${BASE}.1.${row}`] = row;
    oids[`${BASE}.2.${row}`] = `eth${row - 1}`;
    oids[`${BASE}.5.${row}`] = { type: 'Gauge32', value: 1_000_000_000 };
    oids[`${BASE}.10.${row}`] = { type: 'Counter32', value: row * 1000 };
    oids[`${BASE}.16.${row}`] = { type: 'Counter32', value: row * 2000 };
  }
  return { fixture: 1, routes: [], snmp: { community: 'bench', oids } };
}

const driverSource = (expected: number) => `function get_status() {
  D.device.createSNMPSession().walk('${BASE}', function (output, error) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    var n = Object.keys(output).length;
    if (n !== ${expected}) return D.failure(D.errorType.PARSING_ERROR);
    D.success([D.createVariable('values', 'Values', n)]);
  });
}`;

function rawWalk(port: number, expected: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const session = snmp.createSession('127.0.0.1', 'bench', { port, version: snmp.Version2c, retries: 1, timeout: 5000, backwardsGetNexts: false });
    session.on('error', () => {});
    const output: Record<string, unknown> = {};
    (session as unknown as { subtree(oid: string, n: number, feed: (v: snmp.Varbind[]) => void, done: (e: Error | null) => void): void }).subtree(
      BASE,
      24,
      (varbinds) => {
        for (const v of varbinds) output[v.oid] = outputValue(v);
      },
      (error) => {
        session.close();
        if (error) return reject(error);
        const n = Object.keys(output).length;
        if (n !== expected) return reject(new Error(`raw walk got ${n} values, expected ${expected}`));
        resolve();
      },
    );
  });
}

interface Series {
  side: 'driverbox' | 'net-snmp';
  runs: number;
  elapsedMs: number;
  latencies: number[];
  cpuMs: number;
}

async function measure(side: Series['side'], runs: number, concurrency: number, once: () => Promise<void>, into: Series): Promise<void> {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < runs) {
        next++;
        const t = performance.now();
        await once();
        into.latencies.push(performance.now() - t);
      }
    }),
  );
  into.elapsedMs += performance.now() - started;
  const used = process.cpuUsage(cpu);
  into.cpuMs += (used.user + used.system) / 1000;
  into.runs += runs;
  void side;
}

async function main(): Promise<number> {
  const options = parseFlags<Options>(process.argv.slice(2), { runs: process.env.RUNS ? positiveInt(process.env.RUNS, 'RUNS') : 400, warmup: 30, rows: 50, rounds: 4, concurrency: 1, json: false }, {
    '--runs': intFlag('runs'),
    '--warmup': intFlag('warmup', true),
    '--rows': intFlag('rows'),
    '--rounds': intFlag('rounds'),
    '--concurrency': intFlag('concurrency'),
    '--json': switchFlag('json'),
  }, HELP);
  await ensureRuntimeBundle();
  const expected = options.rows * COLUMNS;
  const sim = await startSimulator(fixtureOf(options.rows));
  const host = createHost({ maxIsolates: options.concurrency, warmIsolates: options.concurrency, limits: { timeoutMs: 30_000 } });
  const source = driverSource(expected);
  const device = sim.device;
  let firstFailure: string | null = null;
  const viaHost = async () => {
    const result = await host.run({ source, filename: 'snmp-walk.js', device });
    if (result.status !== 'success' || result.variables[0]?.value !== String(expected)) {
      firstFailure ??= `${result.errorType}: ${result.message ?? ''}`;
      throw new Error(`a driverbox run failed: ${firstFailure}`);
    }
  };
  const viaRaw = () => rawWalk(sim.snmpPort!, expected);
  try {
    for (let i = 0; i < options.warmup; i++) {
      await viaHost();
      await viaRaw();
    }
    const series: Record<Series['side'], Series> = {
      driverbox: { side: 'driverbox', runs: 0, elapsedMs: 0, latencies: [], cpuMs: 0 },
      'net-snmp': { side: 'net-snmp', runs: 0, elapsedMs: 0, latencies: [], cpuMs: 0 },
    };
    const chunk = Math.max(1, Math.floor(options.runs / options.rounds));
    for (let round = 0; round < options.rounds; round++) {
      await measure('net-snmp', chunk, options.concurrency, viaRaw, series['net-snmp']);
      await measure('driverbox', chunk, options.concurrency, viaHost, series.driverbox);
    }
    const figures = Object.values(series).map((s) => {
      const sorted = [...s.latencies].sort((a, b) => a - b);
      return {
        side: s.side,
        runs: s.runs,
        runsPerSecond: (s.runs / s.elapsedMs) * 1000,
        cpuMsPerRun: s.cpuMs / s.runs,
        latency: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: mean(sorted) },
      };
    });
    const [raw, box] = [figures.find((f) => f.side === 'net-snmp')!, figures.find((f) => f.side === 'driverbox')!];
    const ratio = box.runsPerSecond / raw.runsPerSecond;
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ bench: 'snmp-driver', values: expected, concurrency: options.concurrency, series: figures, ratio })}\n`);
    } else {
      process.stdout.write(`SNMP walk of ${expected} values (${options.rows} rows × ${COLUMNS} columns), v2c, maxRepetitions 24, concurrency ${options.concurrency}\n\n`);
      process.stdout.write(
        `${table(
          ['side', 'runs', 'runs/s', 'CPU ms/run', 'p50 ms', 'p99 ms'],
          figures.map((f) => [f.side, String(f.runs), f.runsPerSecond.toFixed(1), f.cpuMsPerRun.toFixed(2), f.latency.p50.toFixed(2), f.latency.p99.toFixed(2)]),
        )}\n\n`,
      );
      process.stdout.write(`driverbox / net-snmp throughput: ${ratio.toFixed(2)} (CPU per run ×${(box.cpuMsPerRun / raw.cpuMsPerRun).toFixed(2)}; the simulated agent's CPU is in both)\n`);
    }
    return 0;
  } finally {
    await host.close();
    await sim.close();
  }
}

runBench('bench:snmp', main);
