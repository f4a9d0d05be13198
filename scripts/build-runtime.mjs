// Bundles runtime/ (the code that runs inside the isolate) with esbuild.
// core.js is evaluated in every run's fresh context; the lib-*.js bundles are
// compiled once per isolate and evaluated only when a driver first touches them.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { entityTables } from './entity-tables.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const runtimeEntries = {
  core: 'runtime/index.ts',
  'lib-q': 'runtime/libs/q.ts',
  'lib-lodash': 'runtime/libs/lodash.ts',
  'lib-cheerio': 'runtime/libs/cheerio.ts',
  'lib-buffer': 'runtime/libs/buffer.ts',
};

export async function buildRuntime({ outdir = path.join(root, 'dist/runtime'), minify = true } = {}) {
  await Promise.all(
    Object.entries(runtimeEntries).map(([name, entry]) =>
      build({
        absWorkingDir: root,
        entryPoints: [entry],
        outfile: path.join(outdir, `${name}.js`),
        bundle: true,
        format: 'iife',
        // "browser" picks the builds of cheerio & co. that need no Node built-ins.
        platform: 'browser',
        target: 'es2022',
        minify,
        legalComments: 'none',
        logLevel: 'warning',
        // The q scheduler shim: q looks for setImmediate/setTimeout as free globals.
        inject: { 'lib-q': ['runtime/libs/q-timers.ts'], 'lib-cheerio': ['runtime/libs/buffer-global.ts'] }[name] ?? [],
        define: { 'process.env.NODE_ENV': '"production"' },
        plugins: name === 'lib-cheerio' ? [entityTables] : [],
        // A library's top level runs after driver code, which may have replaced the built-ins it
        // touches: whatever it throws stays in the isolate (isolated-vm would copy it out running
        // the driver's getters); the runtime then finds no exports and says so (lazy-libs.ts).
        // (Wrapped in a function so that the bundle's "use strict" stays a directive.)
        ...(name.startsWith('lib-') ? { banner: { js: 'try { (() => {' }, footer: { js: '})(); } catch (_) {}' } } : {}),
      }),
    ),
  );
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildRuntime();
}
