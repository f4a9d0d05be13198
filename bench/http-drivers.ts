// Throughput of HTTP-polling drivers through host.run(), side by side with raw undici.
//
// What it measures: a local node:http server on 127.0.0.1 (port 0) answers GET /status?i=N
// with a ~200-byte JSON body. Two drivers poll it:
//   - "1-GET":  one D.device.http.get, parse the JSON, D.success with one variable
//   - "10-GET": ten sequential GETs (each callback starts the next), each body parsed,
//               D.success with one variable (the sum of the indexes the server echoed)
// Each driver's runs go through one createHost({ maxIsolates: C, warmIsolates: C, threads }) per
// concurrency C, device { ip: '127.0.0.1', portMap: { 80: port } }. In the same process the
// same work is done with raw undici: a "run" is 1 or 10 sequential undici.request GETs on one
// keep-alive Agent (connection bound = the host's per-device Agent, 6 unless --connections),
// each body read and JSON-parsed. Runs are closed-loop: C workers each start the next run
// as soon as their previous one ends. Every run's outcome is checked (status, the variable's
// value, the number of exchanges, no warnings); any failed run makes the bench fail.
//
// By default the server runs in a worker thread (a device has its own CPU; its thread's event
// loop utilisation is shown so a saturated server is visible); --server inline puts it on the
// bench's own event loop instead.
//
// The ratios are printed beside issue 24's baseline (measured on main) and its targets.
// --thread-network also measures, in the same rounds, driverbox with each run's network on its
// sandbox thread (HostOptions.networkInThreads: true), so that both designs' figures come from
// one run under the same load.
//
// --https also measures, in the same rounds, both sides against the same server over HTTPS (a
// second status device with a self-signed RSA 2048 certificate made at start; the driver passes
// rejectUnauthorized: false, raw undici's Agent too), and prints CPU per run and runs/s beside the
// plain-HTTP figures. Runs are closed-loop on one device, so its keep-alive connections carry
// them: this is TLS's steady cost (records, not handshakes); bench:agent --https measures a
// handshake per run.
//
// Run:     npm run bench:http
//          npm run bench:http -- --runs 300 --concurrency 16 --json
// Options: --runs N (runs per series; default 3000 for 1-GET, 1000 for 10-GET, or env RUNS),
//          --warmup N (default 100 runs per driver and side), --concurrency C[,C…] (default 1,16),
//          --rounds N (default 5: each series is measured in N chunks alternating undici and
//          driverbox, so a busy spell of the machine weighs on both sides alike),
//          --connections N (raw undici Agent bound, default 6), --server thread|inline,
//          --threads N (the host's sandbox threads; default: the host's own default),
//          --thread-network (also driverbox with networkInThreads: true), --https (also both over HTTPS),
//          --json (one JSON object on stdout).
import os from 'node:os';
import { Agent, request } from 'undici';
import { createHost, type Host, type RunResult } from '../host/index.js';
import { benchHeapFlags, ensureRuntimeBundle, intFlag, mean, parseFlags, percentile, positiveInt, runBench, switchFlag, table, usage } from './lib/common.js';
import { threadCpuMs } from './lib/proc.js';
import { makeSelfSigned } from './lib/self-signed.js';
import { startStatusDevice, type ServerMode, type StatusDevice as Device } from './lib/status-device.js';

type Side = 'driverbox' | 'undici' | 'threadNetwork' | 'driverboxHttps' | 'undiciHttps';

interface DriverCase {
  name: string;
  requests: number;
  source: string;
  defaultRuns: number;
}

interface Options {
  runs: number | null;
  warmup: number;
  rounds: number;
  concurrency: number[];
  connections: number;
  threads: number | undefined;
  server: ServerMode;
  threadNetwork: boolean;
  https: boolean;
  json: boolean;
  /** Set driverbox's V8 heap flags in this process (the CLI's and the sandbox process's). */
  heapFlags: boolean;
}

