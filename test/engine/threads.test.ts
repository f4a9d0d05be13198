// Sandbox threads: driver code runs off the host's event loop, runs spread over threads,
// and a busy thread does not hold up runs on another.
import { describe, expect, it } from 'vitest';
import { createHost, DriverboxError } from '../../host/index.js';
import { runSource } from '../helpers/host.js';
import { runInHostProcess } from '../helpers/host-process.js';

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
      const result = await runSource(host, SPIN(2000));
      clearInterval(ticker);
      expect(result.status).toBe('success');
      expect(result.durationMs).toBeGreaterThanOrEqual(1990);
      // The host's timers kept firing while the driver spun (dozens of ticks, none held for the
      // spin; a loaded machine may delay one by a few hundred ms, never by the spin's 2 s).
      expect(gaps.length).toBeGreaterThan(20);
      expect(Math.max(...gaps)).toBeLessThan(1000);
    } finally {
      await host.close();
    }
  });

  it('with two threads, a busy driver on one does not hold up a run on the other', async () => {
    const host = createHost({ threads: 2, maxIsolates: 2, warmIsolates: 2 });
    try {
      const order: string[] = [];
      const busy = runSource(host, SPIN(3000)).then((r) => (order.push('busy'), r));
      await new Promise((resolve) => setTimeout(resolve, 50)); // the busy run has its thread
      const quick = await runSource(host, OK).then((r) => (order.push('quick'), r));
      expect(quick.status).toBe('success');
      expect(quick.durationMs).toBeLessThan(2000); // not held for the other thread's 3 s spin
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

  it('with one thread and no spare, runs share it: a run waits while the thread is busy', async () => {
    // A spare thread would take the quick run (sandbox-fairness.test.ts): none here.
    const host = createHost({ threads: 1, maxIsolates: 2, warmIsolates: 2, spareThreads: 0 });
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

  it('memory() sums the threads\' heaps and their isolates\' heaps', async () => {
    const host = createHost({ threads: 2, maxIsolates: 4, warmIsolates: 2 });
    try {
      await Promise.all([1, 2, 3, 4].map(() => runSource(host, OK)));
      const memory = await host.memory();
      expect(memory.threads).toBe(2);
      expect(memory.isolates).toBe(host.stats().alive);
      expect(memory.isolates).toBeGreaterThanOrEqual(2);
      // A worker's heap and a warm isolate with the core bundle hold a few hundred KB at least.
      expect(memory.threadHeap.used).toBeGreaterThan(500_000);
      expect(memory.threadHeap.total).toBeGreaterThanOrEqual(memory.threadHeap.used);
      expect(memory.isolateHeap.used / memory.isolates).toBeGreaterThan(100_000);
      expect(memory.isolateHeap.total).toBeGreaterThanOrEqual(memory.isolateHeap.used);
    } finally {
      await host.close();
    }
    expect(await host.memory()).toMatchObject({ threads: 0, isolates: 0 });
  });

  it('memory() keeps the process alive until its answer comes, with no run going', () => {
    // In a test worker something else always keeps the loop alive: this needs a process of its own.
    const out = runInHostProcess(
      `const host = createHost({ threads: 1, warmIsolates: 1 });
      await host.run({ source: 'function get_status() { D.success([]); }', device: { ip: '127.0.0.1' } });
      const memory = await host.memory({ gc: true }); // collects first: node runs with --expose-gc here
      console.log(JSON.stringify({ threads: memory.threads, isolates: memory.isolates }));
      await host.close();`,
      ['--expose-gc'],
    );
    expect(out).toEqual({ threads: 1, isolates: 1 });
  });

  describe('recycleThreadAfterRuns', () => {
    /** The old threads end once their runs have: their isolates then count as disposed. */
    const settled = async (host: ReturnType<typeof createHost>, maxAlive: number) => {
      for (let i = 0; i < 200 && (host.stats().disposed === 0 || host.stats().alive > maxAlive); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return host.stats();
    };

    /** host.run() reaches its thread after loading the driver: wait for the count. */
    const recycled = async (host: ReturnType<typeof createHost>, count: number) => {
      for (let i = 0; i < 2000 && host.stats().threadsRecycled < count; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(host.stats().threadsRecycled).toBe(count);
    };

    it('a fresh thread takes new runs at once while the old one finishes its own', async () => {
      const host = createHost({ threads: 1, maxIsolates: 2, warmIsolates: 1, recycleThreadAfterRuns: 3 });
      try {
        expect((await runSource(host, OK)).status).toBe('success');
        expect((await runSource(host, OK)).status).toBe('success');
        expect(host.stats().threadsRecycled).toBe(0);
        // The third run is the old thread's last: it spins while a new run goes to the fresh thread.
        const order: string[] = [];
        // Spins long enough that a loaded machine still tells "at once" from "after the spin".
        const busy = runSource(host, SPIN(3000)).then((r) => (order.push('busy'), r));
        await recycled(host, 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const quick = await runSource(host, OK).then((r) => (order.push('quick'), r));
        expect(quick.status).toBe('success');
        expect(quick.durationMs).toBeLessThan(2000); // one thread without recycling would have waited ~3 s
        expect((await busy).status).toBe('success');
        expect(order).toEqual(['quick', 'busy']);
        const stats = await settled(host, 2);
        expect(stats.alive).toBe(stats.created - stats.disposed);
        expect(stats.alive).toBeLessThanOrEqual(2); // only the fresh thread's pool is left
        expect(stats.disposed).toBeGreaterThanOrEqual(1); // the old thread's isolates went with it
        expect(stats.busy).toBe(0);
      } finally {
        await host.close();
      }
    });

    it('keeps recycling: 20 runs at 4 a time with a limit of 5 runs per thread', async () => {
      const host = createHost({ threads: 2, maxIsolates: 4, warmIsolates: 2, recycleThreadAfterRuns: 5 });
      try {
        const results: string[] = [];
        let next = 0;
        await Promise.all(
          [1, 2, 3, 4].map(async () => {
            while (next < 20) {
              next++;
              results.push((await runSource(host, OK)).status);
            }
          }),
        );
        expect(results).toEqual(Array(20).fill('success'));
        // 20 runs over 2 threads, 5 each per life: 3 or 4 replacements (the split need not be even).
        expect(host.stats().threadsRecycled).toBeGreaterThanOrEqual(3);
        const stats = await settled(host, 4);
        expect(stats.alive).toBe(stats.created - stats.disposed);
        expect(stats.alive).toBeLessThanOrEqual(4);
      } finally {
        await host.close();
      }
      const closed = host.stats();
      expect(closed.alive).toBe(0);
      expect(closed.disposed).toBe(closed.created);
    });

    it('close() waits for a thread being recycled to finish its run', async () => {
      const host = createHost({ threads: 1, maxIsolates: 1, warmIsolates: 1, recycleThreadAfterRuns: 1 });
      const busy = runSource(host, SPIN(300));
      await recycled(host, 1);
      await host.close();
      expect((await busy).status).toBe('success');
      expect(host.stats().alive).toBe(0);
    });

    it('is checked: an integer >= 0 (0: never)', () => {
      expect(() => createHost({ recycleThreadAfterRuns: -1 })).toThrow('recycleThreadAfterRuns must be an integer >= 0 (got -1)');
      expect(() => createHost({ recycleThreadAfterRuns: 2.5 })).toThrow(DriverboxError);
    });
  });
});
