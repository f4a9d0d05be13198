// What a pooled run cannot go below on this Node line (issue 24): the parts that isolated-vm, V8
// and Node charge every run, each measured alone, without driverbox's own code around them.
//   - a round trip of a small message between the host thread and a worker thread (a run is
//     handed to its sandbox thread and its result comes back: one round trip at least);
//   - a new context in a warm isolate (the design gives every run a fresh one);
//   - the runtime bundle (core) evaluated in it, and one synchronous call into the isolate
//     (a run makes a few: install, the entry point, its callbacks);
//   - each library bundle evaluated in a new context, and cheerio's with one load() call, which
//     is what a driver's first D.htmlParse costs.
// The sum for an empty driver is printed beside issue 24's target for it; bench:overhead gives
// the whole run for comparison.
//
// Run:     npm run bench:floor
//          npm run bench:floor -- --samples 1000
// Options: --samples N (default 500 per part, after 50 warm-up), --no-heap-flags (Node's own V8
//          heap flags, not those the CLI and the sandbox process set: host/platform/v8-heap-flags.ts)
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadIsolatedVm } from '../host/platform/isolated-vm.js';
import { locateRuntimeDir } from '../host/engine/isolate/runtime-bundle.js';
import { LIBRARY_FIRST_CALLS } from './lib/library-calls.js';
import { benchHeapFlags, ensureRuntimeBundle, intFlag, parseFlags, percentile, runBench, switchFlag, table } from './lib/common.js';

type Context = import('isolated-vm').Context;
type Reference = import('isolated-vm').Reference<(a: number) => number>;

const EMPTY_DRIVER_TARGET_MS = 0.5;
const CHEERIO_TARGET_MS = 3;
const WARMUP = 50;

interface Options {
  samples: number;
  heapFlags: boolean;
}

interface Figure {
  p50: number;
  p90: number;
}

/**
 * p50 and p90 (ms) of `samples` timings of `part`, after a warm-up. Each sample gets a new context
 * from `fresh` when it is given, made and released outside the timing.
 */
async function timed<C>(samples: number, part: (context: C) => unknown, fresh?: () => { context: C; release: () => void }): Promise<Figure> {
  const times: number[] = [];
  for (let i = 0; i < WARMUP + samples; i++) {
    const made = fresh?.();
    const start = performance.now();
    await part(made?.context as C);
    const ms = performance.now() - start;
    made?.release();
    if (i >= WARMUP) times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p90: percentile(times, 90) };
}

/** A worker that answers each message at once, as a sandbox thread answers a run that does nothing. */
function echoWorker(): Worker {
  return new Worker(`require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m));`, { eval: true });
}

async function main(): Promise<number> {
  const options = parseFlags<Options>(
    process.argv.slice(2),
    { samples: 500, heapFlags: true },
    { '--samples': intFlag('samples'), '--no-heap-flags': switchFlag('heapFlags', false) },
    'usage: npm run bench:floor -- [--samples N] [--no-heap-flags]',
  );
  const heapFlags = benchHeapFlags(options.heapFlags);
  await ensureRuntimeBundle();
  const { ivm, alias } = loadIsolatedVm();
  const dir = locateRuntimeDir()!;
  const code = (name: string) => readFileSync(path.join(dir, `${name}.js`), 'utf8');
  process.stdout.write(`driverbox run floor — ${alias} on Node ${process.version}, ${os.cpus().length} CPUs; p50 of ${options.samples} samples each\n${heapFlags.header}\n\n`);

  const worker = echoWorker();
  const message = [{ t: 'run', run: 1, plan: { name: 'empty', entry: 'get_status', source: 'function get_status() { D.success(); }' } }];
  const roundTrip = await timed(options.samples, () => new Promise<void>((resolve) => {
    worker.once('message', () => resolve());
    worker.postMessage(message);
  }));
  await worker.terminate();

  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const fresh = () => {
    const context = isolate.createContextSync();
    return { context, release: () => context.release() };
  };
  const core = isolate.compileScriptSync(code('core'), { filename: 'driverbox:core.js' });
  const context = await timed(options.samples, () => isolate.createContextSync().release());
  const coreEval = await timed(options.samples, (ctx: Context) => core.runSync(ctx), fresh);
  const callContext = isolate.createContextSync();
  const fn: Reference = callContext.evalSync('(function (a) { return a; })', { reference: true });
  const call = await timed(options.samples, () => fn.applySync(undefined, [1]));
  fn.release();
  callContext.release();

  const row = (part: string, figure: Figure) => [part, figure.p50.toFixed(3), figure.p90.toFixed(3)];
  const rows: string[][] = [
    row('host thread ↔ worker thread round trip (small message)', roundTrip),
    row('new context in a warm isolate', context),
    row('runtime bundle (core) evaluated in a new context', coreEval),
    row('one synchronous call into the isolate', call),
  ];
  let cheerio: Figure | null = null;
  for (const [name, firstCall] of Object.entries(LIBRARY_FIRST_CALLS)) {
    const script = isolate.compileScriptSync(code(`lib-${name}`), { filename: `driverbox:lib-${name}.js` });
    const figure = await timed(options.samples, (ctx: Context) => {
      script.runSync(ctx);
      ctx.evalSync(firstCall);
    }, fresh);
    if (name === 'cheerio') cheerio = figure;
    rows.push(row(`${name} bundle evaluated in a new context + its first call`, figure));
    script.release();
  }
  isolate.dispose();
  process.stdout.write(`${table(['part', 'p50 ms', 'p90 ms'], rows)}\n\n`);

  const emptyFloor = roundTrip.p50 + context.p50 + coreEval.p50 + 3 * call.p50;
  process.stdout.write(
    `an empty driver's run cannot go below one round trip + a new context + core + 3 calls = ${emptyFloor.toFixed(3)} ms ` +
      `(issue 24's target: ${EMPTY_DRIVER_TARGET_MS} ms, so ${(emptyFloor / EMPTY_DRIVER_TARGET_MS).toFixed(2)}× the target before driverbox's own work)\n`,
  );
  process.stdout.write(
    `a first D.htmlParse cannot go below that + the cheerio part = ${(emptyFloor + cheerio!.p50).toFixed(3)} ms (target ${CHEERIO_TARGET_MS} ms)\n`,
  );
  process.stdout.write(`load average (1, 5, 15 min) at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}\n`);
  return 0;
}

runBench('run-floor', main);
