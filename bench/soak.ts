// Soak: many runs of mixed drivers through one createHost(), watching memory and handles.
//
// What it does: --runs runs (default 100,000), --concurrency at a time (default 16), closed-loop,
// through one host. Each run's kind comes from a fixed, shuffled mix of 100 slots:
//   70 success  GET /status?i=N from a status device, JSON parsed, D.success with 3 variables
//   10 failure  D.failure(D.errorType.AUTHENTICATION_ERROR)
//    5 timeout  GET to a device that accepts and never answers; timeoutMs 200 → TIMEOUT_ERROR,
//               limitExceeded 'timeout', the request recorded ABORTED (or ETIMEDOUT, or not sent
//               when the busy sandbox thread got to the run after its deadline)
//    5 memory   allocates past memoryMb → GENERIC_ERROR, limitExceeded 'memory' (the isolate is
//               disposed and replaced)
//    5 faulty   in turn: the device resets the connection (the driver reports NETWORK_ERROR with
//               err.code ECONNRESET), answers invalid JSON (JSON.parse throws in the callback →
//               GENERIC_ERROR), or sends a body shorter than its Content-Length (NETWORK_ERROR)
//    5 cpu      an endless loop; cpuTimeMs 20 → TIMEOUT_ERROR, limitExceeded 'cpu'
// Every run's outcome is checked against its kind; any other outcome counts as unexpected
// (exit 1, the first few printed). All runs use memoryMb 32 (one pool size; a 128 MB bomb
// would only take longer) and a 10 s deadline unless their kind sets another.
//
// Every --report-every runs (default 10,000) the loop drains (no run in flight), so every
// sample sees the host in the same state, forces a GC on the host thread and on the sandbox
// threads when node runs with --expose-gc (the npm script does), then prints: runs done, runs/s
// of the interval, RSS, heap used / total, external, the sandbox threads' own heaps and the
// driver isolates' heaps (host.memory(), total sizes), "other" (RSS less those heaps and the
// host's: native memory, code, the allocator's free lists), isolates alive / created / disposed and sandbox threads recycled (host.stats()),
// the connections the fake devices still hold open, and open handles by type
// (process.getActiveResourcesInfo()).
//
// At the end: a least-squares line through RSS, and one through heap used, over every sample
// from the warm-up sample (the first at or after --warmup runs, default 20,000, or half the runs
// when fewer) to the last; single samples scatter by several MB, so two of them prove little.
// "flat" only when both lines grow less than --max-growth percent (default 10) from the first
// post-warm-up sample to the last; otherwise exit 1. The slope of the last half of those samples
// is printed too: smaller than the whole line's means the process is still settling.
//
// Run:     npm run bench:soak
//          npm run bench:soak -- --runs 20000 --concurrency 16 --json
// Options: --runs N, --concurrency C, --report-every N, --warmup N, --max-growth PCT,
//          --threads N (sandbox threads; default: the host's), --recycle-thread N (the host's
//          recycleThreadAfterRuns; default: the host's default), --json (one JSON object on stdout).
import os from 'node:os';
import { createHost, type Host, type RunResult } from '../host/index.js';
import { ensureRuntimeBundle, intFlag, parseFlags, positiveInt, runBench, switchFlag, usage } from './lib/common.js';
import { startFaultyDevices, type FaultyDeviceCounters, type FaultyDevices } from './lib/faulty-device.js';
import { startStatusDevice, type StatusDevice } from './lib/status-device.js';
import { fitTrend } from './lib/trend.js';

// ---------------------------------------------------------------------------- options

interface Options {
  runs: number;
  concurrency: number;
  reportEvery: number;
  warmup: number | null;
  maxGrowthPct: number;
  threads: number | undefined;
  recycleThread: number | undefined;
  mix: Record<Kind, number>;
  json: boolean;
}

const HELP = `usage: npm run bench:soak -- [--runs N] [--concurrency C] [--report-every N] [--warmup N] [--max-growth PCT] [--threads N] [--recycle-thread N] [--mix kind=N,…] [--json]`;

