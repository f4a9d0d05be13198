// Throughput of an SSH-command driver through host.run(), side by side with raw ssh2.
//
// What it measures: a simulated SSH device (host/simulator/ssh, in a child process of its own so
// its CPU is not counted) answers `uname -a`. The driver calls D.device.sendSSHCommand once and
// reports one variable; the raw side, in the same process and run, does what the host does for
// it: a new ssh2 Client per run (password login), one exec, stdout collected and trimmed, the
// connection closed. Runs are closed-loop: C workers each start the next run as soon as their
// previous one ends; each series is measured in --rounds chunks alternating the two sides, so a
// busy spell of the machine weighs on both alike. Every run's outcome is checked.
// CPU per run is the whole process's (host thread, sandbox threads, ssh2's crypto) over the runs.
//
// Run:     npm run bench:ssh
//          npm run bench:ssh -- --runs 200 --concurrency 1,8 --json
// Options: --runs N (runs per series, default 300), --warmup N (default 20 per side),
//          --concurrency C[,C…] (default 1,8), --rounds N (default 3), --json.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'ssh2';
import { createHost, type Host } from '../host/index.js';
import { ensureRuntimeBundle, intFlag, mean, parseFlags, percentile, positiveInt, runBench, switchFlag, table } from './lib/common.js';

type Side = 'driverbox' | 'ssh2';

interface Options {
  runs: number;
  warmup: number;
  rounds: number;
  concurrency: number[];
  json: boolean;
}

const help = `Usage: npm run bench:ssh -- [--runs N] [--warmup N] [--concurrency C[,C…]] [--rounds N] [--json]`;
const EXPECTED = 'Linux bench-01 6.1.0 #1 SMP x86_64 GNU/Linux';
const USER = 'bench';
const PASSWORD = 'bench-secret';
const DRIVER = `function get_status() {
  D.device.sendSSHCommand({ command: 'uname -a', timeout: 10000 }, function (out, err) {
    if (err) return D.failure(D.errorType.GENERIC_ERROR);
    D.success([D.createVariable('kernel', 'Kernel', out.split(' ')[2])]);
  });
}`;

