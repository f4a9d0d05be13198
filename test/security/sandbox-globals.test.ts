// The audit of a fresh isolated-vm context's globals (issue 17, cause 3): each thing the
// runtime removes (runtime/unsupported.ts) is shown harmful in a bare isolated-vm context, in a
// child process (so that an abort does not take the test runner with it), and shown gone, with
// the run and the host healthy, through createHost; what is kept is shown working.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadIsolatedVm } from '../../host/platform/isolated-vm.js';
import { useHost } from '../helpers/host.js';
import { attack, reported } from './harness.js';

// The isolated-vm line driverbox itself loads on this Node.
const ivmPath = loadIsolatedVm().path;
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-globals-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `code` in a bare isolated-vm context (64 MB) in a child process: its output, exit code and signal. */
function bare(code: string): { out: string; status: number | null; signal: string | null } {
  const file = path.join(work, `probe-${Math.random().toString(36).slice(2)}.cjs`);
  writeFileSync(
    file,
    `const ivm = require(${JSON.stringify(ivmPath)});
    const isolate = new ivm.Isolate({ memoryLimit: 64 });
    const context = isolate.createContextSync();
    let out;
    try { out = String(context.evalSync(${JSON.stringify(code)}, { timeout: 2000 })); } catch (e) { out = 'threw ' + e.message; }
    setTimeout(() => { console.log(out); isolate.dispose(); }, 200);`,
  );
  const child = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
  return { out: child.stdout.trim(), status: child.status, signal: child.signal };
}

describe('security: unsupported globals are removed', () => {
  const host = useHost();

  it('K10 Atomics.waitAsync with a timeout aborts a bare isolated-vm process; a driver has no Atomics.waitAsync', async () => {
    const probe = bare(`Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); 'survived'`);
    // isolated-vm 5 aborts; 6 (Node 22, 24) survives it. Drivers lose it on every line alike.
    if (loadIsolatedVm().alias === 'isolated-vm-5') expect(probe.signal).toBe('SIGABRT');
    else expect([probe.out, probe.signal]).toEqual(['survived', null]);
    const r = await attack(host, `function get_status() { D.success([D.createVariable('found', 'Found', typeof Atomics.waitAsync + ',' + ('waitAsync' in Atomics))]); }`);
    expect(reported(r)).toBe('undefined,false');
    const call = await attack(host, `function get_status() { Atomics.waitAsync(new Int32Array(4), 0, 0, 10); }`);
    expect(call.message).toMatch(/^TypeError: Atomics\.waitAsync is not a function\n    at get_status \(driver\.js:1:\d+\)$/);
  });

  it('K11 Atomics.wait blocks a bare context\'s thread without CPU; a driver has no Atomics.wait (the other Atomics work)', async () => {
    const probe = bare(`const t = Date.now(); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); Date.now() - t >= 290`);
    expect(probe.out).toBe('true');
    const r = await attack(
      host,
      `function get_status() { var a = new Int32Array(2); Atomics.add(a, 0, 5); Atomics.store(a, 1, 7);
        D.success([D.createVariable('found', 'Found', [typeof Atomics.wait, Atomics.load(a, 0), Atomics.load(a, 1), typeof Atomics.notify].join(','))]); }`,
    );
    expect(reported(r)).toBe('undefined,5,7,function');
  });

  it('K12 a growable SharedArrayBuffer or resizable ArrayBuffer takes memory past a bare isolate\'s limit; a driver has neither', async () => {
    expect(bare(`const b = new SharedArrayBuffer(1, { maxByteLength: 2 ** 31 }); b.grow(2 ** 30); b.byteLength`).out).toBe(String(2 ** 30));
    expect(bare(`const b = new ArrayBuffer(1, { maxByteLength: 2 ** 31 }); b.resize(2 ** 30); b.byteLength`).out).toBe(String(2 ** 30));
    // Each resizable buffer reserves its maximum in the process's address space: enough of them crash it.
    expect(bare(`const a = []; for (let i = 0; i < 40000; i++) a.push(new ArrayBuffer(1, { maxByteLength: 2 ** 32 })); a.length`).signal).toMatch(/^SIG(SEGV|TRAP|ABRT)$/);
    const r = await attack(
      host,
      `function get_status() {
        var b = new ArrayBuffer(1, { maxByteLength: 2 ** 31 });
        D.success([D.createVariable('found', 'Found', [typeof SharedArrayBuffer, b.resizable, b.maxByteLength, typeof b.resize, typeof ArrayBuffer.prototype.resize,
          b instanceof ArrayBuffer, new Uint8Array(8).buffer instanceof ArrayBuffer, ArrayBuffer.isView(new Uint8Array(1)), new ArrayBuffer(4).slice(1).byteLength,
          (function () { try { ArrayBuffer(1); return 'called'; } catch (e) { return e.name; } })()].join(','))]);
      }`,
      { limits: { memoryMb: 32 } },
    );
    expect(reported(r)).toBe('undefined,false,1,undefined,undefined,true,true,true,3,TypeError');
    const many = await attack(host, `function get_status() { var a = []; for (var i = 0; i < 40000; i++) a.push(new ArrayBuffer(1, { maxByteLength: 2 ** 32 })); D.success([D.createVariable('found', 'Found', String(a.length))]); }`);
    expect(reported(many)).toBe('40000');
  });

  it('K13 FinalizationRegistry is gone (its callbacks would run outside any call, so outside the limits); WeakRef stays', async () => {
    const r = await attack(
      host,
      `function get_status() { var o = {}; var w = new WeakRef(o);
        D.success([D.createVariable('found', 'Found', [typeof FinalizationRegistry, w.deref() === o].join(','))]); }`,
    );
    expect(reported(r)).toBe('undefined,true');
  });

  it('K14 what is kept works under the limits: Intl, eval, Error.captureStackTrace, Error.prepareStackTrace', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var o = {}; Error.captureStackTrace(o);
        Error.prepareStackTrace = function (e, frames) { return 'frames:' + frames.length; };
        var custom = new Error('x').stack;
        delete Error.prepareStackTrace;
        D.success([D.createVariable('found', 'Found', [new Intl.NumberFormat('de-DE').format(1234.5), eval('1 + 1'), typeof o.stack, custom.indexOf('frames:') === 0].join('|'))]);
      }`,
    );
    expect(reported(r)).toBe('1.234,5|2|string|true');
  });

  it('K15 the gc() of a host started with --expose-gc is not the driver\'s (checked in a host process of its own)', () => {
    const file = path.join(work, 'gc.mjs');
    const entry = new URL('../../dist/host/index.js', import.meta.url).href;
    writeFileSync(
      file,
      `const { createHost } = await import(${JSON.stringify(entry)});
      const host = createHost();
      const r = await host.run({ source: "function get_status() { D.success([D.createVariable('g', 'G', typeof gc)]); }" });
      console.log(r.variables[0].value); await host.close();`,
    );
    expect(execFileSync(process.execPath, ['--no-node-snapshot', '--expose-gc', file], { encoding: 'utf8' }).trim()).toBe('undefined');
  });
});
