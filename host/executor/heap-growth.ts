// How far a long-running driverbox process lets V8's old generation grow before its next full GC.
//
// The agent, `serve` and their sandbox child keep objects for seconds: a device's connection
// through keep-alive (its undici pool, socket and parser), a run's records until they are stored.
// Those die in the old generation, and V8 lets that generation grow to up to 4× what survived the
// last full GC before it collects again (its growing factor for heaps with a limit of 2 GB or more).
// At 10,000 devices / 60 s that was ~50 MB live in the host and ~70 MB in the child, held as
// 365 + 435 MB of RSS. At 1.5× (bench:agent, same machine, back to back): 266 + 304 MB, the CPU
// per run within the noise (3.73 → 3.84 ms; 4.04 ms at 2×), lateness unchanged. docs/ARCHITECTURE.md.
import { setFlagsFromString } from 'node:v8';

export const HEAP_GROWING_PERCENT = 50;

/** The V8 flag, for a process driverbox starts (the sandbox child). A later flag of the caller's wins. */
export const HEAP_GROWTH_FLAG = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;

/**
 * Applies the bound to this process: for the CLI's long-running commands, which own their process.
 * An embedder's process is left alone; it can start Node with HEAP_GROWTH_FLAG itself.
 */
export function boundHeapGrowth(): void {
  setFlagsFromString(HEAP_GROWTH_FLAG);
}
