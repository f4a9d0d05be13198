// Per-run overhead of host.run(), one run at a time.
//
// What it measures: the wall time of host.run() (performance.now() around the call)
// and the in-sandbox part the result reports (result.durationMs), for
//   - "empty":       function get_status(){ D.success(); }
//   - "vars+table":  50 variables and a 20-row, 4-column table passed to D.success
//   - "cheerio":     one D.htmlParse call (pool mode only; each run's fresh context
//                    evaluates the cheerio bundle on first use)
//   - "lodash":      one D._ call (pool mode only; likewise for the lodash bundle)
// in two modes:
//   - fresh: createHost({ warmIsolates: 0, recycleAfterRuns: 1 }) — every run creates a
//            new isolate and disposes it afterwards (checked: stats().created grows by N)
//   - pool:  createHost() with its defaults — warm isolates are reused
// Each series is preceded by a warm-up of 20 runs that are not counted.
//
// Run:     npm run bench:overhead
//          npm run bench:overhead -- --runs 200 --json     (or RUNS=200 npm run bench:overhead)
// Options: --runs N (default 500, or env RUNS), --warmup N (default 20),
//          --no-cheerio (skip the library drivers), --json (one JSON object on stdout).
// It ends with the issue-24 table: each pooled figure beside the baseline the issue gave and its
// target, with the ratio, so a change and its baseline are read in one run.
import os from 'node:os';
import { createHost, type Host, type HostOptions, type RunResult } from '../host/index.js';
import { benchHeapFlags, ensureRuntimeBundle, intFlag, mean, parseFlags, percentile, positiveInt, runBench, switchFlag, table } from './lib/common.js';

type PoolStats = ReturnType<Host['stats']>;
type Mode = 'fresh' | 'pool';

interface DriverCase {
  name: string;
  label: string;
  source: string;
  modes: Mode[];
  check(result: RunResult): string | null;
}

interface Series {
  mode: Mode;
  driver: string;
  label: string;
  runs: number;
  wall: { p50: number; p99: number; mean: number; min: number; max: number };
  durationMs: { p50: number; p99: number; mean: number };
  runsPerSecond: number;
  isolatesCreated: number;
}

interface Options {
  runs: number;
  warmup: number;
  json: boolean;
  cheerio: boolean;
  /** Set driverbox's V8 heap flags in this process (the CLI's and the sandbox process's). */
  heapFlags: boolean;
}

const TARGET_P50_MS = 2;

/** Issue 24's pooled p50 figures (2 cores, one run at a time) and its targets for them. */
const ISSUE_24: Array<{ driver: string; baselineMs: number; targetMs: number }> = [
  { driver: 'empty', baselineMs: 0.61, targetMs: 0.5 },
  { driver: 'cheerio', baselineMs: 15.8, targetMs: 3 },
];

// ---------------------------------------------------------------------------- drivers

const EMPTY_DRIVER = `function get_status(){ D.success(); }`;

const VARS_TABLE_DRIVER = `
function get_status() {
  var vars = [];
  for (var i = 0; i < 50; i++) {
    vars.push(D.createVariable('var' + i, 'Variable ' + i, i * 1.5, 'unit', D.valueType.NUMBER));
  }
  var table = D.createTable('Ports', [
    { label: 'Name' },
    { label: 'State' },
    { label: 'Speed', unit: 'Mbps', valueType: D.valueType.NUMBER },
    { label: 'Errors', valueType: D.valueType.NUMBER }
  ]);
  for (var r = 0; r < 20; r++) {
    table.insertRecord('port' + r, ['Port ' + r, r % 2 ? 'up' : 'down', 1000, r * 3]);
  }
  D.success(vars, table);
}
`;

const CHEERIO_DRIVER = `
function get_status() {
  var $ = D.htmlParse('<html><body><table id="t"><tr><td class="v">42</td><td class="u">C</td></tr></table></body></html>');
  D.success([D.createVariable('temp', 'Temperature', $('td.v').text(), $('td.u').text(), D.valueType.NUMBER)]);
}
`;

