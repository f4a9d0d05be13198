// The V8 heap flags of the processes driverbox owns: the sandbox child (always given to it) and
// the CLI's own process (set by bin/driverbox.js before any isolate exists). An embedding process
// is its owner's: tuneProcessHeap() applies them, or start Node with V8_HEAP_FLAGS.
//
// --max-semi-space-size=4: isolated-vm sizes a driver isolate's young generation from its memory
//   limit (2 MB at the default 128 MB), and a run that loads a library allocates more than that,
//   most of it alive until the run ends: each scavenge copied it again. 4 MB semi-spaces (the
//   flag overrides isolated-vm's size, for every isolate made after it is set): cheerio's bundle and
//   a first load() in a new context 2.1 → 1.6 ms, the knee of 1, 2, 4, 8, 16 MB (bench:floor's
//   part, Node 20 and 24 alike). Node's own isolates made after it (the sandbox threads') get
//   4 MB instead of 16. A semi-space grows to this only when a run's survivors need it.
// --heap-growing-percent=50: a long-running process keeps objects for seconds (a device's
//   connection through keep-alive, a run's records until they are stored), which die in the old
//   generation, and V8 lets that generation grow to up to 4× what survived the last full GC before
//   it collects again. 1.5× here: bench:agent at 10,000 devices / 60 s, host + child RSS peaks
//   801 → 572 MB, CPU per run within the noise. `--max-old-space-size` is not used: it would
//   override each isolate's own memory limit. docs/ARCHITECTURE.md has the figures.
import { setFlagsFromString } from 'node:v8';

export const V8_HEAP_FLAGS: readonly string[] = ['--max-semi-space-size=4', '--heap-growing-percent=50'];

/** Applies V8_HEAP_FLAGS to this process; isolates made before keep their young generation. */
export function tuneProcessHeap(): void {
  for (const flag of V8_HEAP_FLAGS) setFlagsFromString(flag);
}