/** "--mix success=90,memory=10": slots per kind (of those given; the others get none). */
function parseMix(text: string | undefined): Record<Kind, number> {
  if (text === undefined) usage('--mix needs a value');
  const mix = Object.fromEntries(Kinds.map((k) => [k, 0])) as Record<Kind, number>;
  for (const part of text.split(',')) {
    const [kind, count] = part.split('=');
    if (!(Kinds as readonly string[]).includes(kind!)) usage(`--mix: unknown kind ${JSON.stringify(kind)}; kinds: ${Kinds.join(', ')}`);
    mix[kind as Kind] = positiveInt(count, `--mix ${kind}`, true);
  }
  if (Kinds.every((k) => mix[k] === 0)) usage('--mix: at least one kind needs a count above 0');
  return mix;
}

function parseArgs(argv: string[]): Options {
  const options = parseFlags<Options>(
    argv,
    { runs: 100_000, concurrency: 16, reportEvery: 10_000, warmup: null, maxGrowthPct: 10, threads: undefined, recycleThread: undefined, mix: { ...MIX }, json: false },
    {
      '--runs': intFlag('runs'),
      '--concurrency': intFlag('concurrency'),
      '--report-every': intFlag('reportEvery'),
      '--warmup': intFlag('warmup'),
      '--max-growth': intFlag('maxGrowthPct'),
      '--threads': intFlag('threads'),
      '--recycle-thread': intFlag('recycleThread', true),
      '--mix': (options, value) => {
        options.mix = parseMix(value());
      },
      '--json': switchFlag('json'),
    },
    HELP,
  );
  if (options.warmup !== null && options.warmup >= options.runs) usage(`--warmup (${options.warmup}) must be less than --runs (${options.runs})`);
  return options;
}

// ---------------------------------------------------------------------------- the drivers

const Kinds = ['success', 'failure', 'timeout', 'memory', 'faulty', 'cpu'] as const;
type Kind = (typeof Kinds)[number];
const MIX: Record<Kind, number> = { success: 70, failure: 10, timeout: 5, memory: 5, faulty: 5, cpu: 5 };

const SUCCESS = `function get_status() {
  var i = D.getParameter('i');
  D.device.http.get({ url: '/status?i=' + i }, function (err, res, body) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR);
    var doc = JSON.parse(body);
    D.success([
      D.createVariable('i', 'Index', doc.i),
      D.createVariable('model', 'Model', doc.model),
      D.createVariable('temperature', 'Temperature', doc.temperature, 'C', D.valueType.NUMBER),
    ]);
  });
}`;

const FAILURE = `function get_status() {
  console.error('login refused');
  D.failure(D.errorType.AUTHENTICATION_ERROR);
}`;

// No timeout option: only the run's deadline can end this request.
const TIMEOUT = `function get_status() {
  D.device.http.get({ url: '/status' }, function (err) {
    D.failure(err ? D.errorType.NETWORK_ERROR : D.errorType.GENERIC_ERROR);
  });
}`;

const MEMORY = `function get_status() {
  var keep = [];
  for (;;) keep.push(new Array(10000).fill(keep.length));
}`;

const FAULTY = `function get_status() {
  D.device.http.get({ url: D.getParameter('path') }, function (err, res, body) {
    if (err) {
      console.error(err.code);
      return D.failure(D.errorType.NETWORK_ERROR);
    }
    var doc = JSON.parse(body); // invalid JSON throws here, uncaught
    D.success([D.createVariable('model', 'Model', doc.model)]);
  });
}`;

const CPU = `function get_status() { for (;;) {} }`;

const FAULTS = ['/reset', '/badjson', '/truncated'] as const;

interface Devices {
  status: StatusDevice;
  faulty: FaultyDevices;
}

interface Planned {
  kind: Kind;
  /** Which fault, for the faulty kind. */
  fault?: (typeof FAULTS)[number];
  run: () => Promise<RunResult>;
  check: (result: RunResult) => string | null;
}

const loopback = (port: number) => ({ ip: '127.0.0.1', portMap: { 80: port } });

/** The mix's slots (100 by default), shuffled with a fixed seed so every soak runs the same sequence. */
function mixSlots(mix: Record<Kind, number>): Kind[] {
  const slots = Kinds.flatMap((kind) => Array.from({ length: mix[kind] }, () => kind));
  let seed = 8;
  const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  for (let i = slots.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
  }
  return slots;
}

