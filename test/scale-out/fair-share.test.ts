// Fair share of the runs queue between agents (host/scale-out/fair-share.ts) on a real
// redis-server: the heartbeat keys and the share each agent works out, then real run workers on
// one queue with short periods, whose shares must stay within ±20 % of 1/N, and a lone worker
// that must still take every due run.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createReconciler,
  createRunWorker,
  FairShare,
  fairShareKeys,
  ScaleOutError,
  type FairShareOptions,
  type FairShareView,
  type RunWorker,
  type ScheduleEntry,
} from '../../host/scale-out/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let redis: RedisServer;
let client: Redis;
let prefixCount = 0;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.url);
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
});

function newPrefix(): string {
  prefixCount += 1;
  return `fair${prefixCount}`;
}

/** A settable clock, so rates are exact. */
function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

function fairShare(options: Partial<FairShareOptions> & Pick<FairShareOptions, 'name'>): FairShare {
  const share = new FairShare({ client, windowMs: 10_000, heartbeatMs: 1000, ...options });
  cleanups.push(() => share.stop());
  return share;
}

/**
 * One window's worth of takes (the clock moves a full 10 s window on, so earlier takes are
 * forgotten): each agent records its count, every one publishes, then every one reads the others'.
 */
async function takeRound(c: { advance: (ms: number) => void }, agents: FairShare[], takes: number[]): Promise<FairShareView[]> {
  c.advance(10_000);
  agents.forEach((share, i) => {
    for (let k = 0; k < takes[i]!; k++) share.record();
  });
  for (const share of agents) await share.beat();
  return Promise.all(agents.map((share) => share.beat()));
}

