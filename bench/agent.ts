// The agent under a collector's load: N simulated devices × 1 status driver, each polled every
// period, for a fixed duration, through createAgent exactly as `driverbox agent` runs it
// (inventory YAML → real SQLite store file → scheduler → supervised sandbox process → store).
//
// What it measures: one node:http "device" on 127.0.0.1 in a worker thread (its own CPU) answers
// GET /status with a ~200-byte JSON document. The inventory lists N devices, all 127.0.0.1 with
// portMap 80 → that server's port; each is its own device to driverbox (own cookie jar and
// connection pool). One driver does one GET, parses the JSON and reports 6 variables; every
// device has it with samplePeriod = --period and jitter = the period, so first runs spread
// over one period. After --duration seconds the agent is stopped with a grace of one period.
//
// Reported: runs due / started / completed (succeeded, failed) / skipped / dropped; completion
// ratio (completed / due); lateness p50/p99/max over every runStarted event; run duration
// p50/p99 (in the sandbox: RunResult.durationMs; end to end: slot taken → result stored);
// host and child RSS sampled every second (start, peak, end; --json adds every sample), the
// host's RSS after start(), and the child's heaps (its main thread, sandbox threads, isolates:
// SandboxProcess.memory()) with each sample; host
// and child CPU per run; the device server's CPU, requests and TCP connections; store size and
// rows written.
// Any run that does not succeed with the expected variables, any aborted run or agent error
// fails the bench (exit 1): on loopback none is expected.
//
// --https measures, in one run, the same load three times one after the other: plain HTTP, then
// HTTPS devices (a self-signed RSA 2048 certificate made at start; the driver passes
// rejectUnauthorized: false as real ones do) with TLS session resumption (HostOptions
// tlsSessionReuse, the default), then HTTPS without it; and prints them side by side with the
// HTTPS/HTTP ratios and the device's full and resumed handshakes. --phases picks them.
// With a period past the agent's keep-alive (10 s) every run makes a new connection.
//
// Run:     npm run bench:agent
//          npm run bench:agent -- --devices 50 --duration 15 --json
//          npm run bench:agent -- --https --period 15
// Options: --devices N (default 1000), --period S (default 10), --duration S (default 60),
//          --max-concurrent N (the scheduler's global bound, default 32), --json,
//          --child-cpu-prof DIR (the sandbox child's CPU profile; the host's: node --cpu-prof),
//          --https (the phases http,https,https-noreuse), --phases LIST (of http, https, https-noreuse),
//          --warm-isolates N (the child's; default the agent's 4), --thread-network (HostOptions.networkInThreads).
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentRunFinished } from '../host/agent/agent-types.js';
import { createAgent } from '../host/server/agent-server.js';
import { tuneProcessHeap } from '../host/platform/v8-heap-flags.js';
import { openStore } from '../host/store/index.js';
import { ensureHostBuild, intFlag, parseFlags, percentile, runBench, switchFlag, table, usage } from './lib/common.js';
import { processCpuMs, processRssBytes } from './lib/proc.js';
import { startStatusDevice } from './lib/status-device.js';
import { compareWithIssue } from './lib/agent-targets.js';
import { makeSelfSigned, type SelfSigned } from './lib/self-signed.js';

type PhaseName = 'http' | 'https' | 'https-noreuse';
const PHASES: readonly PhaseName[] = ['http', 'https', 'https-noreuse'];

interface Options {
  devices: number;
  periodS: number;
  durationS: number;
  maxConcurrent: number;
  json: boolean;
  /** A folder for the sandbox child's CPU profile (node --cpu-prof); '' for none. */
  childProfile: string;
  /** What is measured, one after the other in this order. */
  phases: PhaseName[];
  /** The child's warm isolates (0: the agent's default) and HostOptions.networkInThreads. */
  warmIsolates: number;
  threadNetwork: boolean;
}