interface Series {
  side: Side;
  driver: string;
  requests: number;
  concurrency: number;
  runs: number;
  failures: number;
  firstFailure: string | null;
  elapsedMs: number;
  runsPerSecond: number;
  latency: { p50: number; p99: number; mean: number; max: number };
  /** Process CPU (user + system, all threads, the server thread included) per run. */
  cpuMsPerRun: number;
  /** CPU of the bench's main thread (host, undici, bench loop) per run; Linux only. */
  mainThreadCpuMsPerRun: number | null;
  /** Event loop utilisation of the server thread during the series (thread mode only). */
  serverElu: number | null;
  /** driverbox only: result.durationMs p50, and the mean per-request time the bridge recorded. */
  inSandboxP50Ms: number | null;
  exchangeMeanMs: number | null;
}

/** host/bridges/http/sessions.ts (CONNECTIONS_PER_ORIGIN): a device's Agent holds this many connections. */
const HOST_CONNECTIONS_PER_ORIGIN = 6;
const TARGET_RATIO = 0.5;
const TARGET_DRIVER = '10-GET';
/** Issue 24's figures: driverbox/undici runs/s on main (2 cores), and the targets. */
const ISSUE_BASELINE: Record<string, Record<number, number>> = { '1-GET': { 1: 0.19, 16: 0.1 }, '10-GET': { 1: 0.32, 16: 0.38 } };
const ISSUE_TARGET: Record<string, Record<number, number>> = { '1-GET': { 16: 0.2 }, '10-GET': { 16: TARGET_RATIO } };

// ---------------------------------------------------------------------------- drivers

function pollingDriver(requests: number): string {
  return `
var REQUESTS = ${requests};
function get_status() {
  var sum = 0;
  function poll(i) {
    D.device.http.get({ url: '/status?i=' + i }, function (error, response, body) {
      if (error) {
        console.error('request ' + i + ' failed: ' + error.code + ' ' + error.message);
        return D.failure(D.errorType.NETWORK_ERROR);
      }
      if (response.statusCode !== 200) {
        console.error('request ' + i + ' answered ' + response.statusCode);
        return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
      }
      var data;
      try {
        data = JSON.parse(body);
      } catch (e) {
        console.error('request ' + i + ': ' + e.message);
        return D.failure(D.errorType.PARSING_ERROR);
      }
      sum += data.i;
      if (i + 1 < REQUESTS) return poll(i + 1);
      D.success([D.device.createVariable('index_sum', 'Sum of polled indexes', sum, null, D.valueType.NUMBER)]);
    });
  }
  poll(0);
}
`;
}

const DRIVERS: DriverCase[] = [
  { name: '1-GET', requests: 1, source: pollingDriver(1), defaultRuns: 3000 },
  { name: '10-GET', requests: 10, source: pollingDriver(10), defaultRuns: 1000 },
];

/** 0 + 1 + … + (n - 1): what both sides must compute from the bodies. */
const expectedSum = (requests: number) => (requests * (requests - 1)) / 2;

// ---------------------------------------------------------------------------- arguments

function parseArgs(argv: string[]): Options {
  return parseFlags<Options>(
    argv,
    {
      runs: process.env.RUNS ? positiveInt(process.env.RUNS, 'RUNS') : null,
      warmup: 100,
      rounds: 5,
      concurrency: [1, 16],
      connections: HOST_CONNECTIONS_PER_ORIGIN,
      threads: undefined,
      server: 'thread',
      threadNetwork: false,
      https: false,
      json: false,
      heapFlags: true,
    },
    {
      '--runs': intFlag('runs'),
      '--warmup': intFlag('warmup', true),
      '--rounds': intFlag('rounds'),
      '--concurrency': (options, value, flag) => {
        const text = value();
        if (text === undefined) usage(`${flag} needs a value such as 16 or 1,16`);
        const list = text.split(',').map((part) => positiveInt(part, flag));
        options.concurrency = [...new Set(list)].sort((a, b) => a - b);
      },
      '--connections': intFlag('connections'),
      '--threads': intFlag('threads'),
      '--server': (options, value, flag) => {
        const mode = value();
        if (mode !== 'thread' && mode !== 'inline') usage(`${flag} must be "thread" or "inline" (got ${JSON.stringify(mode)})`);
        options.server = mode;
      },
      '--thread-network': switchFlag('threadNetwork'),
      '--https': switchFlag('https'),
      '--no-heap-flags': switchFlag('heapFlags', false),
      '--json': switchFlag('json'),
    },
    'usage: npm run bench:http -- [--runs N] [--warmup N] [--rounds N] [--concurrency C[,C…]] [--connections N] [--threads N] [--server thread|inline] [--thread-network] [--https] [--no-heap-flags] [--json]',
  );
}