describe('fair share (unit, real Redis)', () => {
  it('refuses bad options with INVALID_OPTIONS, naming the option', () => {
    expect(() => new FairShare({ client, name: '' })).toThrow(ScaleOutError);
    expect(() => new FairShare({ client, name: 'a', windowMs: 0 })).toThrow(/windowMs must be a positive integer \(got 0\)/);
    expect(() => new FairShare({ client, name: 'a', deferMs: 2.5 })).toThrow(/deferMs/);
    expect(() => new FairShare({ client, name: 'a', tolerance: -1 })).toThrow(/tolerance must be a positive number/);
    expect(() => new FairShare({ client, name: 'a', heartbeatMs: 1000, ttlMs: 1000 })).toThrow(/ttlMs \(1000\) must exceed heartbeatMs/);
    expect(() => new FairShare({ client, name: 'a', deferMs: 50, maxDeferMs: 20 })).toThrow(/maxDeferMs \(20\) must not be below deferMs \(50\)/);
    try {
      new FairShare({ client, name: 'a', heartbeatMs: -5 });
    } catch (error) {
      expect((error as ScaleOutError).code).toBe('INVALID_OPTIONS');
    }
  });

  it('a lone agent is never over its share, however much it takes', async () => {
    const c = clock();
    const lone = fairShare({ name: 'lone', prefix: newPrefix(), now: c.now });
    c.advance(10_000);
    for (let i = 0; i < 50; i++) lone.record();
    const view = await lone.beat();
    expect(view).toMatchObject({ agents: 1, share: 1, over: false, holdBackMs: 0 });
    expect(view.ownRate).toBeCloseTo(5, 6);
    expect(lone.holdBackMs()).toBe(0);
  });

  it('works out N and each share from the heartbeats; the one over (1 + tolerance)/N holds back in proportion to its excess, the others not', async () => {
    const prefix = newPrefix();
    const c = clock();
    const [a, b, d] = ['a', 'b', 'd'].map((name) => fairShare({ name, prefix, now: c.now, tolerance: 0.05, deferMs: 40, maxDeferMs: 100 }));
    /** a, b and d took these many jobs over a window: a's view. */
    const round = async (takes: [number, number, number]) => (await takeRound(c, [a!, b!, d!], takes))[0]!;
    // 60, 30, 30: a has half (excess 0.5 over 1/3): far over, the longest hold-back.
    const viewA = await round([60, 30, 30]);
    expect(viewA).toMatchObject({ agents: 3, over: true, holdBackMs: 100 });
    expect(viewA.totalRate).toBeCloseTo(12, 6);
    expect(viewA.share).toBeCloseTo(0.5, 6);
    expect(a!.holdBackMs()).toBe(100);
    const viewB = await b!.beat();
    expect(viewB).toMatchObject({ agents: 3, over: false, holdBackMs: 0 });
    expect(viewB.share).toBeCloseTo(0.25, 6);
    expect(b!.holdBackMs()).toBe(0);
    // What Redis holds: the three names and each one's published rate.
    const keys = fairShareKeys(prefix);
    expect((await client.smembers(keys.agents)).sort()).toEqual(['a', 'b', 'd']);
    expect(Number(await client.get(keys.agent('a')))).toBeCloseTo(6, 6);
    // It takes a job later than lateMs: a backlog, so no hold-back for a heartbeat.
    a!.record(251);
    expect(a!.holdBackMs()).toBe(0);
    c.advance(1000);
    expect(a!.holdBackMs()).toBe(100);
    // 36 of 100: excess 0.08, 1.6 tolerances: 1.6 × 40 ms.
    expect(await round([36, 32, 32])).toMatchObject({ over: true, holdBackMs: 64 });
    // 34 of 100 is within 1.05 / 3: none.
    expect(await round([34, 33, 33])).toMatchObject({ over: false, holdBackMs: 0 });
  });

  it('while another is more than the tolerance under its share, the agent taking the most holds back in proportion, the others above 1/N the least', async () => {
    const prefix = newPrefix();
    const c = clock();
    const [a, b, d] = ['a', 'b', 'd'].map((name) => fairShare({ name, prefix, now: c.now, tolerance: 0.1, deferMs: 30, maxDeferMs: 120 }));
    /** a, b and d took these many jobs over a window: each one's hold-back. */
    const round = async (takes: [number, number, number]) => (await takeRound(c, [a!, b!, d!], takes)).map((view) => view.holdBackMs);
    // 36, 36, 28 of 100: a and b are each 8 % over 1/3 (within 10 %), d is 16 % short. Both take
    // the most, so both make room for d in proportion to its shortfall: 1.6 tolerances × 30 ms.
    expect(await round([36, 36, 28])).toEqual([48, 48, 0]);
    // 37, 35, 28: a takes the most and makes room in proportion; b (5 % over, within its own
    // tolerance) still steps aside deferMs, or it would take what a makes room for whenever it
    // answers quicker than d.
    expect(await round([37, 35, 28])).toEqual([48, 30, 0]);
    // 35, 33, 32: a 5 % over and d 4 % short, both within the tolerance: nobody waits.
    expect(await round([35, 33, 32])).toEqual([0, 0, 0]);
    // 34, 34, 32: d is 4 % short, within the tolerance: nobody holds back.
    expect(await round([34, 34, 32])).toEqual([0, 0, 0]);
    // 40, 30, 30: a's own excess (20 %) is the larger gap: 60 ms; b and d, at 1/N, none.
    expect(await round([40, 30, 30])).toEqual([60, 0, 0]);
  });

  it('counts takes over the window only, and a young agent over at least a quarter of it', async () => {
    const c = clock();
    const share = fairShare({ name: 'young', prefix: newPrefix(), now: c.now, windowMs: 8000 });
    share.record();
    share.record();
    c.advance(500);
    // Two takes in its first half second count as 2 per 2 s (a quarter of the window), not 4 per second.
    expect(share.ownRate()).toBeCloseTo(1, 6);
    c.advance(7600); // the two takes are now older than the window
    share.record();
    expect(share.ownRate()).toBeCloseTo(1000 / 8000, 6);
  });

  it('drops an agent whose heartbeat stopped (killed: its key expires) and one that stopped (at once)', async () => {
    const prefix = newPrefix();
    const keys = fairShareKeys(prefix);
    const survivor = fairShare({ name: 'survivor', prefix, heartbeatMs: 100, ttlMs: 350 });
    const killed = fairShare({ name: 'killed', prefix, heartbeatMs: 100, ttlMs: 2000 });
    const leaving = fairShare({ name: 'leaving', prefix, heartbeatMs: 100, ttlMs: 350 });
    await killed.beat(); // one heartbeat, then silence: a killed agent
    await leaving.start();
    await survivor.start();
    expect((await survivor.beat()).agents).toBe(3);
    await leaving.stop();
    expect(await client.exists(keys.agent('leaving'))).toBe(0);
    expect((await survivor.beat()).agents).toBe(2);
    await waitFor('the killed agent to be dropped', async () => (await survivor.beat()).agents === 1, 5000);
    expect(await client.smembers(keys.agents)).toEqual(['survivor']);
    expect(leaving.holdBackMs()).toBe(0);
  });

  it('keeps its last view and reports the error when Redis does not answer', async () => {
    const errors: Error[] = [];
    const broken = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    broken.on('error', () => undefined);
    const share = new FairShare({ client: broken, name: 'cut-off', onError: (error) => errors.push(error) });
    expect(await share.beat()).toMatchObject({ agents: 1, over: false });
    expect(errors[0]?.message).toMatch(/fair share heartbeat of cut-off failed/);
    await share.stop();
    broken.disconnect();
  });
});

