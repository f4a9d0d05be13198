// Build: type-checks and emits host/ to dist/, then bundles runtime/, the sandbox thread's
// module and the web console.
// Each part is built only when stale: a stamp of its inputs' content (dist/.stamps/<part>)
// says what the last build of it was made from, so a test run or a `driverbox` start with
// nothing changed rewrites nothing in dist/. `--force` (or DRIVERBOX_BUILD_FORCE=1) rebuilds all.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const force = process.argv.includes('--force') || process.env.DRIVERBOX_BUILD_FORCE === '1';
const quiet = process.argv.includes('--quiet');
// Parts named on the command line (`node scripts/build.mjs runtime thread`): only those; none named: all.
const named = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

// What each part is made from. The lock file stands for the compilers and bundled libraries.
const shared = ['package-lock.json', 'tsconfig.base.json', 'scripts/build.mjs'];
const parts = {
  host: { inputs: [...shared, 'tsconfig.build.json', 'host'], outputs: ['dist/host'] },
  runtime: { inputs: [...shared, 'runtime', 'scripts/build-runtime.mjs', 'scripts/entity-tables.mjs'], outputs: ['dist/runtime'] },
  // The sandbox thread's entry and what it imports of host/ (and of runtime/'s constants).
  thread: { inputs: [...shared, 'host', 'runtime', 'scripts/build-thread.mjs'], outputs: ['dist/thread'] },
  // The console imports host/'s types and D's members from types/driver.d.ts.
  console: { inputs: [...shared, 'console', 'host', 'types', 'scripts/build-console.mjs', 'scripts/d-completions.mjs'], outputs: ['dist/console'] },
};

/** Every file under `entry` (a file or a folder), sorted, relative to the root. */
function filesOf(entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [entry];
  return readdirSync(full, { withFileTypes: true })
    .filter((d) => d.name !== 'node_modules' && !d.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((d) => filesOf(path.join(entry, d.name)));
}

/** The content hash of a part's inputs: names and bytes, so a rename or an edit changes it. */
function stampOf(part) {
  const hash = createHash('sha256');
  for (const file of parts[part].inputs.flatMap(filesOf)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const stampFile = (part) => path.join(root, 'dist/.stamps', part);
const current = (part, stamp) =>
  !force && parts[part].outputs.every((o) => existsSync(path.join(root, o))) && existsSync(stampFile(part)) && readFileSync(stampFile(part), 'utf8') === stamp;

const tsc = require.resolve('typescript/bin/tsc');
const steps = {
  host: async () => {
    // Files of deleted sources must not linger in dist/host.
    rmSync(path.join(root, 'dist/host'), { recursive: true, force: true });
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit', cwd: root });
  },
  runtime: async () => {
    execFileSync(process.execPath, [tsc, '-p', 'runtime/tsconfig.json'], { stdio: 'inherit', cwd: root });
    const { buildRuntime } = await import('./build-runtime.mjs');
    await buildRuntime();
  },
  thread: async () => {
    const { buildThread } = await import('./build-thread.mjs');
    await buildThread();
  },
  console: async () => {
    execFileSync(process.execPath, [tsc, '-p', 'console/tsconfig.json'], { stdio: 'inherit', cwd: root });
    const { buildConsole } = await import('./build-console.mjs');
    await buildConsole({ quiet: true });
  },
};

const built = [];
for (const name of named) if (!(name in parts)) throw new Error(`driverbox build: no part ${name} (parts: ${Object.keys(parts).join(', ')})`);
for (const part of Object.keys(parts).filter((p) => named.length === 0 || named.includes(p))) {
  const stamp = stampOf(part);
  if (current(part, stamp)) continue;
  // The stamp goes first: a build that fails halfway leaves no stamp, so the next one retries.
  rmSync(stampFile(part), { force: true });
  await steps[part]();
  mkdirSync(path.dirname(stampFile(part)), { recursive: true });
  writeFileSync(stampFile(part), stamp);
  built.push(part);
}
if (!quiet) console.log(built.length ? `driverbox build: ${built.join(', ')} rebuilt` : 'driverbox build: dist/ is current');