const expectFailure = (result: RunResult, errorType: string, limit: RunResult['limitExceeded']): string | null =>
  result.status === 'failure' && result.errorType === errorType && result.limitExceeded === limit
    ? null
    : `expected failure ${errorType} (limit ${limit}), got ${result.status} ${result.errorType} (limit ${result.limitExceeded}): ${result.message}`;

function plan(host: Host, devices: Devices, kind: Kind, n: number, faultyCount: number): Planned {
  const run = (source: string, filename: string, extra: Parameters<Host['run']>[0]) => () => host.run({ source, filename, ...extra });
  switch (kind) {
    case 'success':
      return {
        kind,
        run: run(SUCCESS, 'success.js', { device: loopback(devices.status.port), parameters: { i: n } }),
        check: (r) => {
          if (r.status !== 'success') return `expected success, got ${r.errorType}: ${r.message}`;
          const values = r.variables.map((v) => v.value).join(',');
          if (values !== `${n},DBX-4200,41.5`) return `expected variables ${n},DBX-4200,41.5, got ${values}`;
          if (r.http.length !== 1 || r.http[0]!.status !== 200) return `expected one exchange answered 200, got ${JSON.stringify(r.http.map((x) => x.status ?? x.error))}`;
          return r.warnings.length ? `warnings: ${r.warnings.join('; ')}` : null;
        },
      };
    case 'failure':
      return {
        kind,
        run: run(FAILURE, 'failure.js', {}),
        check: (r) => expectFailure(r, 'AUTHENTICATION_ERROR', null) ?? (r.logs[0]?.message === 'login refused' ? null : `expected the driver's log, got ${JSON.stringify(r.logs)}`),
      };
    case 'timeout':
      return {
        kind,
        run: run(TIMEOUT, 'timeout.js', { device: loopback(devices.faulty.silentPort), limits: { timeoutMs: 200 } }),
        // The exchange is ABORTED by the run's end, or ETIMEDOUT when the host's own bound for it
        // came first; none at all when the sandbox thread, busy with other runs' bombs and loops,
        // got to the run only after its deadline (the run then times out without starting).
        check: (r) =>
          expectFailure(r, 'TIMEOUT_ERROR', 'timeout') ??
          (r.http.length === 0 || (r.http.length === 1 && (r.http[0]!.error === 'ABORTED' || r.http[0]!.error === 'ETIMEDOUT'))
            ? null
            : `expected one ABORTED or ETIMEDOUT exchange (or none), got ${JSON.stringify(r.http.map((x) => x.status ?? x.error))}`),
      };
    case 'memory':
      return { kind, run: run(MEMORY, 'memory.js', {}), check: (r) => expectFailure(r, 'GENERIC_ERROR', 'memory') };
    case 'cpu':
      return { kind, run: run(CPU, 'cpu.js', { limits: { cpuTimeMs: 20 } }), check: (r) => expectFailure(r, 'TIMEOUT_ERROR', 'cpu') };
    case 'faulty': {
      const fault = FAULTS[faultyCount % FAULTS.length]!;
      const expected = { '/reset': 'ECONNRESET', '/truncated': null, '/badjson': null }[fault];
      return {
        kind,
        fault,
        run: run(FAULTY, 'faulty.js', { device: loopback(devices.faulty.faultyPort), parameters: { path: fault } }),
        check: (r) => {
          if (fault === '/badjson') {
            const bad = expectFailure(r, 'GENERIC_ERROR', null);
            if (bad) return bad;
            return r.message?.includes('SyntaxError') ? null : `expected a SyntaxError from JSON.parse, got: ${r.message}`;
          }
          const bad = expectFailure(r, 'NETWORK_ERROR', null);
          if (bad) return `${fault}: ${bad}`;
          const code = r.http[0]?.error ?? null;
          if (r.http.length !== 1 || code === null || (expected !== null && code !== expected)) {
            return `${fault}: expected one exchange failing with ${expected ?? 'an error'}, got ${JSON.stringify(r.http.map((x) => x.status ?? x.error))}`;
          }
          return r.logs[0]?.message === code ? null : `${fault}: the driver saw ${JSON.stringify(r.logs[0]?.message)}, the transcript ${code}`;
        },
      };
    }
  }
}

