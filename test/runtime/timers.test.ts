// Timers for drivers (issue 18 item 7): setTimeout / clearTimeout / setInterval / clearInterval
// as globals of the sandbox, on the host's scheduler, bounded by the run's deadline and maxTimers.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DriverboxError } from '../../host/index.js';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost();
const value = (result: { variables: Array<{ uid: string; value: string | null }> }, uid: string) => result.variables.find((v) => v.uid === uid)?.value;

describe('setTimeout', () => {
  it('fires after its delay, with the extra arguments, and returns a number', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         var started = Date.now();
         var id = setTimeout(function (a, b) {
           D.success([D.createVariable('args', 'args', a + '+' + b), D.createVariable('waited', 'waited', Date.now() - started), D.createVariable('id', 'id', typeof id)]);
         }, 60, 'x', 42);
       }`,
    );
    expect(result.status, result.message ?? '').toBe('success');
    expect(value(result, 'args')).toBe('x+42');
    expect(Number(value(result, 'waited'))).toBeGreaterThanOrEqual(55);
    expect(value(result, 'id')).toBe('number');
  });

  it('fires in the order of due time; 0, negative, NaN and text delays are 0', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         var order = [];
         setTimeout(function () { order.push('b'); }, 30);
         setTimeout(function () { order.push('a'); }, 0);
         setTimeout(function () { order.push('n'); }, -5);
         setTimeout(function () { order.push('nan'); }, NaN);
         setTimeout(function () { order.push('s'); }, '5');
         setTimeout(function () { D.success([D.createVariable('order', 'order', order.join(','))]); }, 80);
       }`,
    );
    expect(value(result, 'order')).toBe('a,n,nan,s,b');
  });

  it('clearTimeout cancels; an unknown id, undefined or a string is harmless', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         var fired = false;
         var id = setTimeout(function () { fired = true; }, 10);
         clearTimeout(id);
         clearTimeout(id);
         clearTimeout(123456);
         clearTimeout(undefined);
         clearTimeout('x');
         clearInterval(999);
         setTimeout(function () { D.success([D.createVariable('fired', 'fired', fired)]); }, 50);
       }`,
    );
    expect(result.status).toBe('success');
    expect(value(result, 'fired')).toBe('false');
  });

  it('a pending timer keeps the run alive; the run ends once nothing is pending', async () => {
    const result = await runSource(host, `function get_status() { setTimeout(function () { console.log('fired'); }, 20); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.message).toMatch(/returned without calling D.success or D.failure, and no request or timer is pending/);
    expect(result.logs).toEqual([{ level: 'log', message: 'fired' }]);
  });

  it('a string callback is refused with a clear error (no eval)', async () => {
    const result = await runSource(host, `function get_status() { setTimeout("D.success()", 10); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toMatch(/^TypeError: setTimeout: a string of code as the callback is not allowed in a driver \(it would be eval\); pass a function/);
    expect(result.message).toMatch(/at get_status \(driver\.js:1:\d+\)/);
  });

  it('a callback that is not a function is refused', async () => {
    const result = await runSource(host, `function get_status() { setInterval({}, 10); }`);
    expect(result.message).toMatch(/^TypeError: setInterval: the callback must be a function \(got object\)/);
  });

  it('an exception in a timer callback is the driver\'s uncaught error, with its line', async () => {
    const result = await runSource(host, `function get_status() {\n  setTimeout(function () {\n    throw new Error('boom in timer');\n  }, 5);\n}`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toMatch(/^Error: boom in timer\n {4}at driver\.js:3:11/);
  });

  it('works at the top level; in a sloppy-mode callback `this` is globalThis, as in browsers', async () => {
    const result = await runSource(host, `var t = null; setTimeout(function () { t = this === globalThis; }, 0);\nfunction get_status() { setTimeout(function () { D.success([D.createVariable('t', 't', t)]); }, 20); }`);
    expect(value(result, 't')).toBe('true');
  });
});

describe('setInterval', () => {
  it('fires repeatedly until cleared, from inside its own callback', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         var n = 0;
         var id = setInterval(function (step) {
           n += step;
           if (n === 3) {
             clearInterval(id);
             setTimeout(function () { D.success([D.createVariable('n', 'n', n)]); }, 60);
           }
         }, 15, 1);
       }`,
    );
    expect(result.status, result.message ?? '').toBe('success');
    expect(value(result, 'n')).toBe('3');
  });

  it('a 0 ms interval is clamped to 10 ms: it cannot spin', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         var n = 0, started = Date.now();
         setInterval(function () { n++; }, 0);
         setTimeout(function () { D.success([D.createVariable('n', 'n', n), D.createVariable('ms', 'ms', Date.now() - started)]); }, 200);
       }`,
    );
    expect(result.status).toBe('success');
    const n = Number(value(result, 'n'));
    const ms = Number(value(result, 'ms'));
    expect(n).toBeGreaterThan(3);
    expect(n).toBeLessThanOrEqual(Math.ceil(ms / 10) + 1);
  });

  it('clearTimeout clears an interval too', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         var n = 0;
         var id = setInterval(function () { n++; if (n === 2) clearTimeout(id); }, 10);
         setTimeout(function () { D.success([D.createVariable('n', 'n', n)]); }, 120);
       }`,
    );
    expect(value(result, 'n')).toBe('2');
  });
});