const LODASH_DRIVER = `
function get_status() {
  var rows = D._.sortBy([{ n: 'b', v: 2 }, { n: 'a', v: 1 }], 'v');
  D.success([D.createVariable('first', 'First', D._.head(rows).n)]);
}
`;

/** Library drivers: pool mode only, skipped by --no-cheerio. */
const LIBRARY_DRIVERS = new Set(['cheerio', 'lodash']);

const DRIVERS: DriverCase[] = [
  {
    name: 'empty',
    label: 'empty',
    source: EMPTY_DRIVER,
    modes: ['fresh', 'pool'],
    check: (r) => (r.variables.length === 0 && r.tables.length === 0 ? null : 'expected no variables and no table'),
  },
  {
    name: 'vars+table',
    label: 'vars+table (50 vars, 20x4 table)',
    source: VARS_TABLE_DRIVER,
    modes: ['fresh', 'pool'],
    check: (r) =>
      r.variables.length === 50 && r.tables.length === 1 && r.tables[0]?.rows.length === 20 && r.tables[0]?.columnHeaders.length === 4
        ? null
        : `expected 50 variables and one 20x4 table, got ${r.variables.length} variables and ${r.tables.length} tables`,
  },
  {
    name: 'cheerio',
    label: 'cheerio (cheerio, first use per context)',
    source: CHEERIO_DRIVER,
    modes: ['pool'],
    check: (r) => (r.variables[0]?.value === '42' ? null : `expected variable temp = 42, got ${JSON.stringify(r.variables[0]?.value)}`),
  },
  {
    name: 'lodash',
    label: 'lodash (lodash, first use per context)',
    source: LODASH_DRIVER,
    modes: ['pool'],
    check: (r) => (r.variables[0]?.value === 'a' ? null : `expected variable first = a, got ${JSON.stringify(r.variables[0]?.value)}`),
  },
];

// ---------------------------------------------------------------------------- arguments

function parseArgs(argv: string[]): Options {
  return parseFlags<Options>(
    argv,
    { runs: process.env.RUNS ? positiveInt(process.env.RUNS, 'RUNS') : 500, warmup: 20, json: false, cheerio: true, heapFlags: true },
    {
      '--runs': intFlag('runs'),
      '--warmup': intFlag('warmup', true),
      '--json': switchFlag('json'),
      '--no-cheerio': switchFlag('cheerio', false),
      '--no-heap-flags': switchFlag('heapFlags', false),
    },
    'usage: npm run bench:overhead -- [--runs N] [--warmup N] [--no-cheerio] [--no-heap-flags] [--json]',
  );
}

// ---------------------------------------------------------------------------- measuring

/** A driver misbehaved: report it without a stack and stop (exit 1). */
function fail(message: string): never {
  process.stderr.write(`bench:overhead: ${message}\n`);
  process.exit(1);
}

async function runOnce(host: Host, driver: DriverCase): Promise<{ wall: number; inSandbox: number }> {
  const start = performance.now();
  const result = await host.run({ source: driver.source, filename: `${driver.name}.js` });
  const wall = performance.now() - start;
  if (result.status !== 'success') {
    fail(`driver "${driver.name}" failed: ${result.errorType ?? ''} ${result.message ?? ''}`);
  }
  const problem = driver.check(result);
  if (problem) fail(`driver "${driver.name}": ${problem}`);
  if (result.warnings.length > 0) fail(`driver "${driver.name}" produced warnings: ${result.warnings.join('; ')}`);
  return { wall, inSandbox: result.durationMs };
}

