// Runs a script against the built host (dist/host) in a node process of its own, for what a
// test worker cannot show: process-wide flags (--expose-gc) and whether the process stays alive.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HOST_ENTRY = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'host', 'index.js')).href;

/**
 * `body` runs as an ES module with `createHost` imported; what it prints to stdout is returned,
 * parsed as JSON. The process gets --no-node-snapshot and `flags`.
 */
export function runInHostProcess(body: string, flags: string[] = []): unknown {
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-process-'));
  try {
    const file = path.join(dir, 'script.mjs');
    writeFileSync(file, `const { createHost } = await import(${JSON.stringify(HOST_ENTRY)});\n${body}`);
    const out = execFileSync(process.execPath, ['--no-node-snapshot', ...flags, file], { encoding: 'utf8' });
    return JSON.parse(out.trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