/** The scheduler's per-device bound (the agent's default): one association per device never reaches it. */
const MAX_PER_DEVICE = 2;
const EXPECTED_VARIABLES = ['model', 'firmware', 'uptime', 'temperature', 'fan_max', 'status'];

// One GET, the JSON parsed, a few variables: what a real status driver does.
const DRIVER_SOURCE = `
function validate() {
  D.device.http.get({ url: '/status' }, function (error, response) {
    if (error) return D.failure(D.errorType.NETWORK_ERROR);
    if (response.statusCode !== 200) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    D.success();
  });
}
function get_status() {
  D.device.http.get({ url: '/status' }, function (error, response, body) {
    if (error) {
      console.error('GET /status failed: ' + error.code + ' ' + error.message);
      return D.failure(D.errorType.NETWORK_ERROR);
    }
    if (response.statusCode !== 200) {
      console.error('GET /status answered ' + response.statusCode);
      return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    }
    var data;
    try {
      data = JSON.parse(body);
    } catch (e) {
      console.error('status document: ' + e.message);
      return D.failure(D.errorType.PARSING_ERROR);
    }
    D.success([
      D.createVariable('model', 'Model', data.model, null, D.valueType.STRING),
      D.createVariable('firmware', 'Firmware', data.firmware, null, D.valueType.STRING),
      D.createVariable('uptime', 'Uptime', data.uptime, 's', D.valueType.NUMBER),
      D.createVariable('temperature', 'Temperature', data.temperature, 'C', D.valueType.NUMBER),
      D.createVariable('fan_max', 'Fastest fan', Math.max.apply(null, data.fans), 'rpm', D.valueType.NUMBER),
      D.createVariable('status', 'Status', data.status, null, D.valueType.STRING)
    ]);
  });
}
`;

function parseArgs(argv: string[]): Options {
  const options = parseFlags<Options>(
    argv,
    { devices: 1000, periodS: 10, durationS: 60, maxConcurrent: 32, json: false, childProfile: '', phases: ['http'], warmIsolates: 0, threadNetwork: false },
    {
      '--devices': intFlag('devices'),
      '--period': intFlag('periodS'),
      '--duration': intFlag('durationS'),
      '--max-concurrent': intFlag('maxConcurrent'),
      '--json': switchFlag('json'),
      '--child-cpu-prof': (options, value, flag) => {
        options.childProfile = value() ?? usage(`${flag} needs a folder`);
      },
      '--warm-isolates': intFlag('warmIsolates'),
      '--thread-network': switchFlag('threadNetwork'),
      '--https': (options) => {
        options.phases = [...PHASES];
      },
      '--phases': (options, value, flag) => {
        const list = (value() ?? usage(`${flag} needs a list such as http,https`)).split(',');
        for (const name of list) if (!PHASES.includes(name as PhaseName)) usage(`${flag}: unknown phase ${JSON.stringify(name)} (use ${PHASES.join(', ')})`);
        options.phases = list as PhaseName[];
      },
    },
    'usage: npm run bench:agent -- [--devices N] [--period S] [--duration S] [--max-concurrent N] [--json] [--child-cpu-prof DIR] [--https | --phases http,https,https-noreuse] [--warm-isolates N] [--thread-network]',
  );
  if (options.periodS > 86_400) usage(`--period must be at most 86400 seconds (got ${options.periodS})`);
  return options;
}

function inventoryYaml(devices: number, port: number, periodS: number, https: boolean): string {
  const width = String(devices).length;
  const lines = ['# bench/agent inventory: every device is the one simulated server, each its own device to driverbox', 'version: 1', 'devices:'];
  const names = Array.from({ length: devices }, (_, i) => `dev-${String(i + 1).padStart(width, '0')}`);
  for (const name of names) lines.push(`  - { name: ${name}, ip: 127.0.0.1, portMap: { ${https ? 443 : 80}: ${port} } }`);
  lines.push('drivers:', `  - { name: status, path: status.js, samplePeriod: ${periodS} }`, 'associations:');
  for (const name of names) lines.push(`  - { driver: status, device: ${name} }`);
  return `${lines.join('\n')}\n`;
}