async function measure(host: Host, mode: Mode, driver: DriverCase, options: Options): Promise<Series> {
  for (let i = 0; i < options.warmup; i++) await runOnce(host, driver);

  const createdBefore = host.stats().created;
  const wall: number[] = [];
  const inSandbox: number[] = [];
  const loopStart = performance.now();
  for (let i = 0; i < options.runs; i++) {
    const sample = await runOnce(host, driver);
    wall.push(sample.wall);
    inSandbox.push(sample.inSandbox);
  }
  const elapsedMs = performance.now() - loopStart;
  const isolatesCreated = host.stats().created - createdBefore;

  if (mode === 'fresh' && isolatesCreated !== options.runs) {
    fail(`fresh mode did not create one isolate per run: ${isolatesCreated} isolates for ${options.runs} runs`);
  }

  const sortedWall = [...wall].sort((a, b) => a - b);
  const sortedIn = [...inSandbox].sort((a, b) => a - b);
  return {
    mode,
    driver: driver.name,
    label: driver.label,
    runs: options.runs,
    wall: {
      p50: percentile(sortedWall, 50),
      p99: percentile(sortedWall, 99),
      mean: mean(wall),
      min: sortedWall[0]!,
      max: sortedWall[sortedWall.length - 1]!,
    },
    durationMs: { p50: percentile(sortedIn, 50), p99: percentile(sortedIn, 99), mean: mean(inSandbox) },
    runsPerSecond: options.runs / (elapsedMs / 1000),
    isolatesCreated,
  };
}

// ---------------------------------------------------------------------------- output

const f2 = (n: number) => n.toFixed(2);
const f0 = (n: number) => n.toFixed(0);

