// A sandbox thread's end must never take the process with it. Hosts made and closed one after
// another (as runDriver does for each run) start and end a thread each time; a thread that ends
// while V8 is part-way through marking its heap once aborted the whole process in isolated-vm's
// teardown (host/engine/threads/thread-entry.ts, collectThenExit). That abort would end this test
// file's process, so the test fails as "Worker exited unexpectedly". What made it likely was a
// thread that loaded every network package at start, though it needed none of them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createHost } from '../../host/index.js';
import { threadModule } from '../../host/engine/threads/thread-module.js';

const NETWORK_PACKAGES = ['undici', 'tough-cookie', 'ssh2', 'net-snmp', 'node-forge'];

/** Every module a file loads before its first line runs: its static imports, followed through relative files. */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  // `import … from 'x'`, `import 'x'`, `export … from 'x'`; never `import('x')`.
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?:[\w*{}\s,$]*?\s*from\s*)?["']([^"']+)["']/g)) {
    const spec = match[1]!;
    if (spec.startsWith('.')) staticImports(path.resolve(path.dirname(file), spec), seen);
    else seen.add(spec);
  }
  return seen;
}

const DRIVERS = [
  `function get_status() { var $ = D.htmlParse('<p class="a">x</p>'); D.success([D.createVariable('t', 'T', $('p.a').text())]); }`,
  `function get_status() { D.success([D.createVariable('t', 'T', D._.map([1, 2], function (n) { return n + 1; }).join(','))]); }`,
  `function get_status() { D.q.all([D.q(1), D.q(2)]).then(function (v) { D.success([D.createVariable('t', 'T', v.join(','))]); }); }`,
  `function get_status() { setTimeout(function () { D.success([D.createVariable('t', 'T', 'late')]); }, 2); }`,
];
const EXPECTED = ['x', '2,3', '1,2', 'late'];

describe('sandbox threads end cleanly', () => {
  it('a thread loads no network package until a run does its network there', () => {
    const fromSource = staticImports(fileURLToPath(threadModule()));
    const built = staticImports(path.join(path.dirname(fileURLToPath(import.meta.url)), '../..', 'dist', 'host', 'engine', 'threads', 'thread-entry.js'));
    for (const loaded of [fromSource, built]) {
      expect(loaded).toContain('node:worker_threads'); // the walk reads the entry's own imports
      expect([...loaded].filter((spec) => NETWORK_PACKAGES.some((name) => spec === name || spec.startsWith(`${name}/`)))).toEqual([]);
    }
  });

  it('sixty hosts in a row, each with its own thread, run and close, and the process lives on', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      const host = createHost({ threads: 1, warmIsolates: 1 });
      try {
        const result = await host.run({ source: DRIVERS[i % DRIVERS.length]!, filename: 'driver.js' });
        expect(result.status, `${result.errorType}: ${result.message}`).toBe('success');
        seen.push(String(result.variables[0]?.value));
      } finally {
        await host.close();
      }
    }
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => EXPECTED[i % EXPECTED.length]));
  }, 120_000);
});
