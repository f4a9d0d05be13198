// Helpers shared by the bench scripts: argument parsing, statistics, setup and text tables.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tuneProcessHeap, V8_HEAP_FLAGS } from '../../host/platform/v8-heap-flags.js';

// ---------------------------------------------------------------------------- arguments

/** A bad command line or environment value: runBench reports it without a stack and exits 2. */
export class UsageError extends Error {}

export function usage(message: string): never {
  throw new UsageError(message);
}

export function positiveInt(text: string | undefined, what: string, allowZero = false): number {
  if (text === undefined) usage(`${what} needs a value`);
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    usage(`${what} must be a ${allowZero ? 'non-negative' : 'positive'} integer (got ${JSON.stringify(text)})`);
  }
  return value;
}

/**
 * Calls `handle` once per argument. `--flag=value` is split at the first `=`; otherwise
 * `value()` consumes the next argument, so a flag that takes no value must not call it.
 * `arg` is the argument as given, for error messages.
 */
function forEachFlag(argv: string[], handle: (flag: string, value: () => string | undefined, arg: string) => void): void {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    handle(flag, () => inline ?? argv[++i], arg);
  }
}

/** What one flag does to the options; `value()` takes its value (see forEachFlag). */
export type FlagHandler<O> = (options: O, value: () => string | undefined, flag: string) => void;

type KeysOf<O, T> = { [K in keyof O]: O[K] extends T ? K : never }[keyof O];

/** A flag that sets `key` to a positive integer (or >= 0 with allowZero). */
export function intFlag<O>(key: KeysOf<O, number | null | undefined>, allowZero = false): FlagHandler<O> {
  return (options, value, flag) => {
    (options as Record<typeof key, number>)[key] = positiveInt(value(), flag, allowZero);
  };
}

/** A flag without a value that sets `key` to `to`. */
export function switchFlag<O>(key: KeysOf<O, boolean>, to = true): FlagHandler<O> {
  return (options) => {
    (options as Record<typeof key, boolean>)[key] = to;
  };
}

/**
 * Applies argv to `options` through `flags`. --help / -h prints `help` and exits 0; an
 * argument no flag knows is a usage error.
 */
export function parseFlags<O>(argv: string[], options: O, flags: Record<string, FlagHandler<O>>, help: string): O {
  forEachFlag(argv, (flag, value, arg) => {
    if (flag === '--help' || flag === '-h') {
      process.stdout.write(`${help}\n`);
      process.exit(0);
    }
    const handle = Object.hasOwn(flags, flag) ? flags[flag] : undefined;
    if (!handle) usage(`unknown argument ${JSON.stringify(arg)} (try --help)`);
    handle(options, value, flag);
  });
  return options;
}

// ---------------------------------------------------------------------------- measuring

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function mean(values: number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

// ---------------------------------------------------------------------------- setup

/**
 * The host loads dist/runtime and starts its sandbox threads from dist/thread: build both when
 * missing or stale (the build's stamps), as `npm run build` would.
 */
export async function ensureRuntimeBundle(): Promise<void> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  // stdout stays clean for --json: the build's output goes to stderr.
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), '--quiet', 'runtime', 'thread'], { cwd: root, stdio: ['ignore', 2, 2] });
}

/** Newest modification time (ms) of the .ts files under `dir`. */
function newestSourceMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Benches that fork a child (the agent's sandbox process) need dist/: the child cannot load
 * TypeScript. Runs the full build (`npm run build`) when dist/ is missing or older than host/
 * or runtime/, so the child never runs stale code beside a host running from source.
 */
export function ensureHostBuild(): void {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
  const marker = path.join(root, 'dist', 'host', 'engine', 'process', 'child.js');
  const built = existsSync(marker) && existsSync(path.join(root, 'dist', 'runtime', 'core.js')) ? statSync(marker).mtimeMs : 0;
  const source = Math.max(newestSourceMs(path.join(root, 'host')), newestSourceMs(path.join(root, 'runtime')));
  if (built >= source) return;
  process.stderr.write('dist/ is missing or older than the sources: building (npm run build) …\n');
  // stdout stays clean for --json: the build's output goes to stderr.
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', 2, 2] });
}

// ---------------------------------------------------------------------------- output

/** Columns padded to their widest cell, left-aligned before `rightAlignFrom`, right-aligned from it. */
export function table(headers: string[], rows: string[][], rightAlignFrom = 1): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, c) => (c >= rightAlignFrom ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

// ---------------------------------------------------------------------------- main

/**
 * Runs a bench's main. A number it returns becomes the exit code (process.exit, so open
 * handles cannot keep the process alive); otherwise the process ends on its own.
 * UsageError → `name: message` on stderr, exit 2; any other error → `name: stack`, exit 1.
 */
export function runBench(name: string, main: () => Promise<number | void>): void {
  main().then(
    (code) => {
      if (typeof code === 'number') process.exit(code);
    },
    (error: unknown) => {
      if (error instanceof UsageError) {
        process.stderr.write(`${name}: ${error.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}

/**
 * Sets driverbox's V8 heap flags in this process, as the CLI and the sandbox process have them
 * (host/platform/v8-heap-flags.ts), before the bench makes any isolate: the flags set, and a line saying
 * which for the bench's header.
 */
export function benchHeapFlags(enabled: boolean): { flags: readonly string[]; header: string } {
  if (!enabled) return { flags: [], header: 'V8 heap flags: Node\'s defaults (--no-heap-flags)' };
  tuneProcessHeap();
  return { flags: V8_HEAP_FLAGS, header: `V8 heap flags: ${V8_HEAP_FLAGS.join(' ')}, as the CLI and the sandbox process set them (--no-heap-flags: without)` };
}