// ---------------------------------------------------------------------------- sampling

interface Sample {
  runs: number;
  elapsedS: number;
  runsPerSecond: number;
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** The sandbox threads' own V8 heaps (total size), host.memory(). */
  threadHeapsMb: number;
  /** The driver isolates' heaps (total size), host.memory(). */
  isolateHeapsMb: number;
  /** RSS less every V8 heap above and the host's: native memory, code, stacks, the allocator's free lists. */
  otherMb: number;
  handles: Record<string, number>;
  isolates: { alive: number; created: number; disposed: number };
  threadsRecycled: number;
  devices: FaultyDeviceCounters & { statusConnections: number };
}

const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

const forceGc = (globalThis as { gc?: () => void }).gc;

async function sample(host: Host, devices: Devices, runs: number, elapsedS: number, intervalRuns: number, intervalS: number): Promise<Sample> {
  if (forceGc) {
    forceGc();
    await new Promise((resolve) => setImmediate(resolve)); // let finalizers and weak callbacks run
    forceGc();
  }
  const sandbox = await host.memory({ gc: Boolean(forceGc) }); // first: its collections free pages RSS counts
  const memory = process.memoryUsage();
  const handles: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) handles[type] = (handles[type] ?? 0) + 1;
  const stats = host.stats();
  const [faulty, status] = await Promise.all([devices.faulty.counters(), devices.status.counters()]);
  return {
    runs,
    elapsedS: Math.round(elapsedS * 10) / 10,
    runsPerSecond: Math.round(intervalRuns / intervalS),
    rssMb: mb(memory.rss),
    heapUsedMb: mb(memory.heapUsed),
    heapTotalMb: mb(memory.heapTotal),
    externalMb: mb(memory.external),
    arrayBuffersMb: mb(memory.arrayBuffers),
    threadHeapsMb: mb(sandbox.threadHeap.total),
    isolateHeapsMb: mb(sandbox.isolateHeap.total),
    otherMb: mb(memory.rss - memory.heapTotal - sandbox.threadHeap.total - sandbox.isolateHeap.total),
    handles,
    isolates: { alive: stats.alive, created: stats.created, disposed: stats.disposed },
    threadsRecycled: stats.threadsRecycled,
    devices: { ...faulty, statusConnections: status.connections },
  };
}

const handlesText = (handles: Record<string, number>) =>
  Object.entries(handles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([type, count]) => `${type} ${count}`)
    .join(', ');

// ---------------------------------------------------------------------------- the memory verdict

interface MemoryTrend {
  /** The fitted line at the first and last post-warm-up sample, MB. */
  fromMb: number;
  toMb: number;
  growthPct: number;
  mbPer10kRuns: number;
  /** RMS distance of the samples from the line, MB. */
  scatterMb: number;
  /** The slope over the last half of the post-warm-up samples (3 or more), else null: is it settling? */
  lastHalfMbPer10kRuns: number | null;
}