describe('fair share between real run workers', () => {
  it('keeps each of 3 workers within ±20 % of 1/3 of the runs, and a lone worker then takes every due run', async () => {
    const prefix = newPrefix();
    const periodMs = 1000;
    const ids = Array.from({ length: 30 }, (_, i) => i + 1);
    const schedules: ScheduleEntry[] = ids.map((associationId) => ({ associationId, periodMs, version: 'v1' }));
    const reconciler = createReconciler({ url: redis.url, prefix, loadSchedules: async () => schedules, deadlineMs: 300, driftEveryMs: 0 });
    reconciler.on('error', () => undefined);
    cleanups.push(() => reconciler.stop());
    await reconciler.start();

    const log: Array<{ worker: string; associationId: number; slotMs: number; at: number }> = [];
    const workers = new Map<string, RunWorker>();
    const start = async (name: string) => {
      const worker = createRunWorker({
        url: redis.url,
        prefix,
        name,
        deadlineMs: 300,
        marginMs: 1000,
        lockDurationMs: 2000,
        stalledIntervalMs: 500,
        fairShare: { windowMs: 6000, heartbeatMs: 250 },
        runSlot: async (run) => {
          log.push({ worker: name, associationId: run.associationId, slotMs: run.slotMs, at: Date.now() });
          await sleep(50);
          return 'stored';
        },
      });
      worker.on('error', () => undefined);
      cleanups.push(() => worker.stop({ graceMs: 500, abortWaitMs: 500 }));
      await worker.start();
      workers.set(name, worker);
    };
    // The first one alone for a while, as in the fault rig, where the first agent started took most.
    await start('w1');
    await reconciler.waitForReconcile(await reconciler.requestReconcile(), 15_000);
    await sleep(1500);
    await start('w2');
    await start('w3');
    await sleep(5000);
    const from = Date.now();
    await sleep(12_000);
    const to = Date.now();
    const window = log.filter((run) => run.at >= from && run.at < to);
    const shares = ['w1', 'w2', 'w3'].map((name) => window.filter((run) => run.worker === name).length / window.length);
    // Every due slot ran: 30 associations × 12 periods, give or take the edges.
    expect(window.length).toBeGreaterThanOrEqual(30 * 11);
    for (const share of shares) expect(Math.abs(share * 3 - 1), `shares ${shares.map((s) => s.toFixed(3)).join(' ')}`).toBeLessThanOrEqual(0.2);

    // The others leave: the one left takes every slot, none skipped or held back for long.
    const skippedBefore = workers.get('w1')!.figures.counters.skippedLate;
    await workers.get('w2')!.stop({ graceMs: 2000 });
    await workers.get('w3')!.stop({ graceMs: 2000 });
    const lonelyFrom = Date.now() + periodMs;
    await sleep(periodMs + 4000);
    const lonelyTo = Date.now() - 500;
    const lonely = log.filter((run) => run.slotMs >= lonelyFrom && run.slotMs < lonelyTo);
    expect(new Set(lonely.map((run) => run.worker))).toEqual(new Set(['w1']));
    for (const id of ids) {
      const slots = lonely.filter((run) => run.associationId === id).map((run) => run.slotMs).sort((a, b) => a - b);
      expect(slots.length, `association ${id}`).toBeGreaterThanOrEqual(3);
      expect(new Set(slots.slice(1).map((slot, i) => slot - slots[i]!)), `association ${id}`).toEqual(new Set([periodMs]));
    }
    // None skipped late (30 runs/s: a worker holding back 120 ms per fetch would fall behind).
    expect(workers.get('w1')!.figures.counters.skippedLate - skippedBefore).toBe(0);
  }, 60_000);
});