// ---------------------------------------------------------------------------- measuring

/** One run: resolves to null when it did what it should, else to why not. */
type RunOnce = () => Promise<string | null>;

interface Loop {
  latencies: number[];
  failures: number;
  firstFailure: string | null;
  elapsedMs: number;
}

/** `total` runs, `concurrency` at a time, closed-loop. */
async function loop(total: number, concurrency: number, once: RunOnce): Promise<Loop> {
  const latencies: number[] = [];
  let started = 0;
  let failures = 0;
  let firstFailure: string | null = null;
  const worker = async () => {
    while (started < total) {
      started++;
      const t0 = performance.now();
      let problem: string | null;
      try {
        problem = await once();
      } catch (error) {
        problem = error instanceof Error ? error.message : String(error);
      }
      latencies.push(performance.now() - t0);
      if (problem !== null) {
        failures++;
        firstFailure ??= problem;
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return { latencies, failures, firstFailure, elapsedMs: performance.now() - t0 };
}

interface DriverboxSamples {
  inSandbox: number[];
  exchanges: number[];
}

function checkResult(result: RunResult, driver: DriverCase): string | null {
  const errors = result.logs.filter((l) => l.level === 'error').map((l) => l.message);
  if (result.status !== 'success') {
    return `${result.errorType ?? 'failure'}: ${result.message ?? ''}${errors.length ? ` (driver log: ${errors.join('; ')})` : ''}`;
  }
  const variable = result.variables[0];
  if (result.variables.length !== 1 || variable?.value !== String(expectedSum(driver.requests))) {
    return `expected one variable index_sum = ${expectedSum(driver.requests)}, got ${JSON.stringify(result.variables)}`;
  }
  if (result.http.length !== driver.requests || result.http.some((x) => x.status !== 200)) {
    return `expected ${driver.requests} exchanges answered 200, got ${JSON.stringify(result.http.map((x) => x.status ?? x.error))}`;
  }
  if (result.warnings.length > 0) return `warnings: ${result.warnings.join('; ')}`;
  return null;
}

/** The driver over HTTPS, as drivers of devices with their own certificate ask. */
function overHttps(driver: DriverCase): DriverCase {
  return { ...driver, source: driver.source.replace("{ url: '/status?i=' + i }", "{ url: '/status?i=' + i, protocol: 'https', rejectUnauthorized: false }") };
}

function driverboxRun(host: Host, driver: DriverCase, port: number, samples?: DriverboxSamples, https = false): RunOnce {
  const device = { ip: '127.0.0.1', portMap: { [https ? 443 : 80]: port } };
  const run = https ? overHttps(driver) : driver;
  return async () => {
    const result = await host.run({ source: run.source, filename: `${driver.name}.js`, device });
    if (samples) {
      samples.inSandbox.push(result.durationMs);
      for (const exchange of result.http) samples.exchanges.push(exchange.durationMs);
    }
    return checkResult(result, driver);
  };
}

function undiciRun(agent: Agent, driver: DriverCase, port: number, https = false): RunOnce {
  const origin = `${https ? 'https' : 'http'}://127.0.0.1:${port}`;
  return async () => {
    let sum = 0;
    for (let i = 0; i < driver.requests; i++) {
      const response = await request(`${origin}/status?i=${i}`, { dispatcher: agent });
      const text = await response.body.text();
      if (response.statusCode !== 200) return `request ${i} answered ${response.statusCode}`;
      sum += (JSON.parse(text) as { i: number }).i;
    }
    return sum === expectedSum(driver.requests) ? null : `expected index sum ${expectedSum(driver.requests)}, got ${sum}`;
  };
}

/** One side's measurements, summed over the rounds of a series. */
class Tally {
  readonly latencies: number[] = [];
  readonly samples: DriverboxSamples = { inSandbox: [], exchanges: [] };
  runs = 0;
  failures = 0;
  firstFailure: string | null = null;
  elapsedMs = 0;
  cpuMs = 0;
  mainThreadMs: number | null = 0;
  /** Server event-loop utilisation × elapsed ms, to average over rounds. */
  serverEluMs: number | null = 0;

  constructor(
    readonly side: Side,
    readonly driver: DriverCase,
    readonly concurrency: number,
  ) {}

  async round(runs: number, device: Device, once: RunOnce): Promise<void> {
    if (runs === 0) return;
    const elu0 = device.elu();
    const cpu0 = process.cpuUsage();
    const main0 = threadCpuMs();
    const result = await loop(runs, this.concurrency, once);
    const cpu = process.cpuUsage(cpu0);
    const main1 = threadCpuMs();
    const elu = device.elu(elu0.mark);
    this.runs += runs;
    this.latencies.push(...result.latencies);
    this.failures += result.failures;
    this.firstFailure ??= result.firstFailure;
    this.elapsedMs += result.elapsedMs;
    this.cpuMs += (cpu.user + cpu.system) / 1000;
    this.mainThreadMs = this.mainThreadMs === null || main0 === null || main1 === null ? null : this.mainThreadMs + (main1 - main0);
    this.serverEluMs = this.serverEluMs === null || elu.utilization === null ? null : this.serverEluMs + elu.utilization * result.elapsedMs;
  }

  series(): Series {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const sortedIn = [...this.samples.inSandbox].sort((a, b) => a - b);
    const box = this.side !== 'undici';
    return {
      side: this.side,
      driver: this.driver.name,
      requests: this.driver.requests,
      concurrency: this.concurrency,
      runs: this.runs,
      failures: this.failures,
      firstFailure: this.firstFailure,
      elapsedMs: this.elapsedMs,
      runsPerSecond: this.runs / (this.elapsedMs / 1000),
      latency: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean: mean(this.latencies), max: sorted[sorted.length - 1]! },
      cpuMsPerRun: this.cpuMs / this.runs,
      mainThreadCpuMsPerRun: this.mainThreadMs === null ? null : this.mainThreadMs / this.runs,
      serverElu: this.serverEluMs === null ? null : this.serverEluMs / this.elapsedMs,
      inSandboxP50Ms: box ? percentile(sortedIn, 50) : null,
      exchangeMeanMs: box ? mean(this.samples.exchanges) : null,
    };
  }
}

/** One side of a series: how it makes a run (given where to keep driverbox's samples). */
type SideRun = { side: Side; make: (samples?: DriverboxSamples) => RunOnce };

/**
 * Every side of one (driver, concurrency) pair, in `rounds` alternating chunks (undici,
 * driverbox, [threadNetwork,] undici, …) so that a slow spell of the machine weighs on all alike.
 */
async function measureSides(driver: DriverCase, concurrency: number, runs: number, rounds: number, device: Device, sides: SideRun[]): Promise<Series[]> {
  const tallies = sides.map(({ side, make }) => {
    const tally = new Tally(side, driver, concurrency);
    return { tally, once: make(tally.samples) };
  });
  for (let r = 0; r < rounds; r++) {
    const chunk = Math.floor((runs * (r + 1)) / rounds) - Math.floor((runs * r) / rounds);
    for (const { tally, once } of tallies) await tally.round(chunk, device, once);
  }
  return tallies.map(({ tally }) => tally.series());
}

// ---------------------------------------------------------------------------- output

const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');

// ---------------------------------------------------------------------------- main

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  const heapFlags = benchHeapFlags(options.heapFlags);
  await ensureRuntimeBundle();
  const log = (text: string) => {
    if (!options.json) process.stdout.write(`${text}\n`);
  };
  // Progress goes to a terminal's stderr only, so piped or --json output stays clean.
  const progress = (text: string) => {
    if (process.stderr.isTTY) process.stderr.write(`\r${text.padEnd(60)}\r`);
  };
  const runsFor = (driver: DriverCase) => options.runs ?? driver.defaultRuns;

  const device = await startStatusDevice(options.server);
  const tlsDevice = options.https ? await startStatusDevice(options.server, await makeSelfSigned()) : null;
  const series: Series[] = [];
  const started = performance.now();
  log(
    `driverbox HTTP drivers vs raw undici — runs per series: ${DRIVERS.map((d) => `${d.name} ${runsFor(d)}`).join(', ')}; ` +
      `${options.warmup} warm-up runs per driver and side; concurrency ${options.concurrency.join(', ')}; ${options.rounds} alternating rounds per series`,
  );
  log(`node ${process.version} (${process.platform}/${process.arch}), ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'})`);
  log(heapFlags.header);
  log(
    `server: node:http on 127.0.0.1:${device.port} (${options.server === 'thread' ? 'worker thread' : 'bench event loop'}), ~200-byte JSON; ` +
      `raw undici: one Agent per concurrency, ${options.connections} connections, keep-alive`,
  );
  log('');
  try {
    for (const concurrency of options.concurrency) {
      const hostOptions = { maxIsolates: concurrency, warmIsolates: concurrency, threads: options.threads };
      const host = createHost(hostOptions);
      const threaded = options.threadNetwork ? createHost({ ...hostOptions, networkInThreads: true }) : null;
      const agent = new Agent({ connections: options.connections, keepAliveTimeout: 10_000 });
      const tlsAgent = tlsDevice ? new Agent({ connections: options.connections, keepAliveTimeout: 10_000, connect: { rejectUnauthorized: false } }) : null;
      try {
        for (const driver of DRIVERS) {
          const sides: SideRun[] = [
            { side: 'undici', make: () => undiciRun(agent, driver, device.port) },
            { side: 'driverbox', make: (samples) => driverboxRun(host, driver, device.port, samples) },
            ...(threaded ? [{ side: 'threadNetwork' as const, make: (samples?: DriverboxSamples) => driverboxRun(threaded, driver, device.port, samples) }] : []),
            ...(tlsDevice && tlsAgent
              ? [
                  { side: 'undiciHttps' as const, make: () => undiciRun(tlsAgent, driver, tlsDevice.port, true) },
                  { side: 'driverboxHttps' as const, make: (samples?: DriverboxSamples) => driverboxRun(host, driver, tlsDevice.port, samples, true) },
                ]
              : []),
          ];
          progress(`  warming up ${driver.name} at C=${concurrency} …`);
          for (const { side, make } of sides) {
            const warm = await loop(options.warmup, concurrency, make());
            if (warm.failures > 0) throw new Error(`${side} ${driver.name} failed during warm-up (${warm.failures} of ${options.warmup} runs): ${warm.firstFailure}`);
          }
          progress(`  measuring ${driver.name} at C=${concurrency} …`);
          series.push(...(await measureSides(driver, concurrency, runsFor(driver), options.rounds, device, sides)));
        }
      } finally {
        await host.close();
        await threaded?.close();
        await agent.close();
        await tlsAgent?.close();
      }
    }
  } finally {
    progress('');
    await device.close();
    await tlsDevice?.close();
  }
  const totalSeconds = (performance.now() - started) / 1000;

  const find = (side: Side, driver: string, concurrency: number) =>
    series.find((s) => s.side === side && s.driver === driver && s.concurrency === concurrency);
  const pairs = options.concurrency.flatMap((concurrency) =>
    DRIVERS.map((driver) => {
      const box = find('driverbox', driver.name, concurrency)!;
      const raw = find('undici', driver.name, concurrency)!;
      const threaded = find('threadNetwork', driver.name, concurrency) ?? null;
      return {
        driverboxHttps: find('driverboxHttps', driver.name, concurrency) ?? null,
        undiciHttps: find('undiciHttps', driver.name, concurrency) ?? null,
        driver: driver.name,
        requests: driver.requests,
        concurrency,
        driverbox: box,
        undici: raw,
        threaded,
        ratio: box.runsPerSecond / raw.runsPerSecond,
        threadedRatio: threaded ? threaded.runsPerSecond / raw.runsPerSecond : null,
        issueBaseline: ISSUE_BASELINE[driver.name]?.[concurrency] ?? null,
        issueTarget: ISSUE_TARGET[driver.name]?.[concurrency] ?? null,
      };
    }),
  );
  const targetConcurrency = options.concurrency[options.concurrency.length - 1]!;
  const targetPair = pairs.find((p) => p.driver === TARGET_DRIVER && p.concurrency === targetConcurrency)!;
  const failed = series.filter((s) => s.failures > 0);
  const target = {
    description: `${TARGET_DRIVER} driver at concurrency ${targetConcurrency}: driverbox runs/s >= ${TARGET_RATIO} x raw undici runs/s`,
    threshold: TARGET_RATIO,
    concurrency: targetConcurrency,
    ratio: targetPair.ratio,
    result: targetPair.ratio >= TARGET_RATIO && failed.length === 0 ? 'PASS' : 'FAIL',
  };

  if (options.json) {
    const round = (n: number | null) => (n === null || !Number.isFinite(n) ? null : Math.round(n * 1000) / 1000);
    const out = (s: Series) => ({
      runs: s.runs,
      failures: s.failures,
      firstFailure: s.firstFailure,
      elapsedMs: round(s.elapsedMs),
      runsPerSecond: round(s.runsPerSecond),
      latencyMs: { p50: round(s.latency.p50), p99: round(s.latency.p99), mean: round(s.latency.mean), max: round(s.latency.max) },
      cpuMsPerRun: round(s.cpuMsPerRun),
      mainThreadCpuMsPerRun: round(s.mainThreadCpuMsPerRun),
      serverElu: round(s.serverElu),
      ...(s.side === 'driverbox' ? { inSandboxP50Ms: round(s.inSandboxP50Ms), exchangeMeanMs: round(s.exchangeMeanMs) } : {}),
    });
    const json = {
      node: process.version,
      heapFlags: heapFlags.flags,
      platform: `${process.platform}/${process.arch}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim() ?? null,
      server: options.server,
      undiciConnections: options.connections,
      warmup: options.warmup,
      rounds: options.rounds,
      concurrency: options.concurrency,
      totalSeconds: round(totalSeconds),
      results: pairs.map((p) => ({
        driver: p.driver,
        requestsPerRun: p.requests,
        concurrency: p.concurrency,
        driverbox: out(p.driverbox),
        undici: out(p.undici),
        ...(p.threaded ? { threadNetwork: out(p.threaded), threadNetworkRatio: round(p.threadedRatio) } : {}),
        ...(p.driverboxHttps && p.undiciHttps ? { driverboxHttps: out(p.driverboxHttps), undiciHttps: out(p.undiciHttps) } : {}),
        runsPerSecondRatio: round(p.ratio),
        issueBaselineRatio: p.issueBaseline,
        issueTargetRatio: p.issueTarget,
      })),
      target: { ...target, ratio: round(target.ratio) },
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    log(
      table(
        ['driver', 'C', 'runs', 'driverbox runs/s', 'p50 ms', 'p99 ms', 'undici runs/s', 'p50 ms', 'p99 ms', 'driverbox/undici', 'failures'],
        pairs.map((p) => [
          p.driver,
          String(p.concurrency),
          String(p.driverbox.runs),
          f0(p.driverbox.runsPerSecond),
          f2(p.driverbox.latency.p50),
          f2(p.driverbox.latency.p99),
          f0(p.undici.runsPerSecond),
          f2(p.undici.latency.p50),
          f2(p.undici.latency.p99),
          `${p.ratio.toFixed(2)}x`,
          `${p.driverbox.failures}/${p.undici.failures}`,
        ]),
      ),
    );
    log('runs/s = runs / wall time of the series; p50/p99 = one run (host.run, or the undici requests of one run); failures = driverbox/undici');
    log('');
    const ratio = (n: number | null) => (n === null ? '-' : `${n.toFixed(2)}x`);
    log(
      table(
        ['driver', 'C', 'driverbox/undici now', ...(options.threadNetwork ? ['network on the sandbox thread, same run'] : []), 'issue 24 baseline', 'target', 'now/baseline'],
        pairs.map((p) => [
          p.driver,
          String(p.concurrency),
          ratio(p.ratio),
          ...(options.threadNetwork ? [`${ratio(p.threadedRatio)} (${f0(p.threaded!.runsPerSecond)} runs/s, ${f2(p.threaded!.cpuMsPerRun)} CPU ms/run; driverbox ${f2(p.driverbox.cpuMsPerRun)})`] : []),
          ratio(p.issueBaseline),
          p.issueTarget === null ? '-' : `>= ${p.issueTarget.toFixed(2)}x ${p.ratio >= p.issueTarget ? 'met' : 'not met'}`,
          p.issueBaseline === null ? '-' : `${(p.ratio / p.issueBaseline).toFixed(2)}`,
        ]),
      ),
    );
    log('');
    log(
      table(
        ['driver', 'C', 'CPU ms/run driverbox', 'CPU ms/run undici', 'main thread driverbox', 'main thread undici', 'server ELU driverbox', 'server ELU undici', 'in-sandbox p50 ms', 'bridge ms/request'],
        pairs.map((p) => [
          p.driver,
          String(p.concurrency),
          f2(p.driverbox.cpuMsPerRun),
          f2(p.undici.cpuMsPerRun),
          f2(p.driverbox.mainThreadCpuMsPerRun ?? NaN),
          f2(p.undici.mainThreadCpuMsPerRun ?? NaN),
          p.driverbox.serverElu === null ? '-' : `${(p.driverbox.serverElu * 100).toFixed(0)}%`,
          p.undici.serverElu === null ? '-' : `${(p.undici.serverElu * 100).toFixed(0)}%`,
          f2(p.driverbox.inSandboxP50Ms ?? NaN),
          f2(p.driverbox.exchangeMeanMs ?? NaN),
        ]),
      ),
    );
    log('CPU ms/run = process user+system CPU (all threads, server included) / runs; main thread = the same for the main thread only');
    log('(host, undici client, bench loop; the sandboxes run on isolated-vm threads); server ELU = event loop utilisation of the server thread');
    log('in-sandbox p50 = result.durationMs; bridge ms/request = mean HttpExchange.durationMs (undici request + body, as the bridge timed it)');
    log('');
    if (options.https) {
      const x = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '-');
      log(
        table(
          ['driver', 'C', 'driverbox CPU ms/run http', 'https', 'https/http', 'runs/s http', 'https', 'undici CPU ms/run http', 'https', 'https/http'],
          pairs.map((p) => [
            p.driver,
            String(p.concurrency),
            f2(p.driverbox.cpuMsPerRun),
            f2(p.driverboxHttps!.cpuMsPerRun),
            x(p.driverboxHttps!.cpuMsPerRun, p.driverbox.cpuMsPerRun),
            f0(p.driverbox.runsPerSecond),
            f0(p.driverboxHttps!.runsPerSecond),
            f2(p.undici.cpuMsPerRun),
            f2(p.undiciHttps!.cpuMsPerRun),
            x(p.undiciHttps!.cpuMsPerRun, p.undici.cpuMsPerRun),
          ]),
        ),
      );
      log('HTTPS: the same runs in the same rounds against a second device (self-signed certificate, rejectUnauthorized: false), over keep-alive');
      log('connections: CPU here is TLS records, not handshakes (bench:agent --https has a handshake per run); CPU includes both server threads');
      log('');
    }
    log(`Target: 10-request driver ≥ ${TARGET_RATIO} of raw undici throughput: ${target.result} (${target.ratio.toFixed(2)} at C=${targetConcurrency})`);
    log(`total time ${totalSeconds.toFixed(1)} s`);
  }

  for (const s of failed) {
    process.stderr.write(`bench:http: ${s.side} ${s.driver} at C=${s.concurrency}: ${s.failures} of ${s.runs} runs failed; first: ${s.firstFailure}\n`);
  }
  return failed.length > 0 ? 1 : 0;
}

runBench('bench:http', main);
