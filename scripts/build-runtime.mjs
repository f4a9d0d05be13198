// Bundles runtime/ (the code that runs inside the isolate) with esbuild.
// core.js is evaluated in every run's fresh context; the lib-*.js bundles are
// compiled once per isolate and evaluated only when a driver first touches them.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

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
      }),
    ),
  );
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildRuntime();
}