/** Why a finished run is not what the bench expects, or null when it is. */
function unexpected(run: AgentRunFinished): string | null {
  const { result } = run;
  if (result.status !== 'success') {
    const errors = result.logs.filter((l) => l.level === 'error').map((l) => l.message);
    return `${run.name}: ${result.errorType ?? 'failure'} ${result.message ?? ''}${errors.length ? ` (driver log: ${errors.join('; ')})` : ''}`;
  }
  const uids = result.variables.map((v) => v.uid);
  if (uids.join(',') !== EXPECTED_VARIABLES.join(',')) return `${run.name}: expected variables ${EXPECTED_VARIABLES.join(', ')}, got ${uids.join(', ')}`;
  if (result.http.length !== 1 || result.http[0]!.status !== 200) return `${run.name}: expected one exchange answered 200, got ${JSON.stringify(result.http.map((x) => x.status ?? x.error))}`;
  if (result.warnings.length > 0) return `${run.name}: warnings: ${result.warnings.join('; ')}`;
  if (run.runId === null) return `${run.name}: the result was not stored`;
  return null;
}

/** start / peak / end of a series of samples. */
class Gauge {
  start: number | null = null;
  peak: number | null = null;
  end: number | null = null;

  add(value: number | null): void {
    if (value === null) return;
    this.start ??= value;
    this.peak = Math.max(this.peak ?? value, value);
    this.end = value;
  }
}

/**
 * CPU of the sandbox child, summed over every child the run had (a restart brings a new pid):
 * each pid's last reading is kept, so a child that died counts up to its last sample.
 */
class ChildCpu {
  readonly #byPid = new Map<number, number>();

  sample(pid: number | null): void {
    if (pid === null) return;
    const ms = processCpuMs(pid);
    if (ms !== null) this.#byPid.set(pid, ms);
  }

  totalMs(): number {
    let total = 0;
    for (const ms of this.#byPid.values()) total += ms;
    return total;
  }
}

function storeBytes(file: string): number {
  let bytes = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      bytes += statSync(file + suffix).size;
    } catch {
      // -wal and -shm exist only while the store is open in WAL mode.
    }
  }
  return bytes;
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const round1 = (n: number | null) => (n === null || !Number.isFinite(n) ? null : Math.round(n * 10) / 10);
const round2 = (n: number | null) => (n === null || !Number.isFinite(n) ? null : Math.round(n * 100) / 100);
const mib = (bytes: number | null) => (bytes === null ? '-' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);
const f1 = (n: number | null) => (n === null || !Number.isFinite(n) ? '-' : n.toFixed(1));
const f2 = (n: number | null) => (n === null || !Number.isFinite(n) ? '-' : n.toFixed(2));

/** The driver of a phase: over HTTPS, as real drivers of devices with their own certificate ask. */
function driverSource(https: boolean): string {
  return https ? DRIVER_SOURCE.replaceAll("{ url: '/status' }", "{ url: '/status', protocol: 'https', rejectUnauthorized: false }") : DRIVER_SOURCE;
}

/** What the side-by-side table shows of a phase. */
interface PhaseFigures {
  phase: PhaseName;
  completed: number;
  failed: number;
  hostMsPerRun: number | null;
  childMsPerRun: number | null;
  latenessP50: number | null;
  latenessP99: number | null;
  hostRssPeak: number | null;
  childRssPeak: number | null;
  handshakes: number | null;
  resumed: number | null;
  connections: number;
  loadAverage: number[];
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  ensureHostBuild();
  // This process is the agent's: its V8 heap flags are those `driverbox agent` sets for its own.
  tuneProcessHeap();
  const cert = options.phases.some((p) => p !== 'http') ? await makeSelfSigned() : null;
  const figures: PhaseFigures[] = [];
  let failures = 0;
  for (const phase of options.phases) {
    if (options.phases.length > 1 && !options.json) process.stdout.write(`\n=== phase ${phase} ===\n`);
    const { code, figures: one } = await measure(options, phase, cert);
    if (code !== 0) failures++;
    figures.push(one);
  }
  if (options.phases.length > 1) printComparison(figures, options);
  return failures > 0 ? 1 : 0;
}