describe('bounds', () => {
  it('a timer due after the deadline never fires; the run ends at its deadline and a warning says why', async () => {
    const result = await runSource(host, `function get_status() { setTimeout(function () { D.success(); }, 5000); }`, { limits: { timeoutMs: 300 } });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.durationMs).toBeLessThan(2_000);
    expect(result.warnings).toContain("a timer of 5000 ms is due after the run's 300 ms deadline: it never fires (the run ends at its deadline unless the driver ends it first)");
  });

  it('an interval stops with the run at its deadline', async () => {
    const result = await runSource(host, `function get_status() { setInterval(function () { console.log('tick'); }, 40); }`, { limits: { timeoutMs: 300 } });
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.logs.length).toBeGreaterThanOrEqual(3);
    expect(result.logs.length).toBeLessThanOrEqual(8);
  });

  it('maxTimers: the timer past it throws a RangeError in the driver (an interval counts once, D.q.delay counts)', async () => {
    const driver = `function get_status() {
      var refused = null;
      setInterval(function () {}, 10);
      D.q.delay(1);
      for (var i = 0; i < 10; i++) {
        try { setTimeout(function () {}, 1); } catch (e) { refused = refused || (e.name + ' at ' + i + ': ' + e.message); }
      }
      setTimeout(function () { D.success([D.createVariable('refused', 'refused', refused)]); }, 100);
    }`;
    const result = await runSource(host, driver, { limits: { maxTimers: 5 } });
    // 1 interval + 1 delay + 3 timeouts = 5: the 4th setTimeout (i = 3) and the final one are refused…
    expect(result.status).toBe('failure');
    expect(result.message).toMatch(/^RangeError: this run already started 5 timers \(setTimeout, setInterval, D\.q\.delay\), its limit \(maxTimers/);
    const roomy = await runSource(host, driver, { limits: { maxTimers: 20 } });
    expect(roomy.status, roomy.message ?? '').toBe('success');
    expect(value(roomy, 'refused')).toBeNull();
  });

  it('the limit is checked like the others', async () => {
    await expect(runSource(host, `function get_status() { D.success(); }`, { limits: { maxTimers: -1 } })).rejects.toThrow(DriverboxError);
    await expect(runSource(host, `function get_status() { D.success(); }`, { limits: { maxTimers: 1.5 } })).rejects.toThrow(/limit maxTimers must be an integer >= 0/);
  });

  it('typeof feature tests see the timers as functions', async () => {
    const result = await runSource(host, `function get_status() { D.success([D.createVariable('t', 't', [typeof setTimeout, typeof clearTimeout, typeof setInterval, typeof clearInterval].join())]); }`);
    expect(value(result, 't')).toBe('function,function,function,function');
  });
});

describe('through the CLI', () => {
  it('driverbox run: a driver that waits with setTimeout between two steps succeeds', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'driverbox-timers-'));
    const file = path.join(dir, 'wait.js');
    await writeFile(file, `function validate() { D.success(); }\nfunction get_status() { setTimeout(function (v) { D.success([D.createVariable('v', 'V', v)]); }, 50, 'later'); }\n`);
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('bin/driverbox.js'), 'run', file, '--json'], { timeout: 60_000 });
    const result = JSON.parse(stdout) as { status: string; variables: Array<{ uid: string; value: string }> };
    expect(result.status).toBe('success');
    expect(result.variables).toEqual([expect.objectContaining({ uid: 'v', value: 'later' })]);
  });
});
