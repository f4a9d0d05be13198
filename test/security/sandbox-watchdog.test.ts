// The watchdog on the host thread (issue 17, cause 2): a sandbox thread stuck outside every limit
// (no known driver can do that any more, so the test-only fault DRIVERBOX_TEST_WEDGE_THREAD holds
// one: set in this process before the host starts, out of any driver's reach) has its run answered
// with TIMEOUT_ERROR shortly after the deadline, is stopped and replaced; runs waiting behind it
// run on the new thread. And through the real `driverbox run`: the hang and crash classes end
// with a result and a normal exit.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { WATCHDOG_MARGIN_MS } from '../../host/engine/threads/sandbox-thread.js';
import { runSource, useHost } from '../helpers/host.js';
import { expectHealthy } from './harness.js';

const MARK = 'K16-WEDGE-THIS-THREAD';

describe('security: the watchdog', () => {
  process.env.DRIVERBOX_TEST_WEDGE_THREAD = MARK; // read by each sandbox thread as it starts
  const host = useHost({ threads: 1, maxIsolates: 1, warmIsolates: 1 });
  delete process.env.DRIVERBOX_TEST_WEDGE_THREAD;

  it('K16 a stuck sandbox thread: its run ends with TIMEOUT_ERROR, the thread is replaced, the run queued behind it runs', async () => {
    const started = performance.now();
    const stuck = runSource(host, `// ${MARK}\nfunction get_status() { D.success(); }`, { limits: { timeoutMs: 500 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // One isolate, one thread: this run waits for room behind the stuck one.
    const queued = runSource(host, `function get_status() { D.success([D.createVariable('found', 'Found', 'ran')]); }`, { limits: { timeoutMs: 10_000 } });
    const r = await stuck;
    const took = performance.now() - started;
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(r.limitExceeded).toBe('timeout');
    expect(r.message).toBe(`the run was still going ${WATCHDOG_MARGIN_MS} ms after its 500 ms deadline and its sandbox thread did not answer: the watchdog ended it`);
    expect(took).toBeGreaterThanOrEqual(500 + WATCHDOG_MARGIN_MS - 50);
    expect(took).toBeLessThan(500 + WATCHDOG_MARGIN_MS + 1_500);
    const next = await queued;
    expect(next.status, next.message ?? '').toBe('success');
    expect(next.variables.map((v) => v.value)).toEqual(['ran']);
    expect(host.stats().threadsStopped).toBe(1);
    await expectHealthy(host);
  });

  it('K17 a run whose thread is merely busy past its deadline is answered by its own thread, and the thread is kept', async () => {
    const before = host.stats().threadsStopped;
    const r = await runSource(host, `function get_status() { while (true) {} }`, { limits: { timeoutMs: 400 } });
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(r.message).toBe("the driver's code was still running at the 400 ms deadline (an endless loop?); it was stopped in get_status (driver.js:1:25)");
    expect(host.stats().threadsStopped).toBe(before);
  });
});

describe('security: `driverbox run` against the hang and crash classes', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'driverbox-k-cli-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const bin = path.resolve('bin/driverbox.js');

  async function run(source: string, args: string[] = [], env: Record<string, string> = {}) {
    const file = path.join(work, `driver-${Math.random().toString(36).slice(2)}.js`);
    writeFileSync(file, source);
    const started = performance.now();
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [bin, 'run', file, '--json', ...args], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1', ...env }, timeout: 30_000 });
      return { code: 0, signal: null, result: JSON.parse(stdout) as Record<string, unknown>, ms: performance.now() - started };
    } catch (error) {
      const e = error as { code: number | string; signal: string | null; stdout: string; stderr: string };
      let result: Record<string, unknown> | null = null;
      try {
        result = JSON.parse(e.stdout) as Record<string, unknown>;
      } catch {
        // no JSON: asserted below
      }
      return { code: e.code, signal: e.signal, result, stderr: e.stderr, ms: performance.now() - started };
    }
  }

  it.each([
    ['a top-level throw whose message getter loops', `throw { get message() { while (true) {} } };`, 'TIMEOUT_ERROR'],
    ['a Proxy whose traps loop as the script\'s last value, then an entry point that throws one', `function get_status() { throw new Proxy({}, { get: function () { while (true) {} } }); }\nnew Proxy({}, { get: function () { while (true) {} } });`, 'TIMEOUT_ERROR'],
    ['Atomics.waitAsync with a timeout', `function get_status() { Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); }`, 'GENERIC_ERROR'],
    ['a replaced Array.prototype.join before a request', `function get_status() { Array.prototype.join = function () { return 'garbage'; }; D.device.http.get('/x', function (err) { D.failure(D.errorType.RESOURCE_UNAVAILABLE); }); }`, 'RESOURCE_UNAVAILABLE'],
  ])('K18 %s: the run fails with a result, the process exits normally', async (_what, source, errorType) => {
    const out = await run(source, ['--timeout', '1000', '--device-ip', '127.0.0.1', '--port-map', '80=9']);
    expect(out.signal).toBe(null);
    expect(out.code).toBe(1);
    expect(out.result).toMatchObject({ status: 'failure', errorType });
    expect(out.ms).toBeLessThan(15_000);
  });

  it('K19 a stuck sandbox thread (the test-only fault): the run ends with TIMEOUT_ERROR and the process exits', async () => {
    const out = await run(`// ${MARK}\nfunction get_status() { D.success(); }`, ['--timeout', '500'], { DRIVERBOX_TEST_WEDGE_THREAD: MARK });
    expect(out.signal).toBe(null);
    expect(out.code).toBe(1);
    expect(out.result).toMatchObject({ status: 'failure', errorType: 'TIMEOUT_ERROR' });
    expect(out.ms).toBeLessThan(500 + WATCHDOG_MARGIN_MS + 5_000);
  });
});