function printComparison(figures: PhaseFigures[], options: Options): void {
  const http = figures.find((f) => f.phase === 'http');
  const total = (f: PhaseFigures) => (f.hostMsPerRun === null || f.childMsPerRun === null ? null : f.hostMsPerRun + f.childMsPerRun);
  const ratio = (f: PhaseFigures) => {
    const a = total(f);
    const b = http ? total(http) : null;
    return a === null || b === null || b === 0 ? '-' : `${(a / b).toFixed(2)}×`;
  };
  const rss = (f: PhaseFigures) => (f.hostRssPeak === null || f.childRssPeak === null ? null : f.hostRssPeak + f.childRssPeak);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ comparison: figures.map((f) => ({ ...f, cpuMsPerRun: total(f), rssPeakBytes: rss(f) })) })}\n`);
    return;
  }
  process.stdout.write(`\n=== ${options.devices} devices, period ${options.periodS} s, ${options.durationS} s each, one after the other ===\n`);
  process.stdout.write(
    `${table(
      ['phase', 'runs', 'failed', 'host ms/run', 'child ms/run', 'CPU ms/run', 'vs http', 'lateness p50', 'p99', 'RSS peak host+child', 'TLS handshakes (resumed)', 'connections', 'load avg'],
      figures.map((f) => [
        f.phase,
        String(f.completed),
        String(f.failed),
        f2(f.hostMsPerRun),
        f2(f.childMsPerRun),
        f2(total(f)),
        ratio(f),
        f1(f.latenessP50),
        f1(f.latenessP99),
        mib(rss(f)),
        f.handshakes === null ? '-' : `${f.handshakes} (${f.resumed ?? 0})`,
        String(f.connections),
        f.loadAverage.map((l) => l.toFixed(2)).join(' '),
      ]),
      1,
    )}\n`,
  );
}

async function measure(options: Options, phase: PhaseName, cert: SelfSigned | null): Promise<{ code: number; figures: PhaseFigures }> {
  const https = phase !== 'http';
  const log = (text: string) => {
    if (!options.json) process.stdout.write(`${text}\n`);
  };
  const progress = (text: string) => {
    if (process.stderr.isTTY) process.stderr.write(`\r${text.padEnd(70)}\r`);
  };
  const periodMs = options.periodS * 1000;
  const graceMs = periodMs;

  const device = await startStatusDevice('thread', https ? cert : null);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'driverbox-bench-agent-'));
  const storeFile = path.join(dir, 'store.db');
  const inventoryFile = path.join(dir, 'inventory.yaml');
  writeFileSync(path.join(dir, 'status.js'), driverSource(https));
  writeFileSync(inventoryFile, inventoryYaml(options.devices, device.port, options.periodS, https));
  const store = await openStore({ path: storeFile, secretKey: 'bench-agent-secret' });

  log(
    `driverbox agent bench — ${options.devices} devices × 1 driver, period ${options.periodS} s (jitter ${options.periodS} s), ` +
      `${options.durationS} s, maxConcurrent ${options.maxConcurrent}, maxPerDevice ${MAX_PER_DEVICE}, grace ${graceMs / 1000} s`,
  );
  log(`node ${process.version} (${process.platform}/${process.arch}), ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'})`);
  log(
    `device: ${https ? `node:https (self-signed RSA 2048, TLS session resumption ${phase === 'https' ? 'on' : 'off'} in driverbox)` : 'node:http'} on 127.0.0.1:${device.port} (worker thread), ~200-byte JSON; store: ${storeFile} (SQLite, WAL)`,
  );
  log('');

  const agent = createAgent({
    store,
    inventory: inventoryFile,
    scheduler: { maxConcurrent: options.maxConcurrent, maxPerDevice: MAX_PER_DEVICE, jitterMs: periodMs },
    sandbox: {
      host: {
        tlsSessionReuse: phase !== 'https-noreuse',
        ...(options.warmIsolates > 0 ? { warmIsolates: options.warmIsolates } : {}),
        ...(options.threadNetwork ? { networkInThreads: true } : {}),
      },
      ...(options.childProfile ? { execArgv: ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.childProfile)}`] } : {}),
    },
  });
  const lateness: number[] = [];
  const inSandbox: number[] = [];
  const endToEnd: number[] = [];
  const problems: string[] = [];
  let succeeded = 0;
  let failed = 0;
  let skipped = 0;
  agent.on('runStarted', (run) => lateness.push(run.latenessMs));
  agent.on('runFinished', (run) => {
    // The scheduler's clock is performance.now(): the same scale as startedAt.
    endToEnd.push(performance.now() - run.startedAt);
    inSandbox.push(run.result.durationMs);
    const problem = unexpected(run);
    if (problem === null) succeeded++;
    else {
      failed++;
      problems.push(problem);
    }
  });
  agent.on('runSkipped', (event) => {
    skipped += event.count;
  });
  agent.on('error', (error) => problems.push(`agent error: ${error.message}`));

  const hostRss = new Gauge();
  const childRss = new Gauge();
  /** Isolates alive in the child (each holds its own heap): RSS follows them. */
  const isolates = new Gauge();
  const childCpu = new ChildCpu();
  /** The child's own figures (SandboxProcessMemory): which of its heaps grows with its RSS. */
  const childMainHeap = new Gauge();
  const childThreadHeap = new Gauge();
  const isolateHeap = new Gauge();
  const isolateHeapUsed = new Gauge();
  /** Every sample, for --json: whether RSS levels off or keeps growing shows there. */
  const series: Array<{
    t: number;
    hostRss: number;
    hostHeapUsed: number;
    hostHeapTotal: number;
    childRss: number | null;
    /** The child's main thread heap, its sandbox threads' heaps, its isolates (alive, heap committed and used): totals, bytes. */
    child?: { mainHeap: number; threadHeap: number; isolates: number; isolateHeap: number; isolateHeapUsed: number };
  }> = [];
  let seriesT0: number | null = null;
  const sample = () => {
    const { rss: host, heapUsed, heapTotal } = process.memoryUsage();
    const sandboxStats = agent.stats().sandbox;
    const pid = sandboxStats?.pid ?? null;
    isolates.add(sandboxStats?.pool?.alive ?? null);
    const child = pid === null ? null : processRssBytes(pid);
    hostRss.add(host);
    childRss.add(child);
    childCpu.sample(pid);
    seriesT0 ??= performance.now();
    const point: (typeof series)[number] = { t: Math.round((performance.now() - seriesT0) / 100) / 10, hostRss: host, hostHeapUsed: heapUsed, hostHeapTotal: heapTotal, childRss: child };
    series.push(point);
    void agent.sandboxMemory().then((memory) => {
      if (!memory) return;
      const { mainHeap, sandbox } = memory;
      point.child = { mainHeap: mainHeap.total, threadHeap: sandbox.threadHeap.total, isolates: sandbox.isolates, isolateHeap: sandbox.isolateHeap.total, isolateHeapUsed: sandbox.isolateHeap.used };
      childMainHeap.add(mainHeap.total);
      childThreadHeap.add(sandbox.threadHeap.total);
      isolateHeap.add(sandbox.isolateHeap.total);
      isolateHeapUsed.add(sandbox.isolateHeap.used);
    });
  };

  hostRss.add(process.memoryUsage().rss);
  const startT0 = performance.now();
  const startCpu0 = process.cpuUsage();
  await agent.start();
  const startMs = performance.now() - startT0;
  const startCpu = process.cpuUsage(startCpu0);
  const hostRssAfterStart = process.memoryUsage().rss;

  // CPU per run counts from here (the inventory sync and the child's start are reported apart).
  const device0 = await device.counters();
  const hostCpu0 = process.cpuUsage();
  const childPid0 = agent.stats().sandbox?.pid ?? null;
  const childCpu0 = childPid0 === null ? 0 : (processCpuMs(childPid0) ?? 0);
  sample();
  const sampler = setInterval(sample, 1000);
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsed = (performance.now() - t0) / 1000;
      progress(`  ${elapsed.toFixed(0)} / ${options.durationS} s — ${succeeded + failed} runs finished, ${skipped} skipped`);
      if (elapsed >= options.durationS) {
        clearInterval(tick);
        resolve();
      }
    }, 250);
  });
  progress('  stopping (grace ' + graceMs / 1000 + ' s) …');
  sample(); // the child is gone after stop(): its last readings are taken now
  const stopT0 = performance.now();
  const stopped = await agent.stop({ graceMs });
  const stopMs = performance.now() - stopT0;
  clearInterval(sampler);
  hostRss.add(process.memoryUsage().rss);
  const wallS = (performance.now() - t0) / 1000;
  const hostCpu = process.cpuUsage(hostCpu0);
  const device1 = await device.counters();
  progress('');

  const stats = agent.stats();
  const scheduler = stats.scheduler!;
  const count = async (sql: string) => (await store.statement<[], { n: number }>(sql).get())!.n;
  const rows = {
    runs: await count('SELECT count(*) AS n FROM runs'),
    variables: await count('SELECT count(*) AS n FROM variables'),
    historySamples: await count('SELECT count(*) AS n FROM variable_history'),
  };
  const bytesOpen = storeBytes(storeFile);
  await store.close();
  const bytesClosed = storeBytes(storeFile);
  await device.close();
  rmSync(dir, { recursive: true, force: true });

  // Host CPU excludes the device server thread, which runs in this process but is not driverbox.
  const deviceCpuMs = device0.cpuMs !== null && device1.cpuMs !== null ? device1.cpuMs - device0.cpuMs : null;
  const hostCpuMs = (hostCpu.user + hostCpu.system) / 1000 - (deviceCpuMs ?? 0);
  const childCpuMs = childCpu.totalMs() - childCpu0;
  const completed = scheduler.completed;
  const perRun = (ms: number) => (completed > 0 ? ms / completed : null);
  const lat = sorted(lateness);
  const box = sorted(inSandbox);
  const e2e = sorted(endToEnd);
  if (scheduler.failed > 0) problems.push(`${scheduler.failed} scheduled run(s) rejected (the executor threw)`);
  if (stopped.aborted > 0) problems.push(`${stopped.aborted} run(s) still going after the ${graceMs} ms grace were aborted`);

  const report = {
    node: process.version,
    platform: `${process.platform}/${process.arch}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? null,
    devices: options.devices,
    periodS: options.periodS,
    jitterMs: periodMs,
    durationS: options.durationS,
    maxConcurrent: options.maxConcurrent,
    maxPerDevice: MAX_PER_DEVICE,
    graceMs,
    startMs: round1(startMs),
    startHostCpuMs: round1((startCpu.user + startCpu.system) / 1000),
    stopMs: round1(stopMs),
    wallS: round1(wallS),
    runs: {
      due: scheduler.due,
      started: scheduler.started,
      completed,
      succeeded,
      failed,
      skipped: scheduler.skipped,
      dropped: scheduler.dropped,
      aborted: stopped.aborted,
      completionRatio: scheduler.due > 0 ? Math.round((completed / scheduler.due) * 10_000) / 10_000 : null,
      perSecond: round1(completed / wallS),
    },
    latenessMs: { count: lat.length, p50: round1(percentile(lat, 50)), p99: round1(percentile(lat, 99)), max: round1(lat[lat.length - 1] ?? NaN) },
    durationMs: {
      inSandbox: { p50: round1(percentile(box, 50)), p99: round1(percentile(box, 99)) },
      endToEnd: { p50: round1(percentile(e2e, 50)), p99: round1(percentile(e2e, 99)) },
    },
    rssBytes: { host: { ...hostRss, afterStart: hostRssAfterStart }, child: { ...childRss }, series },
    childHeapBytes: { main: { ...childMainHeap }, sandboxThreads: { ...childThreadHeap }, isolates: { ...isolateHeap }, isolatesUsed: { ...isolateHeapUsed } },
    cpu: {
      hostMs: round1(hostCpuMs),
      childMs: round1(childCpuMs),
      hostMsPerRun: round2(perRun(hostCpuMs)),
      childMsPerRun: round2(perRun(childCpuMs)),
      /** Both processes together, as a share of one core over the measured window. */
      coresUsed: round2((hostCpuMs + childCpuMs) / (wallS * 1000)),
    },
    deviceServer: {
      cpuMs: round1(deviceCpuMs),
      requests: device1.requests - device0.requests,
      connections: device1.connections - device0.connections,
      ...(https ? { handshakes: (device1.handshakes ?? 0) - (device0.handshakes ?? 0), resumed: (device1.resumed ?? 0) - (device0.resumed ?? 0) } : {}),
    },
    sandbox: {
      restarts: stats.sandbox?.restarts ?? null,
      lostRuns: stats.sandbox?.lostRuns ?? null,
      isolatesAlive: { ...isolates },
      isolatesCreated: stats.sandbox?.pool?.created ?? null,
    },
    store: { bytesOpen, bytesClosed, rows },
    problems: problems.length,
    firstProblems: problems.slice(0, 5),
  };
  const issue24 = compareWithIssue(options.devices, options.periodS, {
    startMs: report.startMs,
    cpuMsPerRun: perRun(hostCpuMs + childCpuMs),
    hostCpuMsPerRun: perRun(hostCpuMs),
    latenessP99Ms: report.latenessMs.p99,
    peakRssBytes: hostRss.peak !== null && childRss.peak !== null ? hostRss.peak + childRss.peak : null,
    childPeakRssBytes: childRss.peak,
  });

  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...report, issue24: issue24 && Object.fromEntries(issue24.rows.map((r) => [r[0], Object.fromEntries(r.slice(1).map((v, i) => [issue24.headers[i + 1], v]))])) }, null, 2)}\n`);
  } else {
    const r = report.runs;
    log(
      table(
        ['runs due', 'started', 'completed', 'succeeded', 'failed', 'skipped', 'dropped', 'aborted', 'completed/due', 'runs/s'],
        [[String(r.due), String(r.started), String(r.completed), String(r.succeeded), String(r.failed), String(r.skipped), String(r.dropped), String(r.aborted), r.completionRatio === null ? '-' : `${(r.completionRatio * 100).toFixed(2)}%`, f1(r.perSecond)]],
        0,
      ),
    );
    log('');
    log(
      table(
        ['ms', 'p50', 'p99', 'max'],
        [
          [`lateness (start − due, ${lat.length} runs)`, f1(report.latenessMs.p50), f1(report.latenessMs.p99), f1(report.latenessMs.max)],
          ['run duration in the sandbox', f1(report.durationMs.inSandbox.p50), f1(report.durationMs.inSandbox.p99), '-'],
          ['run duration end to end (slot → stored)', f1(report.durationMs.endToEnd.p50), f1(report.durationMs.endToEnd.p99), '-'],
        ],
      ),
    );
    log('');
    log(
      table(
        ['process', 'RSS start', 'RSS peak', 'RSS end', 'CPU s', 'CPU ms/run'],
        [
          ['host (agent, scheduler, store)', mib(hostRss.start), mib(hostRss.peak), mib(hostRss.end), f1(hostCpuMs / 1000), f2(report.cpu.hostMsPerRun)],
          ['child (sandbox process)', mib(childRss.start), mib(childRss.peak), mib(childRss.end), f1(childCpuMs / 1000), f2(report.cpu.childMsPerRun)],
          ['device server thread', '-', '-', '-', f1(deviceCpuMs === null ? null : deviceCpuMs / 1000), f2(deviceCpuMs === null ? null : perRun(deviceCpuMs))],
        ],
      ),
    );
    log(
      `RSS sampled every second (host: process.memoryUsage().rss, includes the device thread; child: /proc/<pid>/status VmRSS). ` +
        `CPU over ${f1(wallS)} s from start() resolved to stop() done: ${f2(report.cpu.coresUsed)} cores used by host + child.`,
    );
    log('');
    log(
      `start(): ${f1(startMs)} ms (${f1(report.startHostCpuMs)} ms host CPU: inventory sync of ${options.devices} devices, sandbox process start); ` +
        `stop(): ${f1(stopMs)} ms; sandbox restarts ${report.sandbox.restarts ?? '-'}, runs lost ${report.sandbox.lostRuns ?? '-'}`,
    );
    log(
      `device server: ${report.deviceServer.requests} requests on ${report.deviceServer.connections} TCP connections` +
        (https ? `, ${report.deviceServer.handshakes} TLS handshakes of which ${report.deviceServer.resumed} resumed a session` : ''),
    );
    log(
      `store: ${mib(bytesClosed)} after close (${mib(bytesOpen)} with WAL while open); rows: runs ${rows.runs}, variables ${rows.variables}, ` +
        `history samples ${rows.historySamples}`,
    );
    log(
      `isolates alive in the child: start ${report.sandbox.isolatesAlive.start ?? '-'}, peak ${report.sandbox.isolatesAlive.peak ?? '-'}, ` +
        `end ${report.sandbox.isolatesAlive.end ?? '-'}; created since the child started ${report.sandbox.isolatesCreated ?? '-'}`,
    );
    log(
      `host RSS after start(): ${mib(hostRssAfterStart)}; child heaps (committed; start / peak / end): main thread ${mib(childMainHeap.start)} / ${mib(childMainHeap.peak)} / ${mib(childMainHeap.end)}, ` +
        `sandbox threads ${mib(childThreadHeap.start)} / ${mib(childThreadHeap.peak)} / ${mib(childThreadHeap.end)}, isolates ${mib(isolateHeap.start)} / ${mib(isolateHeap.peak)} / ${mib(isolateHeap.end)} ` +
        `(used ${mib(isolateHeapUsed.start)} / ${mib(isolateHeapUsed.peak)} / ${mib(isolateHeapUsed.end)})`,
    );
    log(`unexpected outcomes: ${problems.length}`);
    if (issue24 && !https) {
      log('');
      log(`issue 24 (flat cost as the inventory grows), ${options.devices} devices at ${options.periodS} s: this run beside the figures before the fix and the targets`);
      log(table(issue24.headers, issue24.rows, 2));
      log(`load average now: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} CPUs): figures taken under load are inflated`);
    }
  }
  for (const problem of problems.slice(0, 10)) process.stderr.write(`bench:agent: ${problem}\n`);
  if (problems.length > 10) process.stderr.write(`bench:agent: … and ${problems.length - 10} more\n`);
  const figures: PhaseFigures = {
    phase,
    completed,
    failed,
    hostMsPerRun: report.cpu.hostMsPerRun,
    childMsPerRun: report.cpu.childMsPerRun,
    latenessP50: report.latenessMs.p50,
    latenessP99: report.latenessMs.p99,
    hostRssPeak: hostRss.peak,
    childRssPeak: childRss.peak,
    handshakes: report.deviceServer.handshakes ?? null,
    resumed: report.deviceServer.resumed ?? null,
    connections: report.deviceServer.connections,
    loadAverage: os.loadavg(),
  };
  return { code: problems.length > 0 ? 1 : 0, figures };
}

runBench('bench:agent', main);
