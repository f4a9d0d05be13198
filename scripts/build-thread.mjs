// Bundles the sandbox thread's module (host/engine/threads/thread-entry.ts) with esbuild into
// dist/thread/: the host starts its worker threads from this file, from dist/ and from source
// alike (a worker does not inherit the TypeScript loader of tests or tsx). Dependencies stay
// external, resolved from node_modules. Split into chunks, so that what the entry imports only
// when asked (thread-network.ts, with undici, ssh2, net-snmp, node-forge) is not loaded by
// every thread.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function buildThread({ outdir = path.join(root, 'dist/thread') } = {}) {
  // Chunks are named by their content: those of an earlier build must not linger.
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: { 'thread-entry': 'host/engine/threads/thread-entry.ts' },
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  return outdir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildThread();
}
