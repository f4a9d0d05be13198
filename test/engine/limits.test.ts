// Host limits: wall-clock deadline, CPU budget, memory, and that the pool recovers
// (the isolate that hit a limit is replaced and the next run on the same host succeeds).
import { describe, expect, it } from 'vitest';
import { createHost, DriverboxError, type Host, type RunResult } from '../../host/index.js';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost();

const OK_DRIVER = `function get_status() { D.success([D.createVariable('ok', 'OK', 'yes')]); }`;

/** The next run on the same host succeeds, and the isolate of the run before was disposed. */
async function expectPoolHealthy(disposedBefore: number) {
  // The host may answer a run at its deadline before the thread has stopped the isolate and said
  // so (the thread's own timeout ends the script a moment later): wait for that word.
  for (let i = 0; i < 500 && host.stats().disposed <= disposedBefore; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(host.stats().disposed).toBeGreaterThan(disposedBefore);
  const next = await runSource(host, OK_DRIVER);
  expect(next.status).toBe('success');
  expect(next.variables).toEqual([{ uid: 'ok', label: 'OK', value: 'yes', unit: null, valueType: 'STRING' }]);
  expect(host.stats().busy).toBe(0);
}

async function runAndCheck(source: string, limits: Record<string, number>): Promise<RunResult> {
  const disposedBefore = host.stats().disposed;
  const result = await runSource(host, source, { limits });
  await expectPoolHealthy(disposedBefore);
  return result;
}

describe('endless loops hit the deadline', () => {
  const limits = { timeoutMs: 400 };
  // The host's deadline timer and the isolate's own timeout fire at the same moment; either may report it.
  const deadlineMessage = /^the driver(?: did not call D\.success or D\.failure within|'s code was still running at) the 400 ms deadline/;

  it('at top level', async () => {
    const result = await runAndCheck(`while (true) {}\nfunction get_status() { D.success(); }`, limits);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.limitExceeded).toBe('timeout');
    expect(result.message).toMatch(deadlineMessage);
    expect(result.durationMs).toBeGreaterThanOrEqual(390);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('in the entry function', async () => {
    const result = await runAndCheck(`function get_status() { console.info('looping'); for (;;) {} }`, limits);
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.limitExceeded).toBe('timeout');
    expect(result.message).toMatch(deadlineMessage);
    expect(result.logs).toEqual([{ level: 'info', message: 'looping' }]);
  });

  it('inside a q callback', async () => {
    const result = await runAndCheck(`function get_status() { D.q.delay(1).then(function () { while (true) {} }); }`, limits);
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.limitExceeded).toBe('timeout');
    expect(result.message).toMatch(deadlineMessage);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('inside a q callback after some time has passed (only the remaining budget is given)', async () => {
    const result = await runAndCheck(`function get_status() { D.q.delay(250).then(function () { while (true) {} }); }`, limits);
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.limitExceeded).toBe('timeout');
    expect(result.durationMs).toBeGreaterThanOrEqual(390);
    expect(result.durationMs).toBeLessThan(1_000);
  });

  it('after D.success, a loop does not change the outcome (the host answers after a 1 s grace), and the isolate is replaced', async () => {
    const disposedBefore = host.stats().disposed;
    const result = await runSource(host, `function get_status() { D.success([D.createVariable('a', 'A', 1)]); while (true) {} }`, {
      limits: { timeoutMs: 3_000 },
    });
    expect(result.status).toBe('success');
    expect(result.limitExceeded).toBeNull();
    expect(result.variables.map((v) => v.uid)).toEqual(['a']);
    expect(result.durationMs).toBeGreaterThanOrEqual(990);
    expect(result.durationMs).toBeLessThan(2_500);
    expect(result.warnings.join('\n')).toContain('still running 1000 ms after it ended the run');
    // Its sandbox thread is busy until the loop hits the run's time limit; then the isolate goes.
    await expect.poll(() => host.stats().disposed, { timeout: 5_000, interval: 50 }).toBeGreaterThan(disposedBefore);
    await expectPoolHealthy(disposedBefore);
  });

  it('the same with a result too large for the report slot (300 kB of logs): it is posted instead', async () => {
    const disposedBefore = host.stats().disposed;
    const result = await runSource(
      host,
      `function get_status() { for (var i = 0; i < 300; i++) console.log(i + ':' + 'x'.repeat(1000)); D.success([D.createVariable('a', 'A', 1)]); while (true) {} }`,
      { limits: { timeoutMs: 3_000 } },
    );
    expect(result.status).toBe('success');
    expect(result.variables.map((v) => v.uid)).toEqual(['a']);
    expect(result.logs).toHaveLength(300);
    expect(result.logs[299]!.message.startsWith('299:x')).toBe(true);
    expect(result.durationMs).toBeGreaterThanOrEqual(990);
    expect(result.durationMs).toBeLessThan(2_500);
    expect(result.warnings.join('\n')).toContain('still running 1000 ms after it ended the run');
    await expect.poll(() => host.stats().disposed, { timeout: 5_000, interval: 50 }).toBeGreaterThan(disposedBefore);
    await expectPoolHealthy(disposedBefore);
  });
});

describe('CPU budget', () => {
  it('a loop ends with limitExceeded "cpu" when cpuTimeMs is smaller than timeoutMs', async () => {
    const result = await runAndCheck(`function get_status() { while (true) {} }`, { cpuTimeMs: 300, timeoutMs: 5_000 });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.limitExceeded).toBe('cpu');
    expect(result.message).toBe('the driver used more than its CPU time limit of 300 ms; it was stopped in get_status (driver.js:1:25)');
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it("a kill by the CPU limit or the deadline names the driver's line that was running, and its callers", async () => {
    const source = `function get_status() {\n  var n = 0;\n  helper();\n}\nfunction helper() {\n  var y = 0;\n  while (true) {\n    y = (y + 1) % 7;\n  }\n}`;
    const cpu = await runAndCheck(source, { cpuTimeMs: 300, timeoutMs: 5_000 });
    expect(cpu.limitExceeded).toBe('cpu');
    expect(cpu.message).toMatch(/^the driver used more than its CPU time limit of 300 ms; it was stopped in helper \(driver\.js:[78]:\d+\), called from get_status \(driver\.js:3:3\)$/);
    const wall = await runAndCheck(source, { cpuTimeMs: 5_000, timeoutMs: 300 });
    expect(wall.limitExceeded).toBe('timeout');
    expect(wall.message).toMatch(/^the driver's code was still running at the 300 ms deadline \(an endless loop\?\); it was stopped in helper \(driver\.js:[78]:\d+\), called from get_status \(driver\.js:3:3\)$/);
  });

  it('CPU spread over several callbacks adds up', async () => {
    const source = `function spin(ms) { var end = Date.now() + ms; while (Date.now() < end) {} }
function step(n) { spin(100); if (n > 0) D.q.delay(1).then(function () { step(n - 1); }); else D.success(); }
function get_status() { step(20); }`;
    const result = await runAndCheck(source, { cpuTimeMs: 350, timeoutMs: 5_000 });
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.limitExceeded).toBe('cpu');
    // Stopped inside a call (its line named), or between two calls (no line to name).
    expect(result.message).toMatch(/^the driver used more than its CPU time limit of 350 ms(; it was stopped in spin \(driver\.js:1:\d+\), called from step \(driver\.js:2:\d+\).*)?$/);
    expect(result.durationMs).toBeLessThan(2_000);
  });
});

describe('memory', () => {
  it('a memory bomb fails with the limit named, limitExceeded "memory"', async () => {
    const result = await runAndCheck(
      `function get_status() { var hoard = []; while (true) { hoard.push(new Array(100000).fill(Math.random())); } }`,
      { memoryMb: 32, timeoutMs: 5_000 },
    );
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('the driver exceeded the memory limit of 32 MB');
    expect(result.limitExceeded).toBe('memory');
  });

  it('a bomb of small objects at top level too', async () => {
    const result = await runAndCheck(`var keep = [];\nwhile (true) { keep.push({ n: keep.length, s: 'item ' + keep.length }); }`, { memoryMb: 32, timeoutMs: 5_000 });
    expect(result.status).toBe('failure');
    expect(result.limitExceeded).toBe('memory');
    expect(result.message).toBe('the driver exceeded the memory limit of 32 MB');
  });

  it('a small driver fits in 32 MB', async () => {
    const result = await runSource(host, OK_DRIVER, { limits: { memoryMb: 32 } });
    expect(result.status).toBe('success');
  });
});

describe('the pool under load', () => {
  it('6 concurrent runs all succeed with their own results', async () => {
    const runs = Array.from({ length: 6 }, (_, i) =>
      runSource(
        host,
        `var mine = ${i};\nfunction get_status() { D.q.delay(${30 - i * 5}).then(function () { D.success([D.createVariable('n', 'N', mine * 10 + D.getParameter('k'))]); }); }`,
        { parameters: { k: i } },
      ),
    );
    const results = await Promise.all(runs);
    expect(results.map((r) => r.status)).toEqual(Array(6).fill('success'));
    expect(results.map((r) => r.variables[0].value)).toEqual(['0', '11', '22', '33', '44', '55']);
    expect(host.stats().busy).toBe(0);
  });

  it('a run hitting a limit does not disturb runs next to it', async () => {
    const [looping, ...others] = await Promise.all([
      runSource(host, `function get_status() { while (true) {} }`, { limits: { timeoutMs: 300 } }),
      ...Array.from({ length: 3 }, (_, i) => runSource(host, `function get_status() { D.q.delay(50).then(function () { D.success([D.createVariable('i', 'I', ${i})]); }); }`)),
    ]);
    expect(looping.limitExceeded).toBe('timeout');
    expect(others.map((r) => [r.status, r.variables[0]?.value])).toEqual([
      ['success', '0'],
      ['success', '1'],
      ['success', '2'],
    ]);
  });

  it('stats() counts isolates', async () => {
    const stats = host.stats();
    expect(stats.created).toBeGreaterThanOrEqual(stats.disposed);
    expect(stats.alive).toBe(stats.created - stats.disposed);
    expect(stats.busy).toBe(0);
    expect(stats.waiting).toBe(0);
  });
});

describe('a run that never ends by the deadline', () => {
  it('a driver that keeps scheduling work but never ends gets TIMEOUT_ERROR at the deadline', async () => {
    const result = await runSource(
      host,
      `var ticks = 0;\nfunction tick() { ticks++; D.q.delay(10).then(tick); }\nfunction get_status() { console.info('start'); tick(); }`,
      { limits: { timeoutMs: 500 } },
    );
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.limitExceeded).toBe('timeout');
    expect(result.message).toBe('the driver did not call D.success or D.failure within the 500 ms deadline');
    expect(result.logs).toEqual([{ level: 'info', message: 'start' }]);
    expect(result.durationMs).toBeGreaterThanOrEqual(495);
    expect(result.durationMs).toBeLessThan(2_000);
    const next = await runSource(host, OK_DRIVER);
    expect(next.status).toBe('success');
  });
});

describe('limits given by the caller', () => {
  it('host-level limits apply to every run, and a run may override them', async () => {
    const strict = createHost({ limits: { maxVariables: 1 }, warmIsolates: 0 });
    try {
      const two = `function get_status() { D.success([D.createVariable('a', 'A', 1), D.createVariable('b', 'B', 2)]); }`;
      expect((await runSource(strict, two)).errorType).toBe('TOO_MANY_VARIABLES_ERROR');
      expect((await runSource(strict, two, { limits: { maxVariables: 2 } })).status).toBe('success');
    } finally {
      await strict.close();
    }
  });

  it.each([
    [{ timeoutMs: 0 }, 'limit timeoutMs must be an integer >= 1 (got 0)'],
    [{ memoryMb: 4 }, 'limit memoryMb must be an integer >= 8 (got 4)'],
    [{ maxVariables: 1.5 }, 'limit maxVariables must be an integer >= 0 (got 1.5)'],
    [{ noSuchLimit: 1 }, 'unknown limit "noSuchLimit"'],
    // past what a timer can wait, Node fires it at once: the run would time out immediately
    [{ timeoutMs: 2 ** 31 }, 'limit timeoutMs must be at most 2147483647 ms'],
    [{ cpuTimeMs: 1e15 }, 'limit cpuTimeMs must be at most 2147483647 ms'],
  ])('invalid limits %j are refused with INVALID_OPTIONS', async (limits, message) => {
    const run = runSource(host, OK_DRIVER, { limits: limits as Record<string, number> });
    await expect(run).rejects.toBeInstanceOf(DriverboxError);
    await expect(run).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(run).rejects.toThrow(message);
  });
});

describe('host.close()', () => {
  let closing: Host;
  it('a run after close rejects with HOST_CLOSED', async () => {
    closing = createHost({ warmIsolates: 1 });
    expect((await runSource(closing, OK_DRIVER)).status).toBe('success');
    await closing.close();
    const run = runSource(closing, OK_DRIVER);
    await expect(run).rejects.toBeInstanceOf(DriverboxError);
    await expect(run).rejects.toMatchObject({ code: 'HOST_CLOSED', message: 'the host is closed' });
    expect(closing.stats().alive).toBe(0);
  });

  it('a run in progress when the host closes still finishes', async () => {
    const h = createHost({ warmIsolates: 1 });
    const running = runSource(h, `function get_status() { D.q.delay(100).then(function () { D.success([D.createVariable('a', 'A', 'done')]); }); }`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await h.close();
    const result = await running;
    expect(result.status).toBe('success');
    expect(result.variables[0].value).toBe('done');
    await expect(runSource(h, OK_DRIVER)).rejects.toMatchObject({ code: 'HOST_CLOSED' });
    expect(h.stats().alive).toBe(0);
  });
});
