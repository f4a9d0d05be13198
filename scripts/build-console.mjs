// Bundles the web console (console/) with esbuild into dist/console: index.html, one JS file
// and one CSS file with content hashes in their names (served as immutable by
// host/api/console/). Everything is bundled: the console loads nothing from another origin.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds dist/console (or `outdir`); answers the files written with their sizes. */
export async function buildConsole({ outdir = path.join(root, 'dist/console'), minify = true, quiet = false } = {}) {
  await rm(outdir, { recursive: true, force: true });
  const assets = path.join(outdir, 'assets');
  await mkdir(assets, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { console: 'console/src/main.tsx' },
    outdir: assets,
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const js = outputs.find((file) => file.endsWith('.js'));
  const css = outputs.find((file) => file.endsWith('.css'));
  if (!js || !css) throw new Error(`the console build made ${outputs.join(', ')}: a .js and a .css file were expected`);
  const template = await readFile(path.join(root, 'console/index.html'), 'utf8');
  const html = template.replace('%CONSOLE_CSS%', `console/assets/${css}`).replace('%CONSOLE_JS%', `console/assets/${js}`);
  await writeFile(path.join(outdir, 'index.html'), html);
  const sizes = {};
  for (const file of [js, css]) {
    const bytes = await readFile(path.join(assets, file));
    sizes[file] = { bytes: bytes.length, gzip: gzipSync(bytes).length };
  }
  if (!quiet) {
    const line = Object.entries(sizes).map(([file, s]) => `${file} ${(s.bytes / 1024).toFixed(1)} KiB (${(s.gzip / 1024).toFixed(1)} KiB gzip)`);
    console.log(`console: ${line.join(', ')}`);
  }
  return { outdir, js, css, sizes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildConsole();
}