interface MemoryVerdict {
  from: number;
  to: number;
  samples: number;
  rss: MemoryTrend;
  heapUsed: MemoryTrend;
  /** Where RSS went, shown, not judged: the sandbox threads' heaps, the isolates' heaps, the rest. */
  parts: { threadHeaps: MemoryTrend; isolateHeaps: MemoryTrend; other: MemoryTrend };
  boundPct: number;
  result: 'flat' | 'GROWING';
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;

function memoryTrend(points: Sample[], value: (s: Sample) => number): MemoryTrend {
  const line = (list: Sample[]) => fitTrend(list.map((s) => ({ x: s.runs, y: value(s) })));
  const whole = line(points)!;
  const lastHalf = points.length >= 6 ? line(points.slice(Math.floor(points.length / 2))) : null;
  return {
    fromMb: round1(whole.start),
    toMb: round1(whole.end),
    growthPct: round1(whole.growthPct),
    mbPer10kRuns: round2(whole.slope * 10_000),
    scatterMb: round1(whole.scatter),
    lastHalfMbPer10kRuns: lastHalf ? round2(lastHalf.slope * 10_000) : null,
  };
}

/**
 * Growth after warm-up, judged on the least-squares line through every sample from the first at
 * or after `warmupRuns` (at least the last two samples): flat when RSS and heap used each grow
 * less than `boundPct` along it.
 */
function judgeMemory(samples: Sample[], warmupRuns: number, boundPct: number): MemoryVerdict {
  let points = samples.filter((s) => s.runs > 0 && s.runs >= warmupRuns);
  if (points.length < 2) points = samples.slice(-2);
  const rss = memoryTrend(points, (s) => s.rssMb);
  const heapUsed = memoryTrend(points, (s) => s.heapUsedMb);
  return {
    from: points[0]!.runs,
    to: points[points.length - 1]!.runs,
    samples: points.length,
    rss,
    heapUsed,
    parts: {
      threadHeaps: memoryTrend(points, (s) => s.threadHeapsMb),
      isolateHeaps: memoryTrend(points, (s) => s.isolateHeapsMb),
      other: memoryTrend(points, (s) => s.otherMb),
    },
    boundPct,
    result: rss.growthPct < boundPct && heapUsed.growthPct < boundPct ? 'flat' : 'GROWING',
  };
}

function describeMemory(v: MemoryVerdict): string[] {
  const signed = (n: number) => `${n >= 0 ? '+' : ''}${n}`;
  const trend = (name: string, t: MemoryTrend) =>
    `  ${name}: ${t.fromMb} → ${t.toMb} MB along the line (${signed(t.growthPct)} %), ${signed(t.mbPer10kRuns)} MB per 10,000 runs` +
    `${t.lastHalfMbPer10kRuns === null ? '' : ` (last half: ${signed(t.lastHalfMbPer10kRuns)})`}, samples within ±${t.scatterMb} MB of it`;
  return [
    `memory after warm-up, a least-squares line through the ${v.samples} samples from ${v.from} to ${v.to} runs:`,
    trend('RSS', v.rss),
    trend('heap used', v.heapUsed),
    '  where RSS went (not judged):',
    trend('  sandbox thread heaps', v.parts.threadHeaps),
    trend('  isolate heaps', v.parts.isolateHeaps),
    trend('  other (native, code, allocator)', v.parts.other),
    v.result === 'flat' ? `  flat (both < ${v.boundPct} %)` : `  GROWING (bound ${v.boundPct} %)`,
  ];
}

// ---------------------------------------------------------------------------- main

interface Unexpected {
  run: number;
  kind: string;
  problem: string;
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  await ensureRuntimeBundle();
  const log = (text: string) => {
    if (!options.json) process.stdout.write(`${text}\n`);
  };
  const warmupRuns = options.warmup ?? Math.min(20_000, Math.floor(options.runs / 2));
  const slots = mixSlots(options.mix);
  const devices: Devices = { status: await startStatusDevice('thread'), faulty: await startFaultyDevices() };
  const host = createHost({
    maxIsolates: options.concurrency,
    warmIsolates: options.concurrency,
    threads: options.threads,
    recycleThreadAfterRuns: options.recycleThread,
    limits: { memoryMb: 32, timeoutMs: 10_000 },
  });

  log(`driverbox soak — ${options.runs} runs, concurrency ${options.concurrency}, mix ${Kinds.filter((k) => options.mix[k] > 0).map((k) => `${k} ${options.mix[k]}`).join(' / ')} (of every ${slots.length} runs)`);
  log(`node ${process.version} (${process.platform}/${process.arch}), ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}); GC ${forceGc ? 'forced before each sample (--expose-gc)' : 'not forced (run node with --expose-gc)'}`);
  log(`samples every ${options.reportEvery} runs, taken with no run in flight; growth judged on a line through the samples from ${warmupRuns} runs on; bound ${options.maxGrowthPct} %`);
  log('');

