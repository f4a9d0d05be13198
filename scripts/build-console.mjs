// Bundles the web console (console/) with esbuild into dist/console: index.html, the entry JS
// file and its CSS, and the chunks loaded on demand (the driver editor, CodeMirror 6), all with
// content hashes in their names (served as immutable by host/api/console/). Everything is
// bundled: the console loads nothing from another origin. The editor's completions of D come
// from types/driver.d.ts (scripts/d-completions.mjs), as the module `driverbox:d-members`.
import { build } from 'esbuild';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { dCompletions } from './d-completions.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** `import members from 'driverbox:d-members'`: the members of D, read from types/driver.d.ts now. */
const dMembersPlugin = {
  name: 'd-members',
  setup(b) {
    b.onResolve({ filter: /^driverbox:d-members$/ }, () => ({ path: 'd-members', namespace: 'driverbox' }));
    b.onLoad({ filter: /.*/, namespace: 'driverbox' }, () => ({
      contents: JSON.stringify(dCompletions()),
      loader: 'json',
      watchFiles: [path.join(root, 'types/driver.d.ts')],
    }));
  },
};

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
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    plugins: [dMembersPlugin],
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
  const entry = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint === 'console/src/main.tsx');
  const js = entry && path.basename(entry[0]);
  const css = entry?.[1].cssBundle && path.basename(entry[1].cssBundle);
  if (!js || !css) throw new Error(`the console build made ${outputs.join(', ')}: an entry .js with its .css was expected`);
  /** What the first page load fetches: the entry and the chunks it imports statically. */
  const initial = new Set([js, css]);
  const addImports = (file) => {
    for (const i of result.metafile.outputs[path.relative(root, path.join(assets, file))]?.imports ?? []) {
      if (i.kind === 'import-statement' && !initial.has(path.basename(i.path))) {
        initial.add(path.basename(i.path));
        addImports(path.basename(i.path));
      }
    }
  };
  addImports(js);
  const template = await readFile(path.join(root, 'console/index.html'), 'utf8');
  const html = template.replace('%CONSOLE_CSS%', `console/assets/${css}`).replace('%CONSOLE_JS%', `console/assets/${js}`);
  await writeFile(path.join(outdir, 'index.html'), html);
  const sizes = {};
  for (const file of outputs.filter((f) => !f.endsWith('.map'))) {
    const bytes = await readFile(path.join(assets, file));
    sizes[file] = { bytes: bytes.length, gzip: gzipSync(bytes).length, initial: initial.has(file) };
  }
  if (!quiet) {
    const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
    const sum = (pick) => Object.values(sizes).filter(pick).reduce((a, s) => ({ bytes: a.bytes + s.bytes, gzip: a.gzip + s.gzip }), { bytes: 0, gzip: 0 });
    const line = Object.entries(sizes).map(([file, s]) => `${file} ${kib(s.bytes)} (${kib(s.gzip)} gzip)${s.initial ? '' : ' on demand'}`);
    const first = sum((s) => s.initial);
    const later = sum((s) => !s.initial);
    console.log(`console: ${line.join(', ')}\nconsole: first load ${kib(first.bytes)} (${kib(first.gzip)} gzip), on demand ${kib(later.bytes)} (${kib(later.gzip)} gzip)`);
  }
  return { outdir, js, css, sizes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildConsole();
}
