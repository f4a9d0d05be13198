// Finds the esbuild output of runtime/ and keeps each bundle's source and V8 code cache,
// made once per process and handed to every new isolate.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type ivm from 'isolated-vm';
import type { LibName } from '../../../runtime/protocol.js';
import { DriverboxError } from '../../contract/errors.js';
import { packagePath } from '../../package-path.js';

export type BundleName = 'core' | `lib-${LibName}`;

/** isolated-vm sets these on compiled scripts; its typings leave them out. */
type CachedScript = ivm.Script & { cachedData?: ivm.ExternalCopy<ArrayBuffer>; cachedDataRejected?: boolean };

function findRuntimeDir(): string {
  const dir = locateRuntimeDir();
  if (!dir) throw new DriverboxError('RUNTIME_BUNDLE_MISSING', 'the runtime bundle (dist/runtime) is missing: run `npm run build`');
  return dir;
}

interface Bundle {
  code: string;
  filename: string;
  cachedData?: ivm.ExternalCopy<ArrayBuffer>;
}

const bundles = new Map<BundleName, Bundle>();
let runtimeDir: string | null = null;

/** Where the bundles are, when the caller knows better than a look-up from this module (see ThreadConfig.runtimeDir). */
export function useRuntimeDir(dir: string | null): void {
  if (dir) runtimeDir = dir;
}

/**
 * dist/runtime of the package this module belongs to, or null. The host thread looks it up and
 * hands it to its sandbox threads: a thread runs from its bundle in dist/thread/,
 * and node_modules may be a symlink into another checkout (a git worktree).
 */
export function locateRuntimeDir(): string | null {
  return packagePath(path.join('dist', 'runtime'));
}

function bundle(name: BundleName): Bundle {
  let entry = bundles.get(name);
  if (!entry) {
    runtimeDir ??= findRuntimeDir();
    const file = path.join(runtimeDir, `${name}.js`);
    if (!existsSync(file)) throw new DriverboxError('RUNTIME_BUNDLE_MISSING', `runtime bundle ${file} is missing: run \`npm run build\``);
    entry = { code: readFileSync(file, 'utf8'), filename: `driverbox:${name}.js` };
    bundles.set(name, entry);
  }
  return entry;
}

/**
 * Compiles a runtime bundle in `isolate`, reusing (or producing) this process's code cache.
 * Synchronous: library bundles are compiled from inside a run's synchronous host call, and
 * with the cache a compile is well under a millisecond.
 */
export function compileBundle(isolate: ivm.Isolate, name: BundleName): ivm.Script {
  const entry = bundle(name);
  if (entry.cachedData) {
    const script: CachedScript = isolate.compileScriptSync(entry.code, { filename: entry.filename, cachedData: entry.cachedData });
    if (!script.cachedDataRejected) return script;
  }
  const script: CachedScript = isolate.compileScriptSync(entry.code, { filename: entry.filename, produceCachedData: true });
  if (script.cachedData) entry.cachedData = script.cachedData;
  return script;
}