async function startDevice(): Promise<{ port: number; stop(): void }> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'lib', 'ssh-device.ts')], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the SSH device exited (${code}) before it listened`)));
  });
  return { port, stop: () => child.stdin!.end() };
}

/** One raw run: what the host does for one sendSSHCommand. */
function rawRun(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let out = '';
    client.on('ready', () =>
      client.exec('uname -a', (error, stream) => {
        if (error) return reject(error);
        stream.on('data', (chunk: Buffer) => (out += chunk.toString()));
        stream.stderr.on('data', () => {});
        stream.on('close', (code: number) => {
          client.end();
          if (code !== 0 || out.trim() !== EXPECTED) reject(new Error(`raw run: exit ${code}, ${JSON.stringify(out)}`));
          else resolve();
        });
      }),
    );
    client.on('error', reject);
    client.on('connect', () => client.setNoDelay(true)); // as the host's client does
    client.connect({ host: '127.0.0.1', port, username: USER, password: PASSWORD, tryKeyboard: true, hostVerifier: () => true });
  });
}

async function hostRun(host: Host, port: number): Promise<void> {
  const result = await host.run({ source: DRIVER, filename: 'ssh-driver.js', device: { ip: '127.0.0.1', portMap: { 22: port }, username: USER, password: PASSWORD } });
  if (result.status !== 'success' || result.variables[0]?.value !== '6.1.0') throw new Error(`driver run: ${result.status} ${result.errorType} ${result.message}`);
}

/** `runs` runs by `concurrency` closed-loop workers; each run's wall time. */
async function closedLoop(runs: number, concurrency: number, one: () => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  let started = 0;
  const worker = async () => {
    while (started < runs) {
      started++;
      const t0 = performance.now();
      await one();
      times.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs) }, worker));
  return times;
}

interface Figures {
  side: Side;
  concurrency: number;
  runs: number;
  runsPerSec: number;
  cpuMsPerRun: number;
  p50Ms: number;
  p99Ms: number;
}

async function main(): Promise<number> {
  const options = parseFlags<Options>(process.argv.slice(2), { runs: 300, warmup: 20, rounds: 3, concurrency: [1, 8], json: false }, {
    '--runs': intFlag('runs'),
    '--warmup': intFlag('warmup', true),
    '--rounds': intFlag('rounds'),
    '--concurrency': (o, value, flag) => {
      o.concurrency = (value() ?? '').split(',').map((c) => positiveInt(c, flag));
    },
    '--json': switchFlag('json'),
  }, help);
  await ensureRuntimeBundle();
  const device = await startDevice();
  const all: Figures[] = [];
  try {
    for (const concurrency of options.concurrency) {
      const host = createHost({ maxIsolates: concurrency, warmIsolates: concurrency });
      try {
        const sides: Record<Side, () => Promise<void>> = { driverbox: () => hostRun(host, device.port), ssh2: () => rawRun(device.port) };
        for (const side of Object.keys(sides) as Side[]) await closedLoop(options.warmup, concurrency, sides[side]);
        const acc: Record<Side, { times: number[]; wallMs: number; cpuMs: number }> = { driverbox: { times: [], wallMs: 0, cpuMs: 0 }, ssh2: { times: [], wallMs: 0, cpuMs: 0 } };
        const perRound = Math.max(1, Math.round(options.runs / options.rounds));
        for (let round = 0; round < options.rounds; round++) {
          for (const side of (round % 2 === 0 ? ['ssh2', 'driverbox'] : ['driverbox', 'ssh2']) as Side[]) {
            const cpu0 = process.cpuUsage();
            const t0 = performance.now();
            acc[side].times.push(...(await closedLoop(perRound, concurrency, sides[side])));
            acc[side].wallMs += performance.now() - t0;
            const cpu = process.cpuUsage(cpu0);
            acc[side].cpuMs += (cpu.user + cpu.system) / 1000;
          }
        }
        for (const side of ['ssh2', 'driverbox'] as Side[]) {
          const { times, wallMs, cpuMs } = acc[side];
          const sorted = [...times].sort((a, b) => a - b);
          all.push({ side, concurrency, runs: times.length, runsPerSec: (times.length / wallMs) * 1000, cpuMsPerRun: cpuMs / times.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) });
        }
      } finally {
        await host.close();
      }
    }
  } finally {
    device.stop();
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ bench: 'ssh-driver', figures: all }, null, 2)}\n`);
    return 0;
  }
  const rows = all.map((f) => {
    const raw = all.find((g) => g.side === 'ssh2' && g.concurrency === f.concurrency)!;
    return [f.side, String(f.concurrency), String(f.runs), f.runsPerSec.toFixed(1), f.cpuMsPerRun.toFixed(2), f.p50Ms.toFixed(1), f.p99Ms.toFixed(1), f.side === 'ssh2' ? '1.00' : (raw.runsPerSec / f.runsPerSec).toFixed(2), f.side === 'ssh2' ? '1.00' : (f.cpuMsPerRun / raw.cpuMsPerRun).toFixed(2)];
  });
  process.stdout.write(`SSH-command driver vs raw ssh2 (a new connection per run, the device in its own process)\n`);
  process.stdout.write(`${table(['side', 'C', 'runs', 'runs/s', 'CPU ms/run', 'p50 ms', 'p99 ms', 'time ×', 'CPU ×'], rows)}\n`);
  process.stdout.write(`time × / CPU ×: driverbox's wall time and CPU per run over raw ssh2's (mean of ${mean(all.map((f) => f.runs)).toFixed(0)} runs per row).\n`);
  return 0;
}

runBench('bench:ssh', main);
