// Sandbox threads: driver code runs off the host's event loop, runs spread over threads,
// and a busy thread does not hold up runs on another.
import { describe, expect, it } from 'vitest';
import { createHost, DriverboxError } from '../host/index.js';
import { runSource } from './helpers/host.js';

const SPIN = (ms: number) => `function get_status() { var end = Date.now() + ${ms}; while (Date.now() < end) {} D.success([D.createVariable('spun', 'Spun', 'yes')]); }`;
const OK = `function get_status() { D.success([D.createVariable('ok', 'OK', 'yes')]); }`;

describe('sandbox threads', () => {
  it('a driver busy for 600 ms does not block the host event loop', async () => {
    const host = createHost({ threads: 1, warmIsolates: 1 });
    try {
      const gaps: number[] = [];
      let last = performance.now();
      const ticker = setInterval(() => {
        const now = performance.now();
        gaps.push(now - last);
        last = now;
      }, 10);
      const result = await runSource(host, SPIN(600));
      clearInterval(ticker);
      expect(result.status).toBe('success');
      expect(result.durationMs).toBeGreaterThanOrEqual(590);
      // The host's timers kept firing while the driver spun (dozens of ticks, none held for the spin).
      expect(gaps.length).toBeGreaterThan(20);
      expect(Math.max(...gaps)).toBeLessThan(300);
    } finally {
      await host.close();
    }
  });

  it('with two threads, a busy driver on one does not hold up a run on the other', async () => {
    const host = createHost({ threads: 2, maxIsolates: 2, warmIsolates: 2 });
    try {
      const order: string[] = [];
      const busy = runSource(host, SPIN(800)).then((r) => (order.push('busy'), r));
      await new Promise((resolve) => setTimeout(resolve, 50)); // the busy run has its thread
      const quick = await runSource(host, OK).then((r) => (order.push('quick'), r));
      expect(quick.status).toBe('success');
      expect(quick.durationMs).toBeLessThan(400);
      expect((await busy).status).toBe('success');
      expect(order).toEqual(['quick', 'busy']);
      const stats = host.stats();
      expect(stats.alive).toBe(stats.created - stats.disposed);
      expect(stats.alive).toBeGreaterThanOrEqual(2); // one pool per thread
      expect(stats.busy).toBe(0);
    } finally {
      await host.close();
    }
  });

  it('with one thread, runs share it: a run waits while the thread is busy', async () => {
    const host = createHost({ threads: 1, maxIsolates: 2, warmIsolates: 2 });
    try {
      const busy = runSource(host, SPIN(400));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      const quick = await runSource(host, OK);
      expect(quick.status).toBe('success');
      expect(performance.now() - started).toBeGreaterThan(250); // it waited for the spin to end
      expect((await busy).status).toBe('success');
    } finally {
      await host.close();
    }
  });

  it('a driver that throws (top level or entry point) does not cost its isolate', async () => {
    const host = createHost({ threads: 1, maxIsolates: 1, warmIsolates: 1 });
    try {
      const top = await runSource(host, `throw new Error('at the top');`);
      const entry = await runSource(host, `function get_status() { throw new Error('in the entry'); }`);
      expect([top.errorType, entry.errorType]).toEqual(['GENERIC_ERROR', 'GENERIC_ERROR']);
      expect((await runSource(host, OK)).status).toBe('success');
      expect(host.stats()).toMatchObject({ created: 1, disposed: 0, alive: 1 });
    } finally {
      await host.close();
    }
  });

  it('threads is checked: an integer >= 1', () => {
    expect(() => createHost({ threads: 0 })).toThrow(DriverboxError);
    expect(() => createHost({ threads: 1.5 })).toThrow('threads must be an integer >= 1 (got 1.5)');
  });

  it('closing stops the threads: no isolate is left, and stats keep the totals', async () => {
    const host = createHost({ threads: 2, maxIsolates: 4, warmIsolates: 2 });
    const results = await Promise.all([1, 2, 3, 4].map(() => runSource(host, OK)));
    expect(results.every((r) => r.status === 'success')).toBe(true);
    const before = host.stats();
    await host.close();
    const after = host.stats();
    expect(after.alive).toBe(0);
    expect(after.created).toBe(before.created);
    expect(after.disposed).toBe(after.created);
  });
});