// ---------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const heapFlags = benchHeapFlags(options.heapFlags);
  await ensureRuntimeBundle();
  const drivers = DRIVERS.filter((d) => options.cheerio || !LIBRARY_DRIVERS.has(d.name));
  const log = (text: string) => {
    if (!options.json) process.stdout.write(`${text}\n`);
  };
  // Progress goes to a terminal's stderr only, so piped or --json output stays clean.
  const progress = (text: string) => {
    if (process.stderr.isTTY) process.stderr.write(`\r${text.padEnd(60)}\r`);
  };

  const freshOptions: HostOptions = { warmIsolates: 0, recycleAfterRuns: 1 };
  const fresh = createHost(freshOptions);
  const pool = createHost();
  const series: Series[] = [];
  const started = performance.now();
  log(`driverbox run overhead — ${options.runs} runs per series after ${options.warmup} warm-up runs, one run at a time`);
  log(`node ${process.version} (${process.platform}/${process.arch}), ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'})`);
  log(heapFlags.header);
  log('');
  try {
    for (const driver of drivers) {
      for (const mode of driver.modes) {
        progress(`  measuring ${mode} / ${driver.name} …`);
        series.push(await measure(mode === 'fresh' ? fresh : pool, mode, driver, options));
      }
    }
  } finally {
    progress('');
  }
  const totalSeconds = (performance.now() - started) / 1000;
  const poolStats: PoolStats = pool.stats();
  const freshStats: PoolStats = fresh.stats();
  await Promise.all([fresh.close(), pool.close()]);

  const find = (mode: Mode, driver: string) => series.find((s) => s.mode === mode && s.driver === driver);
  const ratios = drivers
    .filter((d) => d.modes.includes('fresh') && d.modes.includes('pool'))
    .map((d) => {
      const f = find('fresh', d.name)!;
      const p = find('pool', d.name)!;
      return { driver: d.name, p50FreshOverPool: f.wall.p50 / p.wall.p50, runsPerSecondFreshOverPool: f.runsPerSecond / p.runsPerSecond };
    });
  const targetSeries = series.filter((s) => s.mode === 'pool' && !LIBRARY_DRIVERS.has(s.driver));
  const targetPass = targetSeries.every((s) => s.wall.p50 <= TARGET_P50_MS);
  const target = {
    description: `pool p50 (host.run wall) <= ${TARGET_P50_MS} ms for a driver that does not touch cheerio`,
    thresholdMs: TARGET_P50_MS,
    p50ByDriver: Object.fromEntries(targetSeries.map((s) => [s.driver, s.wall.p50])),
    result: targetPass ? 'PASS' : 'MISS',
  };
  const issue24 = ISSUE_24.flatMap(({ driver, baselineMs, targetMs }) => {
    const now = find('pool', driver);
    if (!now) return [];
    return [{ driver, p50Ms: now.wall.p50, baselineMs, targetMs, nowOverBaseline: now.wall.p50 / baselineMs, nowOverTarget: now.wall.p50 / targetMs, result: now.wall.p50 <= targetMs ? 'PASS' : 'MISS' }];
  });
  const loadAverage = os.loadavg().map((n) => Math.round(n * 100) / 100);

  if (options.json) {
    const round = (n: number) => Math.round(n * 1000) / 1000;
    const json = {
      node: process.version,
      heapFlags: heapFlags.flags,
      platform: `${process.platform}/${process.arch}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim() ?? null,
      runs: options.runs,
      warmup: options.warmup,
      totalSeconds: round(totalSeconds),
      series: series.map((s) => ({
        mode: s.mode,
        driver: s.driver,
        label: s.label,
        runs: s.runs,
        wallMs: { p50: round(s.wall.p50), p99: round(s.wall.p99), mean: round(s.wall.mean), min: round(s.wall.min), max: round(s.wall.max) },
        durationMs: { p50: round(s.durationMs.p50), p99: round(s.durationMs.p99), mean: round(s.durationMs.mean) },
        runsPerSecond: round(s.runsPerSecond),
        isolatesCreated: s.isolatesCreated,
      })),
      ratios: ratios.map((r) => ({ driver: r.driver, p50FreshOverPool: round(r.p50FreshOverPool), runsPerSecondFreshOverPool: round(r.runsPerSecondFreshOverPool) })),
      poolStats,
      freshStats,
      target,
      issue24: issue24.map((r) => ({ ...r, p50Ms: round(r.p50Ms), nowOverBaseline: round(r.nowOverBaseline), nowOverTarget: round(r.nowOverTarget) })),
      loadAverage,
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return;
  }

  log(
    table(
      ['mode', 'driver', 'runs', 'p50 ms', 'p99 ms', 'mean ms', 'runs/s', 'in-sandbox p50 ms', 'isolates created'],
      series.map((s) => [
        s.mode,
        s.label,
        String(s.runs),
        f2(s.wall.p50),
        f2(s.wall.p99),
        f2(s.wall.mean),
        f0(s.runsPerSecond),
        f2(s.durationMs.p50),
        String(s.isolatesCreated),
      ]),
      2,
    ),
  );
  log('p50/p99/mean ms = host.run wall (performance.now() around the call); in-sandbox p50 = result.durationMs p50');
  log('isolates created = during the measured runs (pool: only replacements, e.g. after recycleAfterRuns = 1000 runs)');
  log('');
  log(
    table(
      ['driver', 'p50 fresh/pool', 'runs/s fresh/pool'],
      ratios.map((r) => [r.driver, `${r.p50FreshOverPool.toFixed(2)}x`, `${r.runsPerSecondFreshOverPool.toFixed(2)}x`]),
    ),
  );
  log('');
  log(`pool stats (default host):  ${JSON.stringify(poolStats)}`);
  log(`fresh stats:                ${JSON.stringify(freshStats)}`);
  log('');
  const detail = targetSeries.map((s) => `${s.driver} ${f2(s.wall.p50)} ms`).join(', ');
  log(`target: pool p50 ≤ ${TARGET_P50_MS} ms for a driver that does not touch cheerio (${detail}): ${target.result}`);
  log('');
  log('issue 24 (pool p50, host.run wall): this run beside the issue\'s baseline and target');
  log(
    table(
      ['driver', 'now ms', 'baseline ms', 'target ms', 'now/baseline', 'now/target', 'result'],
      issue24.map((r) => [r.driver, f2(r.p50Ms), f2(r.baselineMs), f2(r.targetMs), `${r.nowOverBaseline.toFixed(2)}x`, `${r.nowOverTarget.toFixed(2)}x`, r.result]),
    ),
  );
  log(`load average (1, 5, 15 min) at the end: ${loadAverage.join(', ')}`);
  log(`total time ${totalSeconds.toFixed(1)} s`);
}

runBench('bench:overhead', main);