  const outcomes: Record<string, number> = {};
  const unexpected: Unexpected[] = [];
  let unexpectedCount = 0;
  const samples: Sample[] = [];
  let done = 0;
  let faultyCount = 0;
  const started = performance.now();
  let intervalStarted = started;
  const headers = ['runs', 'runs/s', 'RSS MB', 'heap used MB', 'heap total MB', 'external MB', 'thread heaps MB', 'isolate heaps MB', 'other MB', 'isolates alive/created/disposed', 'threads recycled', 'device conns open (faulty/silent)', 'handles'];
  // Fixed widths (each header's), so lines printed one at a time line up; handles go last, unpadded.
  const line = (cells: string[]) => cells.map((cell, c) => (c === cells.length - 1 ? cell : cell.padStart(headers[c]!.length))).join('  ');
  const row = (s: Sample) => [
    String(s.runs),
    String(s.runsPerSecond),
    s.rssMb.toFixed(1),
    s.heapUsedMb.toFixed(1),
    s.heapTotalMb.toFixed(1),
    s.externalMb.toFixed(1),
    s.threadHeapsMb.toFixed(1),
    s.isolateHeapsMb.toFixed(1),
    s.otherMb.toFixed(1),
    `${s.isolates.alive}/${s.isolates.created}/${s.isolates.disposed}`,
    String(s.threadsRecycled),
    `${s.devices.faultyOpen}/${s.devices.silentOpen}`,
    handlesText(s.handles),
  ];

  try {
    samples.push(await sample(host, devices, 0, 0, 0, 1));
    log(line(headers));
    log(line(row(samples[0]!)));
    while (done < options.runs) {
      const chunkEnd = Math.min(options.runs, done + options.reportEvery);
      let next = done;
      const worker = async () => {
        while (next < chunkEnd) {
          const n = next++;
          const kind = slots[n % slots.length]!;
          const planned = plan(host, devices, kind, n, kind === 'faulty' ? faultyCount++ : 0);
          let problem: string | null;
          try {
            problem = planned.check(await planned.run());
          } catch (error) {
            problem = `host.run threw: ${error instanceof Error ? error.message : String(error)}`;
          }
          const label = planned.fault ? `${kind} ${planned.fault}` : kind;
          outcomes[label] = (outcomes[label] ?? 0) + 1;
          if (problem !== null) {
            unexpectedCount++;
            if (unexpected.length < 10) unexpected.push({ run: n, kind: label, problem });
          }
        }
      };
      await Promise.all(Array.from({ length: options.concurrency }, worker));
      const now = performance.now();
      const s = await sample(host, devices, chunkEnd, (now - started) / 1000, chunkEnd - done, (now - intervalStarted) / 1000);
      done = chunkEnd;
      samples.push(s);
      log(line(row(s)));
      intervalStarted = performance.now();
    }
  } finally {
    await host.close();
    await Promise.all([devices.status.close(), devices.faulty.close()]);
  }
  const totalS = (performance.now() - started) / 1000;

  const verdict = judgeMemory(samples, warmupRuns, options.maxGrowthPct);
  const flat = verdict.result === 'flat';

  if (options.json) {
    const json = {
      node: process.version,
      platform: `${process.platform}/${process.arch}`,
      cpus: os.cpus().length,
      gcForced: Boolean(forceGc),
      runs: options.runs,
      concurrency: options.concurrency,
      mix: options.mix,
      totalSeconds: Math.round(totalS * 10) / 10,
      runsPerSecond: Math.round(options.runs / totalS),
      outcomes,
      unexpected: { count: unexpectedCount, first: unexpected },
      samples,
      memory: verdict,
    };
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else {
    log('');
    log(`outcomes: ${Object.entries(outcomes).map(([k, v]) => `${k} ${v}`).join(', ')}; unexpected ${unexpectedCount}`);
    log(`total ${totalS.toFixed(1)} s, ${(options.runs / totalS).toFixed(0)} runs/s`);
    for (const text of describeMemory(verdict)) log(text);
  }
  for (const u of unexpected) process.stderr.write(`bench:soak: run ${u.run} (${u.kind}): ${u.problem}\n`);
  if (unexpectedCount > unexpected.length) process.stderr.write(`bench:soak: … and ${unexpectedCount - unexpected.length} more unexpected outcomes\n`);
  if (!flat) process.stderr.write(`bench:soak: memory grew past the ${options.maxGrowthPct} % bound after warm-up\n`);
  return unexpectedCount > 0 || !flat ? 1 : 0;
}

runBench('bench:soak', main);
