// The isolate pool's bounds on what it keeps: idle isolates expire after warmIdleMs (never one
// lent to a run), and past the warm set a run waits a moment for an isolate to come back before
// one is made for it, and keeps waiting while the thread is busy.
import { afterEach, describe, expect, it } from 'vitest';
import { IsolatePool, MAKE_AFTER_WAIT_MS } from '../../host/engine/isolate/pool.js';
import type { PoolOptions } from '../../host/engine/figures.js';

const MB = 32;
const pools: IsolatePool[] = [];
function pool(options: Partial<PoolOptions>): IsolatePool {
  const made = new IsolatePool({ warm: 2, max: 4, recycleAfterRuns: 1000, warmIdleMs: 60_000, ...options });
  pools.push(made);
  return made;
}
afterEach(() => {
  for (const p of pools.splice(0)) p.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps this thread busy (a spinning loop, a turn at a time) for ms. */
async function spin(ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const turn = performance.now() + 8;
    while (performance.now() < turn);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('idle expiry', () => {
  it('disposes idle isolates unused for warmIdleMs, with no run coming (its own timer)', async () => {
    const p = pool({ warmIdleMs: 150 });
    await p.prewarm(MB);
    expect(p.stats()).toMatchObject({ alive: 2, idle: 2 });
    await sleep(80);
    expect(p.stats().alive).toBe(2);
    await sleep(200);
    expect(p.stats()).toMatchObject({ alive: 0, idle: 0, disposed: 2 });
  });

  it('keeps the isolate a steady load uses, and lets the one it does not use expire', async () => {
    const p = pool({ warmIdleMs: 150 });
    await p.prewarm(MB);
    const first = await p.acquire(MB);
    p.release(first, false);
    for (let i = 0; i < 8; i++) {
      await sleep(50);
      const again = await p.acquire(MB);
      expect(again).toBe(first); // the most recently parked is lent first
      p.release(again, false);
    }
    expect(first.disposed).toBe(false);
    expect(p.stats()).toMatchObject({ alive: 1, idle: 1, disposed: 1 });
  });

  it('never disposes an isolate lent to a run, however long the run holds it', async () => {
    const p = pool({ warm: 1, warmIdleMs: 100 });
    await p.prewarm(MB);
    const lent = await p.acquire(MB);
    await sleep(300);
    expect(lent.disposed).toBe(false);
    p.release(lent, false);
    expect(p.stats()).toMatchObject({ alive: 1, idle: 1, busy: 0 });
    expect(lent.disposed).toBe(false);
  });

  it('refuses a warmIsolateIdleMs that is not a positive integer', async () => {
    const { createHost } = await import('../../host/engine/host.js');
    expect(() => createHost({ warmIsolateIdleMs: 0 })).toThrow(/warmIsolateIdleMs must be an integer >= 1 \(got 0\)/);
  });
});

describe('isolates made past the warm set', () => {
  it('a run waits for a lent isolate that comes back within the wait instead of making one', async () => {
    const p = pool({ warm: 1 });
    await p.prewarm(MB);
    const a = await p.acquire(MB);
    const b = p.acquire(MB);
    await sleep(1);
    p.release(a, false);
    expect(await b).toBe(a);
    expect(p.stats()).toMatchObject({ created: 1, alive: 1 });
  });

  it('makes one when none comes back within the wait and the thread has CPU to spare', async () => {
    const p = pool({ warm: 1 });
    await p.prewarm(MB);
    const a = await p.acquire(MB);
    await sleep(150); // an idle thread
    const started = performance.now();
    const b = await p.acquire(MB);
    expect(performance.now() - started).toBeGreaterThanOrEqual(MAKE_AFTER_WAIT_MS - 1);
    expect(b).not.toBe(a);
    expect(p.stats()).toMatchObject({ created: 2, alive: 2, busy: 2 });
  });

  it('keeps waiting while the thread is busy, and gets the isolate that comes back', async () => {
    const p = pool({ warm: 1 });
    await p.prewarm(MB);
    const a = await p.acquire(MB);
    const b = p.acquire(MB);
    await spin(20 * MAKE_AFTER_WAIT_MS);
    p.release(a, false);
    expect(await b).toBe(a);
    expect(p.stats().created).toBe(1);
  });

  it('with no warm set (warm 0), a lone run makes its isolate at once: none is lent that could come back', async () => {
    const p = pool({ warm: 0 });
    const pending = p.acquire(MB);
    expect(p.stats()).toMatchObject({ alive: 1, waiting: 0 }); // made in the call itself, no wait
    const only = await pending;
    const second = p.acquire(MB); // one is lent now: this one waits for it first
    expect(p.stats()).toMatchObject({ alive: 1, waiting: 1 });
    p.release(only, false);
    expect(await second).toBe(only);
    p.release(only, false);
    expect(only.disposed).toBe(true); // nothing is kept warm
  });

  it('still never makes more than max', async () => {
    const p = pool({ warm: 1, max: 2 });
    await p.prewarm(MB);
    const lent = [await p.acquire(MB), await p.acquire(MB)];
    const third = p.acquire(MB);
    await sleep(5 * MAKE_AFTER_WAIT_MS);
    expect(p.stats()).toMatchObject({ alive: 2, waiting: 1 });
    p.release(lent[0]!, false);
    expect(await third).toBe(lent[0]);
    expect(p.stats().created).toBe(2);
  });
});
