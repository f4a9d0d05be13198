// Fairness (issue 34, cause 6): healthy associations next to drivers that spin until their
// deadline and a hostile peer (a device that accepts the connection and never answers), through
// createAgent as `driverbox agent` runs it (inventory → SQLite store → scheduler → supervised
// sandbox process → store). What a healthy association should see: every due run on time, as if
// the spinners were not there.
//
// A healthy due time is on time when its run started, succeeded, and its result was stored
// within --on-time-ms of the due time; a due time skipped (the previous run still going) is late.
// Printed: the healthy associations' due times, on-time ratio (goal ≥ 99 %), lateness (result
// stored − due) p50 / p99 / max, and what the spinners and the peer did (runs, limits hit, due
// times held back by the backoff).
//
// Run:     npm run bench:fairness
//          npm run bench:fairness -- --healthy 20 --spinners 2 --period 5 --duration 60
// Options: --healthy N (20), --spinners N (2), --peers N (1), --period S (5), --timeout-ms N (the
//          runs' deadline, 4000), --duration S (60), --on-time-ms N (1000), --sandbox-threads N
//          (the agent's default), --spare-threads N (the host's default), --no-backoff, --json.
//          Today's old behaviour on 2 cores: --sandbox-threads 1 --spare-threads 0 --no-backoff.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAgent } from '../host/server/agent-server.js';
import { openStore } from '../host/store/index.js';
import { ensureHostBuild, intFlag, parseFlags, percentile, runBench, switchFlag, table } from './lib/common.js';
import { startFaultyDevices } from './lib/faulty-device.js';
import { startStatusDevice } from './lib/status-device.js';

interface Options {
  healthy: number;
  spinners: number;
  peers: number;
  periodS: number;
  timeoutMs: number;
  durationS: number;
  onTimeMs: number;
  sandboxThreads: number | null;
  spareThreads: number | null;
  backoff: boolean;
  json: boolean;
}

const HEALTHY_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/status' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.NETWORK_ERROR);
    var data;
    try { data = JSON.parse(body); } catch (e) { return D.failure(D.errorType.PARSING_ERROR); }
    D.success([D.createVariable('model', 'Model', data.model), D.createVariable('status', 'Status', data.status)]);
  });
}`;
/** Spins until its deadline: the isolate's own timeout ends it. */
const SPIN_DRIVER = `
function validate() { D.success(); }
function get_status() { for (;;) {} }`;
/** Asks a device that never answers: waits until its deadline. */
const PEER_DRIVER = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/status', timeout: 600000 }, function () { D.success(); });
}`;

const HELP = `Usage: npm run bench:fairness -- [options]
  --healthy N          healthy associations (default 20)
  --spinners N         associations whose driver spins until its deadline (default 2)
  --peers N            associations on a device that never answers (default 1)
  --period S           every association's sample period (default 5)
  --timeout-ms N       the runs' deadline (default 4000)
  --duration S         how long to measure (default 60)
  --on-time-ms N       a healthy run is on time when stored within this of its due time (default 1000)
  --sandbox-threads N  the agent's sandbox threads (default: the agent's, max(2, cores − 1))
  --spare-threads N    spare sandbox threads (default: the host's, as many as threads)
  --no-backoff         no backoff after repeated limit hits
  --json               figures as JSON`;

