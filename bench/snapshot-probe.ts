// Why the libraries are not served from an isolated-vm snapshot (issue 24): for each library
// bundle, an isolate started from Isolate.createSnapshot([bundle]) and a plain isolate that
// evaluates the bundle run the same call, and the answers are printed side by side, with what a
// new context costs in each. On isolated-vm 5 / Node 20 every library breaks from the snapshot
// (functions lose the variables they close over: "e is not a function", "K is not defined").
//
// Run: node --no-node-snapshot --import tsx bench/snapshot-probe.ts
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadIsolatedVm } from '../host/platform/isolated-vm.js';
import { locateRuntimeDir } from '../host/engine/isolate/runtime-bundle.js';
import { ensureRuntimeBundle, percentile, runBench } from './lib/common.js';
import { LIBRARY_FIRST_CALLS } from './lib/library-calls.js';

function answer(run: () => unknown): string {
  try {
    return String(run());
  } catch (error) {
    return `throws ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** p50 of the time to make a new context in `isolate` (ms). */
function contextMs(isolate: import('isolated-vm').Isolate): number {
  const times: number[] = [];
  for (let i = 0; i < 100; i++) {
    const start = performance.now();
    isolate.createContextSync().release();
    times.push(performance.now() - start);
  }
  return percentile(times.sort((a, b) => a - b), 50);
}

async function main(): Promise<number> {
  await ensureRuntimeBundle();
  const { ivm, alias } = loadIsolatedVm();
  const dir = locateRuntimeDir()!;
  let broken = 0;
  process.stdout.write(`${alias} on Node ${process.version}\n`);
  for (const [name, call] of Object.entries(LIBRARY_FIRST_CALLS)) {
    const code = readFileSync(path.join(dir, `lib-${name}.js`), 'utf8');
    const plain = new ivm.Isolate({ memoryLimit: 64 });
    const plainContext = plain.createContextSync();
    plain.compileScriptSync(code).runSync(plainContext);
    const expected = answer(() => plainContext.evalSync(call));

    const snapshot = ivm.Isolate.createSnapshot([{ code, filename: `driverbox:lib-${name}.js` }]);
    const fromSnapshot = new ivm.Isolate({ memoryLimit: 64, snapshot });
    const got = answer(() => fromSnapshot.createContextSync().evalSync(call));
    if (got !== expected) broken++;
    process.stdout.write(
      `${name.padEnd(8)} plain: ${expected.padEnd(12)} snapshot: ${got.padEnd(40)} new context p50: plain ${contextMs(plain).toFixed(2)} ms, snapshot ${contextMs(fromSnapshot).toFixed(2)} ms\n`,
    );
    plain.dispose();
    fromSnapshot.dispose();
  }
  process.stdout.write(`${broken} of ${Object.keys(LIBRARY_FIRST_CALLS).length} libraries answer differently from a snapshot\n`);
  return 0;
}

runBench('snapshot-probe', main);