async function main(): Promise<number> {
  const options = parseFlags<Options>(
    process.argv.slice(2),
    { healthy: 20, spinners: 2, peers: 1, periodS: 5, timeoutMs: 4000, durationS: 60, onTimeMs: 1000, sandboxThreads: null, spareThreads: null, backoff: true, json: false },
    {
      '--healthy': intFlag('healthy'),
      '--spinners': intFlag('spinners', true),
      '--peers': intFlag('peers', true),
      '--period': intFlag('periodS'),
      '--timeout-ms': intFlag('timeoutMs'),
      '--duration': intFlag('durationS'),
      '--on-time-ms': intFlag('onTimeMs'),
      '--sandbox-threads': intFlag('sandboxThreads'),
      '--spare-threads': intFlag('spareThreads', true),
      '--no-backoff': switchFlag('backoff', false),
      '--json': switchFlag('json'),
    },
    HELP,
  );
  ensureHostBuild();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'driverbox-bench-fairness-'));
  const status = await startStatusDevice();
  const faulty = await startFaultyDevices();
  writeFileSync(path.join(dir, 'healthy.js'), HEALTHY_DRIVER);
  writeFileSync(path.join(dir, 'spin.js'), SPIN_DRIVER);
  writeFileSync(path.join(dir, 'peer.js'), PEER_DRIVER);
  const lines = ['version: 1', 'devices:'];
  const associations: string[] = [];
  const add = (name: string, port: number, driver: string) => {
    lines.push(`  - { name: ${name}, ip: 127.0.0.1, portMap: { 80: ${port} } }`);
    associations.push(`  - { driver: ${driver}, device: ${name} }`);
  };
  for (let i = 0; i < options.healthy; i++) add(`h${i}`, status.port, 'healthy');
  for (let i = 0; i < options.spinners; i++) add(`s${i}`, status.port, 'spin');
  for (let i = 0; i < options.peers; i++) add(`p${i}`, faulty.silentPort, 'peer');
  lines.push('drivers:');
  for (const name of ['healthy', 'spin', 'peer']) lines.push(`  - { name: ${name}, path: ${name}.js, samplePeriod: ${options.periodS} }`);
  lines.push('associations:', ...associations, '');
  const inventory = path.join(dir, 'inventory.yaml');
  writeFileSync(inventory, lines.join('\n'));

  const store = await openStore({ path: path.join(dir, 'store.db'), secretKey: 'bench-fairness' });
  const host: Record<string, number> = {};
  if (options.sandboxThreads !== null) host.threads = options.sandboxThreads;
  if (options.spareThreads !== null) host.spareThreads = options.spareThreads;
  const agent = createAgent({
    store,
    inventory,
    scheduler: { jitterMs: options.periodS * 1000 },
    limits: { timeoutMs: options.timeoutMs, cpuTimeMs: options.timeoutMs },
    sandbox: { host },
    backoff: options.backoff ? {} : { threshold: 0 },
    storeRefreshMs: 0,
    closeStore: true,
  });
  const kind = (name: string) => (name.startsWith('healthy@') ? 'healthy' : name.startsWith('spin@') ? 'spinner' : 'peer');
  // Measured after one period (every first run is within it): by due time.
  let measureFrom = Infinity;
  /** Due times from here on are not counted (the agent is stopping). */
  let endAt = Infinity;
  const counts = {
    healthy: { due: 0, onTime: 0, skipped: 0, failed: 0, runs: 0 },
    spinner: { due: 0, runs: 0, limits: 0, heldBack: 0, skipped: 0 },
    peer: { due: 0, runs: 0, limits: 0, heldBack: 0, skipped: 0 },
  };
  const lateness: number[] = [];
  const errors: string[] = [];
  agent.on('runFinished', (run) => {
    if (run.dueAt < measureFrom || run.dueAt >= endAt) return;
    const k = kind(run.name);
    if (k === 'healthy') {
      const late = performance.now() - run.dueAt;
      const c = counts.healthy;
      c.due++;
      c.runs++;
      lateness.push(late);
      if (run.result.status !== 'success') c.failed++;
      else if (late <= options.onTimeMs) c.onTime++;
    } else {
      const c = counts[k];
      c.due++;
      c.runs++;
      if (run.result.limitExceeded) c.limits++;
    }
  });
  agent.on('runSkipped', (event) => {
    if (event.dueAt < measureFrom || event.dueAt >= endAt) return;
    const k = kind(event.name);
    counts[k].due += event.count;
    if (k !== 'healthy' && event.reason === 'backoff') counts[k].heldBack += event.count;
    else counts[k].skipped += event.count;
  });
  agent.on('error', (error) => errors.push(error.message));
  await agent.start();
  measureFrom = performance.now() + options.periodS * 1000;
  await new Promise((resolve) => setTimeout(resolve, (options.periodS + options.durationS) * 1000));
  // Runs due before the end finish within the grace; those due after are not counted.
  endAt = performance.now();
  const stopping = agent.stop({ graceMs: options.timeoutMs + 1000 });
  const sandbox = agent.stats().sandbox;
  await stopping;
  await status.close();
  await faulty.close();
  rmSync(dir, { recursive: true, force: true });

  const h = counts.healthy;
  const sorted = [...lateness].sort((a, b) => a - b);
  const figures = {
    options,
    cores: os.availableParallelism(),
    healthy: { ...h, onTimeRatio: h.due ? h.onTime / h.due : NaN, latenessMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN } },
    spinners: counts.spinner,
    peers: counts.peer,
    sandbox: sandbox && { restarts: sandbox.restarts, overstayKills: sandbox.overstayKills },
    errors,
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } else {
    const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');
    process.stdout.write(
      `bench:fairness — ${options.healthy} healthy, ${options.spinners} spinning, ${options.peers} never-answering association(s), every ${options.periodS} s, ` +
        `deadline ${options.timeoutMs} ms, ${options.durationS} s measured, ${figures.cores} cores; sandbox threads ${options.sandboxThreads ?? 'default'}, ` +
        `spares ${options.spareThreads ?? 'default'}, backoff ${options.backoff ? 'on' : 'off'}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['healthy', 'due', 'on time', 'ratio', 'skipped', 'failed', 'late p50 ms', 'p99 ms', 'max ms'],
        [['', String(h.due), String(h.onTime), `${(figures.healthy.onTimeRatio * 100).toFixed(2)} %`, String(h.skipped), String(h.failed), ms(figures.healthy.latenessMs.p50), ms(figures.healthy.latenessMs.p99), ms(figures.healthy.latenessMs.max)]],
      )}\n\n`,
    );
    process.stdout.write(
      `${table(
        ['others', 'due', 'runs', 'limit hits', 'held back (backoff)', 'skipped'],
        [
          ['spinners', String(counts.spinner.due), String(counts.spinner.runs), String(counts.spinner.limits), String(counts.spinner.heldBack), String(counts.spinner.skipped)],
          ['peers', String(counts.peer.due), String(counts.peer.runs), String(counts.peer.limits), String(counts.peer.heldBack), String(counts.peer.skipped)],
        ],
      )}\n`,
    );
    if (sandbox) process.stdout.write(`\nsandbox process: ${sandbox.restarts} restart(s), ${sandbox.overstayKills} overstay kill(s)\n`);
    if (errors.length) process.stdout.write(`\nagent errors:\n  ${errors.slice(0, 10).join('\n  ')}\n`);
    process.stdout.write(`\ngoal: healthy on-time ratio ≥ 99 %: ${figures.healthy.onTimeRatio >= 0.99 ? 'met' : 'NOT met'}\n`);
  }
  return 0;
}

runBench('bench:fairness', main);
