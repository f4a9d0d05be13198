// The scale-out run source on a real redis-server and real BullMQ 6.7, with real timers and short
// periods (1–1.5 s). Each test has a BullMQ prefix of its own on one throwaway Redis. Assertions read
// both the runs' own log (what runSlot saw) and Redis (schedulers, iteration counts, finished jobs).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeviceSlots } from '../../host/scale-out/device-slots.js';
import {
  createReconciler,
  createRunWorker,
  describeRedisUrl,
  offsetOf,
  parseRedisUrl,
  pingRedis,
  redisOptions,
  RUNS_QUEUE,
  ScaleOutError,
  type Reconciler,
  type ReconcilerOptions,
  type RunJobResult,
  type RunWorker,
  type RunWorkerOptions,
  type ScheduleEntry,
  type SlotOutcome,
  type SlotRun,
} from '../../host/scale-out/index.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));


/** Rule options every test worker shares: D 300 ms, lock 2 s, margin 1 s, stalled check every 0.5 s. */
const RULES = { deadlineMs: 300, marginMs: 1000, lockDurationMs: 2000, stalledIntervalMs: 500 } as const;

interface RunRecord {
  associationId: number;
  slotMs: number;
  version: string;
  worker: string;
  startedAt: number;
}

let redis: RedisServer;
let prefixCount = 0;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => {
  await redis?.stop();
});

function newPrefix(): string {
  prefixCount += 1;
  return `t${prefixCount}`;
}

/** A run worker whose runSlot records each run in `log` (and then does what `behaviour` says, default: resolve 'stored'). */
async function startWorker(
  prefix: string,
  name: string,
  log: RunRecord[],
  options: Partial<RunWorkerOptions> = {},
  behaviour: (run: SlotRun) => Promise<SlotOutcome> = async () => 'stored',
): Promise<RunWorker> {
  const worker = createRunWorker({
    url: redis.url,
    prefix,
    name,
    ...RULES,
    ...options,
    runSlot: (run) => {
      log.push({ associationId: run.associationId, slotMs: run.slotMs, version: run.version, worker: name, startedAt: Date.now() });
      return behaviour(run);
    },
  });
  worker.on('error', () => undefined);
  cleanups.push(() => worker.stop({ graceMs: 0, abortWaitMs: 500 }));
  await worker.start();
  return worker;
}

async function startReconciler(prefix: string, loadSchedules: () => Promise<ScheduleEntry[]>, options: Partial<ReconcilerOptions> = {}): Promise<Reconciler> {
  const reconciler = createReconciler({ url: redis.url, prefix, loadSchedules, deadlineMs: RULES.deadlineMs, driftEveryMs: 0, ...options });
  reconciler.on('error', () => undefined);
  cleanups.push(() => reconciler.stop());
  await reconciler.start();
  return reconciler;
}

async function reconcileNow(reconciler: Reconciler) {
  return reconciler.waitForReconcile(await reconciler.requestReconcile(), 15_000);
}

function runsQueue(prefix: string): Queue {
  const queue = new Queue(RUNS_QUEUE, { connection: redisOptions(redis.url, 'producer', 'test'), prefix });
  cleanups.push(() => queue.close());
  return queue;
}

function entries(ids: number[], periodMs: number, version = 'v1', deviceKey?: string): ScheduleEntry[] {
  return ids.map((associationId) => (deviceKey === undefined ? { associationId, periodMs, version } : { associationId, periodMs, version, deviceKey }));
}

/** "<association>@<slot>" keys that occur more than once. */
function duplicates(log: RunRecord[]): string[] {
  const seen = new Map<string, number>();
  for (const run of log) seen.set(`${run.associationId}@${run.slotMs}`, (seen.get(`${run.associationId}@${run.slotMs}`) ?? 0) + 1);
  return [...seen].filter(([, count]) => count > 1).map(([key]) => key);
}

/** The slots one association ran, ascending. */
function slotsOf(log: RunRecord[], associationId: number): number[] {
  return log.filter((run) => run.associationId === associationId).map((run) => run.slotMs).sort((a, b) => a - b);
}

/** Gaps between consecutive slots (all equal to the period when no slot was missed). */
function gaps(slots: number[]): number[] {
  return slots.slice(1).map((slot, i) => slot - slots[i]!);
}

async function finishedJobs(queue: Queue): Promise<Job[]> {
  return queue.getJobs(['completed', 'failed'], 0, -1);
}

describe('queue URL and server checks', () => {
  it('reads redis:// and rediss:// URLs and refuses bad ones with INVALID_QUEUE_URL, never echoing the password', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2')).toEqual({ host: '127.0.0.1', port: 6380, db: 2, tls: false });
    expect(parseRedisUrl('rediss://user:p%40ss@cache.example:6390')).toEqual({ host: 'cache.example', port: 6390, db: 0, tls: true, username: 'user', password: 'p@ss' });
    expect(parseRedisUrl('redis://:secret@[::1]')).toEqual({ host: '::1', port: 6379, db: 0, tls: false, password: 'secret' });
    expect(redisOptions('redis://h', 'worker').maxRetriesPerRequest).toBeNull();
    expect(redisOptions('redis://h', 'producer').maxRetriesPerRequest).toBe(2);
    expect(redisOptions('rediss://h', 'producer').tls).toEqual({ servername: 'h' });

    const bad: Array<[string, RegExp]> = [
      ['', /empty/],
      ['localhost:6379', /scheme must be redis: or rediss:/],
      ['http://127.0.0.1:6379', /scheme must be redis: or rediss: \(got http:\)/],
      ['unix:///run/redis.sock', /Unix sockets are not supported/],
      ['redis://127.0.0.1:0', /port must be 1–65535/],
      ['redis://127.0.0.1:99999', /not a URL/],
      ['redis://127.0.0.1/x', /database number/],
      ['redis://127.0.0.1/1/2', /database number/],
      ['redis://127.0.0.1?password=hunter2', /query parameters are not supported \(got \?password=\*\*\*\)/],
      ['redis://:hunter2@127.0.0.1/#frag', /fragment/],
    ];
    for (const [url, message] of bad) {
      let caught: unknown;
      try {
        parseRedisUrl(url);
      } catch (error) {
        caught = error;
      }
      expect(caught, url).toBeInstanceOf(ScaleOutError);
      expect((caught as ScaleOutError).code, url).toBe('INVALID_QUEUE_URL');
      expect((caught as Error).message, url).toMatch(message);
      expect((caught as Error).message, url).not.toContain('hunter2');
    }
    expect(describeRedisUrl('redis://u:hunter2@h:1/0')).toBe('redis://u:***@h:1/0');
    // A bad URL fails at construction, before any connection.
    expect(() => createRunWorker({ url: 'redis//nope', runSlot: async () => 'stored', deadlineMs: 100 })).toThrow(/INVALID_QUEUE_URL|not a URL/);
  });

  it('refuses a Redis whose maxmemory-policy is not noeviction (or only warns when told), and pings', async () => {
    const admin = new Redis(redis.port, '127.0.0.1');
    cleanups.push(async () => admin.disconnect());
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const log: RunRecord[] = [];
      const refused = startWorker(newPrefix(), 'evict', log);
      await expect(refused).rejects.toMatchObject({ code: 'REDIS_EVICTION_POLICY', message: expect.stringMatching(/maxmemory-policy allkeys-lru; BullMQ needs noeviction/) });
      const warnings: string[] = [];
      const worker = createRunWorker({ url: redis.url, prefix: newPrefix(), ...RULES, runSlot: async () => 'stored', onEvictionPolicy: 'warn' });
      worker.on('error', (error) => warnings.push(error.message));
      cleanups.push(() => worker.stop({ graceMs: 0 }));
      await worker.start();
      expect(warnings.join('\n')).toMatch(/allkeys-lru/);
      await expect(worker.ping()).resolves.toBeUndefined();
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
    }
    // Nothing listens on port 1: the health check fails within its deadline, with a specific code.
    const nowhere = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    nowhere.on('error', () => undefined);
    cleanups.push(async () => nowhere.disconnect());
    await expect(pingRedis(nowhere, 1000)).rejects.toMatchObject({ code: 'REDIS_UNREACHABLE' });
  });
});

describe('config rule', () => {
  it('refuses D + margin ≥ lockDuration at construction, and schedules whose period is not above D at reconcile', async () => {
    const runSlot = async (): Promise<SlotOutcome> => 'stored';
    expect(() => createRunWorker({ url: redis.url, runSlot, deadlineMs: 1500, marginMs: 500, lockDurationMs: 2000 })).toThrow(
      expect.objectContaining({ code: 'DEADLINE_NOT_BELOW_LOCK', message: expect.stringMatching(/1500 ms \+ margin 500 ms must be below the lock duration 2000 ms/) }),
    );
    expect(() => createRunWorker({ url: redis.url, runSlot, deadlineMs: 25_000 })).not.toThrow(); // default lock: D + 5 s + 5 s
    expect(() => createRunWorker({ url: redis.url, runSlot, deadlineMs: 25_000, lockDurationMs: 30_000 })).toThrow(expect.objectContaining({ code: 'DEADLINE_NOT_BELOW_LOCK' }));

    const prefix = newPrefix();
    const reconciler = await startReconciler(prefix, async () => [
      { associationId: 1, periodMs: 1000, version: 'a' },
      { associationId: 2, periodMs: 300, version: 'a' }, // = D
      { associationId: 3, periodMs: 200, version: 'a' }, // < D
      { associationId: 1, periodMs: 2000, version: 'b' }, // twice
      { associationId: 0, periodMs: 1000, version: 'a' },
    ]);
    const result = await reconcileNow(reconciler);
    expect(result.upserted).toEqual([1]);
    expect(result.refused.map((r) => [r.associationId, r.code])).toEqual([
      [2, 'DEADLINE_NOT_BELOW_PERIOD'],
      [3, 'DEADLINE_NOT_BELOW_PERIOD'],
      [1, 'INVALID_SCHEDULE'],
      [0, 'INVALID_SCHEDULE'],
    ]);
    expect(result.refused[0]!.message).toMatch(/association 2: the run deadline 300 ms must be shorter than the period 300 ms/);
    const queue = runsQueue(prefix);
    expect((await queue.getJobSchedulers()).map((s) => [s.key, s.every])).toEqual([['1', 1000]]);
  });
});

describe('runs', () => {
  it('runs each association once per slot, on its offset, and Redis counts the same', async () => {
    const prefix = newPrefix();
    const ids = [1, 2, 3];
    const reconciler = await startReconciler(prefix, async () => entries(ids, 1000));
    const log: RunRecord[] = [];
    // Association 3's results are refused by the store (write rule): the worker only counts them.
    const worker = await startWorker(prefix, 'solo', log, {}, async (run) => (run.associationId === 3 ? 'refused-duplicate' : 'stored'));
    const first = await reconcileNow(reconciler);
    expect(first.upserted.sort()).toEqual(ids);
    await waitFor('3 runs of every association', () => ids.every((id) => slotsOf(log, id).length >= 3), 8000);
    const live = await worker.readFigures();
    expect(live.queue).toMatchObject({ schedulers: 3, failed: 0 });
    expect(live.queue!.delayed + live.queue!.waiting + live.queue!.active).toBe(3); // one pending job per scheduler
    const stop = await worker.stop({ graceMs: 2000 });
    expect(stop).toMatchObject({ aborted: 0, abandoned: 0 });

    expect(duplicates(log)).toEqual([]);
    const queue = runsQueue(prefix);
    for (const id of ids) {
      const slots = slotsOf(log, id);
      // On the grid: epoch-aligned period plus the association's offset, no slot missed.
      for (const slot of slots) expect(((slot % 1000) + 1000) % 1000, `association ${id}`).toBe(offsetOf(id, 1000) % 1000);
      expect(new Set(gaps(slots))).toEqual(new Set([1000]));
      // Redis: the scheduler made one job per run it handed out, plus the next one waiting.
      const scheduler = await queue.getJobScheduler(String(id));
      expect(scheduler?.iterationCount, `association ${id}`).toBe(slots.length + 1);
    }
    const finished = await finishedJobs(queue);
    expect(finished.length).toBe(log.length);
    for (const job of finished) {
      const result = job.returnvalue as RunJobResult;
      expect(result).toMatchObject({ result: 'started', outcome: job.repeatJobKey === '3' ? 'refused-duplicate' : 'stored', worker: 'solo' });
      expect(job.id).toBe(`repeat:${job.repeatJobKey}:${result.slotMs}`);
    }
    const figures = await worker.readFigures();
    expect(figures).toMatchObject({ taken: log.length, started: log.length, completed: log.length, failed: 0, skippedLate: 0, queue: null });
    expect(figures.refusedDuplicate).toBe(slotsOf(log, 3).length);
    expect(await queue.getJobCounts('delayed', 'active')).toEqual({ delayed: 3, active: 0 });
    expect(figures.lateness.count).toBe(log.length);
    expect(figures.lateness.p99).toBeLessThan(1000);
  });

  it('two workers on one queue never run a slot twice, and a worker added later takes work within 2 s', async () => {
    const prefix = newPrefix();
    const ids = Array.from({ length: 12 }, (_, i) => i + 1);
    const reconciler = await startReconciler(prefix, async () => entries(ids, 1000));
    const log: RunRecord[] = [];
    await startWorker(prefix, 'first', log);
    await reconcileNow(reconciler);
    await waitFor('a run', () => log.length > 0, 3000);
    await sleep(1000);
    const joinedAt = Date.now();
    await startWorker(prefix, 'later', log);
    await waitFor('a run by the later worker', () => log.some((run) => run.worker === 'later'), 3000);
    const firstTake = log.find((run) => run.worker === 'later')!.startedAt - joinedAt;
    expect(firstTake).toBeLessThanOrEqual(2000);
    // The first worker ran alone for ~2 s, so it is over its fair share and holds back until the
    // later one has caught up (fair-share.ts); both must be taking work within a few seconds.
    await sleep(5000);

    expect(duplicates(log)).toEqual([]);
    const byWorker = (name: string) => log.filter((run) => run.worker === name && run.startedAt > joinedAt + 1000).length;
    expect(byWorker('first')).toBeGreaterThan(0);
    expect(byWorker('later')).toBeGreaterThan(0);
    for (const id of ids) expect(new Set(gaps(slotsOf(log, id))), `association ${id}`).toEqual(new Set([1000]));
    // Redis agrees on who ran what: the finished job of each logged run names the same worker.
    const finished = new Map((await finishedJobs(runsQueue(prefix))).map((job) => [job.id, job]));
    for (const run of log) {
      const job = finished.get(`repeat:${run.associationId}:${run.slotMs}`);
      if (!job) continue; // still running at the read
      expect(job.processedBy).toBe(run.worker);
    }
  });

  it('holds at most maxPerDevice runs per device in one agent', async () => {
    const prefix = newPrefix();
    // Associations 4 and 27 have offsets 587 and 606 ms at a 1 s period: their runs would overlap.
    expect([offsetOf(4, 1000), offsetOf(27, 1000)]).toEqual([587, 606]);
    const reconciler = await startReconciler(prefix, async () => entries([4, 27], 1000, 'v1', 'device-9'));
    let running = 0;
    let peak = 0;
    const log: RunRecord[] = [];
    await startWorker(prefix, 'bounded', log, { maxPerDevice: 1, concurrency: 4 }, async () => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(200);
      running -= 1;
      return 'stored';
    });
    await reconcileNow(reconciler);
    await waitFor('2 runs of each', () => slotsOf(log, 4).length >= 2 && slotsOf(log, 27).length >= 2, 6000);
    expect(peak).toBe(1);
    expect(duplicates(log)).toEqual([]);
  });
});

describe('reconcile', () => {
  it('removes the schedulers of gone associations, re-upserts only changed versions, and a restarted reconciler upserts nothing', async () => {
    const prefix = newPrefix();
    let desired = entries([1, 2, 3], 1000, 'v1');
    const reconciler = await startReconciler(prefix, async () => desired);
    const log: RunRecord[] = [];
    await startWorker(prefix, 'w', log);
    expect((await reconcileNow(reconciler)).upserted.sort()).toEqual([1, 2, 3]);
    await waitFor('runs of all three', () => [1, 2, 3].every((id) => slotsOf(log, id).length >= 1), 3000);

    desired = [{ associationId: 1, periodMs: 1000, version: 'v2' }, { associationId: 2, periodMs: 1000, version: 'v1' }];
    const changedAt = Date.now();
    const change = await reconcileNow(reconciler);
    expect(change).toMatchObject({ reconciled: true, upserted: [1], removed: [3], unchanged: 1 });
    await sleep(2500);

    // 3: no slot after its removal was run; Redis has no scheduler and no job left for it.
    expect(slotsOf(log, 3).every((slot) => slot <= changedAt)).toBe(true);
    const queue = runsQueue(prefix);
    expect(await queue.getJobScheduler('3')).toBeUndefined();
    expect((await queue.getJobs(['delayed', 'waiting', 'active'])).filter((job) => job.repeatJobKey === '3')).toEqual([]);
    // 1: every slot after the change ran with the new version; the template data in Redis has it.
    const after = log.filter((run) => run.associationId === 1 && run.slotMs > changedAt + 1000);
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(new Set(after.map((run) => run.version))).toEqual(new Set(['v2']));
    expect((await queue.getJobScheduler('1'))?.template?.data).toMatchObject({ version: 'v2', periodMs: 1000 });
    // 2 kept its slots: no gap, no duplicate across the change.
    expect(new Set(gaps(slotsOf(log, 2)))).toEqual(new Set([1000]));
    expect(duplicates(log)).toEqual([]);

    // What was last upserted is read back from Redis: a fresh reconciler changes nothing.
    await reconciler.stop();
    const again = await startReconciler(prefix, async () => desired);
    expect(await reconcileNow(again)).toMatchObject({ reconciled: true, upserted: [], removed: [], unchanged: 2 });
    // A period change is an upsert (and `every` follows).
    desired = [{ associationId: 1, periodMs: 1500, version: 'v2' }, { associationId: 2, periodMs: 1000, version: 'v1' }];
    expect(await reconcileNow(again)).toMatchObject({ upserted: [1], unchanged: 1 });
    expect((await queue.getJobScheduler('1'))?.every).toBe(1500);
  });

  it('reconciles on its own every driftEveryMs, catching changes nobody announced', async () => {
    const prefix = newPrefix();
    let desired = entries([1, 2], 1000);
    const drifts: Array<{ upserted: number[]; removed: number[] }> = [];
    const reconciler = await startReconciler(prefix, async () => desired, { driftEveryMs: 1000 });
    reconciler.on('reconciled', (result) => {
      if (result.trigger === 'drift') drifts.push({ upserted: result.upserted, removed: result.removed });
    });
    const queue = runsQueue(prefix);
    // The drift scheduler's first job comes at once: no request was made.
    await waitFor('the first drift reconcile', () => drifts.length >= 1, 5000);
    expect(drifts[0]!.upserted.sort()).toEqual([1, 2]);
    desired = entries([2, 7], 1000);
    await waitFor('a drift reconcile with the change', () => drifts.some((d) => d.removed.includes(1)), 5000);
    expect(drifts.find((d) => d.removed.includes(1))).toEqual({ upserted: [7], removed: [1] });
    expect((await queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['2', '7']);
  });

  it('serialises two reconcilers: their reconciles never overlap and each association gets exactly one scheduler', async () => {
    const prefix = newPrefix();
    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    let loading = 0;
    let overlap = 0;
    let loads = 0;
    const loadSchedules = async () => {
      loading += 1;
      loads += 1;
      overlap = Math.max(overlap, loading);
      await sleep(400);
      loading -= 1;
      return entries(ids, 1000);
    };
    const a = await startReconciler(prefix, loadSchedules, { name: 'rec-a' });
    const b = await startReconciler(prefix, loadSchedules, { name: 'rec-b' });
    // Two requests at once, then a third while the first reconcile is reading the store.
    const firstTwo = await Promise.all([a.requestReconcile(), b.requestReconcile()]);
    await waitFor('a reconcile reading the store', () => loading > 0, 5000);
    const third = await b.requestReconcile();
    const results = await Promise.all([...firstTwo, third].map((id) => a.waitForReconcile(id, 15_000)));

    expect(overlap).toBe(1);
    expect(loads).toBe(2); // the two simultaneous requests coalesce; the one made during a reconcile does not
    expect(results.filter((r) => r.reconciled)).toHaveLength(2);
    expect(results.flatMap((r) => r.upserted).sort((x, y) => x - y)).toEqual(ids);
    const queue = runsQueue(prefix);
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => Number(s.key)).sort((x, y) => x - y)).toEqual(ids);
    const pending = await queue.getJobs(['delayed', 'waiting']);
    expect(pending.map((job) => job.repeatJobKey).sort()).toEqual(ids.map(String).sort());
  });
});

describe('start rule and stalled jobs', () => {
  it('skips a stale job as skipped-late (completed, not failed, never run) and the chain goes on', async () => {
    const prefix = newPrefix();
    // Associations 1 (offset 444 ms) and 3 (682 ms); one worker with concurrency 1.
    const reconciler = await startReconciler(prefix, async () => entries([1, 3], 1000));
    const log: RunRecord[] = [];
    let held = false;
    const worker = await startWorker(prefix, 'busy', log, { concurrency: 1 }, async (run) => {
      if (run.associationId === 1 && !held) {
        held = true;
        await sleep(2500); // a run that overstays (it ignores its signal), while 3's slots come due
      }
      return 'stored';
    });
    const skipped: Array<{ associationId: number; slotMs: number; reason: string }> = [];
    worker.on('runSkipped', (event) => skipped.push(event));
    await reconcileNow(reconciler);
    await waitFor('a skipped-late job', () => skipped.length > 0, 8000);
    const firstSkip = skipped[0]!;
    await waitFor('runs after the skip', () => [1, 3].every((id) => log.some((run) => run.associationId === id && run.slotMs > firstSkip.slotMs)), 5000);

    // Skipped slots were never run, and BullMQ has them as completed with a skipped-late result.
    for (const skip of skipped) expect(log.some((run) => run.associationId === skip.associationId && run.slotMs === skip.slotMs)).toBe(false);
    expect(new Set(skipped.map((s) => s.reason))).toEqual(new Set(['late']));
    const queue = runsQueue(prefix);
    const job = await queue.getJob(`repeat:${firstSkip.associationId}:${firstSkip.slotMs}`);
    expect(await job?.getState()).toBe('completed');
    expect(job?.returnvalue).toMatchObject({ result: 'skipped-late', reason: 'late', slotMs: firstSkip.slotMs });
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
    const figures = await worker.readFigures();
    expect(figures.skippedLate).toBe(skipped.length);
    expect(figures.taken).toBe(figures.started + figures.skippedLate);
    // Catch-up after the hold: one job per association (the oldest waiting one), then on the grid again.
    expect(skipped.filter((s) => s.associationId === 3).length).toBe(1);
    expect(duplicates(log)).toEqual([]);
  });

  it('takes the slot from the job ID: after an upsert that replaced a due job, timestamp + delay is not the slot', async () => {
    const prefix = newPrefix();
    let version = 'v1';
    const reconciler = await startReconciler(prefix, async () => [{ associationId: 5, periodMs: 1000, version }]);
    await reconcileNow(reconciler);
    const queue = runsQueue(prefix);
    const slot = (await queue.getJobScheduler('5'))!.next!;
    // No worker yet: let the slot pass by more than period − D, then change the version (re-upsert).
    await sleep(Math.max(0, slot - Date.now()) + 900);
    version = 'v2';
    expect((await reconcileNow(reconciler)).upserted).toEqual([5]);
    const replaced = await queue.getJob(`repeat:5:${slot}`);
    expect(replaced?.data).toMatchObject({ version: 'v2' });
    expect(replaced!.timestamp + replaced!.delay).toBeGreaterThan(slot + 800);

    const log: RunRecord[] = [];
    const worker = await startWorker(prefix, 'late', log);
    const skipped: number[] = [];
    worker.on('runSkipped', (event) => skipped.push(event.slotMs));
    await waitFor('2 runs', () => log.length >= 2, 5000);
    // The replaced job carried the old slot in its ID: it was too late (had timestamp + delay been
    // taken as the slot, it would have run as on time).
    expect(skipped[0]).toBe(slot);
    // Every run's slot is its job ID's millis; a job that waited in the delayed set has delay 0 once promoted.
    // (The first run's job was made when the late one was taken, just before its slot.)
    for (const run of log.slice(1)) {
      const job = await queue.getJob(`repeat:5:${run.slotMs}`);
      expect(job?.data).toMatchObject({ version: 'v2' });
      expect(job!.delay).toBe(0);
      expect(job!.timestamp).toBeLessThan(run.slotMs - 100);
    }
  });

  it('re-queues the job of a worker killed with SIGKILL (stalled check), skips it as too late, and the chain goes on', async () => {
    const prefix = newPrefix();
    const periodMs = 1500;
    const reconciler = await startReconciler(prefix, async () => [{ associationId: 8, periodMs, version: 'v1' }]);
    const childOptions = { ...RULES, name: 'doomed', concurrency: 1 };
    const child: ChildProcess = spawn(process.execPath, [path.resolve('test/fixtures/scale-out-worker.mjs'), redis.url, prefix, JSON.stringify(childOptions)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const lines: Array<{ event: string; slotMs?: number; jobId?: string }> = [];
    let stderr = '';
    let buffer = '';
    child.stdout!.on('data', (data: Buffer) => {
      buffer += data.toString();
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        lines.push(JSON.parse(buffer.slice(0, at)) as { event: string });
        buffer = buffer.slice(at + 1);
      }
    });
    child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
    await waitFor('the child worker', () => lines.some((l) => l.event === 'ready') || child.exitCode !== null, 10_000);
    expect(child.exitCode, stderr).toBeNull();
    await reconcileNow(reconciler);
    await waitFor('the child to start a run', () => lines.some((l) => l.event === 'started'), 5000);
    const held = lines.find((l) => l.event === 'started')!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const queue = runsQueue(prefix);
    expect(await (await queue.getJob(held.jobId!))?.getState()).toBe('active'); // still locked by the dead worker
    const log: RunRecord[] = [];
    const survivor = await startWorker(prefix, 'survivor', log);
    const stalled: string[] = [];
    survivor.on('stalled', ({ jobId }) => stalled.push(jobId));
    await waitFor('the stalled job to be re-queued', () => stalled.includes(held.jobId!), 8000);
    await waitFor('the held job to finish', async () => (await (await queue.getJob(held.jobId!))?.getState()) === 'completed', 5000);
    await waitFor('two runs after the kill', () => log.length >= 2, 5000);

    const job = await queue.getJob(held.jobId!);
    expect(job?.returnvalue).toMatchObject({ result: 'skipped-late', worker: 'survivor', slotMs: held.slotMs });
    // The dead worker's slot was not run again; every later slot ran once, none missed.
    const slots = slotsOf(log, 8);
    expect(slots.includes(held.slotMs!)).toBe(false);
    expect(slots[0]).toBe(held.slotMs! + periodMs);
    expect(new Set(gaps(slots))).toEqual(new Set([periodMs]));
    const figures = await survivor.readFigures();
    expect(figures.stalledRequeues).toBeGreaterThanOrEqual(1);
    expect(figures.skippedLate).toBe(1);
    expect((await queue.getJobCounts('failed')).failed).toBe(0);
  });
});

describe('stop', () => {
  it('lets a run finish within the grace, aborts one that outlasts it, leaves one that ignores the abort; D aborts a run', async () => {
    const prefix = newPrefix();
    const reconciler = await startReconciler(prefix, async () => entries([1], 1000));
    await reconcileNow(reconciler);
    const ending = (event: { result: string; error?: Error }) => `${event.result}:${event.error?.message ?? ''}`;

    // Within the grace.
    const log: RunRecord[] = [];
    const results: string[] = [];
    const worker = await startWorker(prefix, 'quick', log, {}, () => sleep(150).then(() => 'stored' as const));
    worker.on('runFinished', (event) => results.push(ending(event)));
    await waitFor('a run', () => log.length === 1, 3000);
    expect(await worker.stop({ graceMs: 2000 })).toEqual({ finished: 1, aborted: 0, abandoned: 0 });
    expect(results).toEqual(['completed:']);

    // Outlasts the grace (D 900 ms here, so the grace ends first): aborted, and the run ends.
    const untilAborted = (run: SlotRun) => new Promise<SlotOutcome>((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason as Error)));
    const log2: RunRecord[] = [];
    const results2: string[] = [];
    const worker2 = await startWorker(prefix, 'slow', log2, { deadlineMs: 900 }, untilAborted);
    worker2.on('runFinished', (event) => results2.push(ending(event)));
    await waitFor('a run', () => log2.length === 1, 3000);
    expect(await worker2.stop({ graceMs: 200, abortWaitMs: 2000 })).toEqual({ finished: 0, aborted: 1, abandoned: 0 });
    expect(results2).toEqual([expect.stringMatching(/^aborted:run worker stopped: the run did not finish within the grace of 200 ms/)]);

    // Ignores its signal: stop() gives up after abortWaitMs and says so.
    const log3: RunRecord[] = [];
    const worker3 = await startWorker(prefix, 'deaf', log3, { deadlineMs: 900 }, () => new Promise<SlotOutcome>(() => {}));
    await waitFor('a run', () => log3.length === 1, 3000);
    expect(await worker3.stop({ graceMs: 100, abortWaitMs: 200 })).toEqual({ finished: 0, aborted: 1, abandoned: 1 });

    // D: the signal aborts D after the start, whatever stop does.
    const log4: RunRecord[] = [];
    const results4: string[] = [];
    const worker4 = await startWorker(prefix, 'deadline', log4, {}, untilAborted);
    worker4.on('runFinished', (event) => results4.push(ending(event)));
    await waitFor('an aborted run', () => results4.length >= 1, 5000);
    expect(results4[0]).toMatch(/^aborted:run of association 1 \(slot \d+\) passed its deadline of 300 ms/);
    const figures4 = await worker4.readFigures();
    expect(figures4.aborted).toBeGreaterThanOrEqual(1);
    expect(figures4.failed).toBe(figures4.aborted);
  });
});

describe('Redis restart', () => {
  it('keeps the schedulers over a restart of the throwaway Redis (AOF, same port) and the worker runs on', async () => {
    const prefix = newPrefix();
    const reconciler = await startReconciler(prefix, async () => entries([1, 2], 1000));
    const log: RunRecord[] = [];
    await startWorker(prefix, 'through', log);
    await reconcileNow(reconciler);
    await waitFor('runs', () => log.length >= 2, 3000);
    const pidBefore = redis.pid;
    await redis.restart();
    expect(redis.pid).not.toBe(pidBefore);
    const restartedAt = Date.now();
    const queue = runsQueue(prefix);
    expect((await queue.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['1', '2']);
    await waitFor('runs after the restart', () => [1, 2].every((id) => log.some((run) => run.associationId === id && run.startedAt > restartedAt)), 8000);
    expect(duplicates(log)).toEqual([]);
  });
});

describe('device slots (unit)', () => {
  it('gives a free slot at once, queues the rest in order, and times a wait out at its deadline', async () => {
    const slots = new DeviceSlots(1);
    expect(await slots.acquire('d', Date.now() + 1000)).toBe(true);
    const order: string[] = [];
    const second = slots.acquire('d', Date.now() + 1000).then((ok) => order.push(`second:${ok}`));
    const third = slots.acquire('d', Date.now() + 50).then((ok) => order.push(`third:${ok}`));
    expect(await slots.acquire('other', Date.now())).toBe(true);
    await sleep(100);
    expect(order).toEqual(['third:false']);
    slots.release('d');
    await second;
    await third;
    expect(order).toEqual(['third:false', 'second:true']);
    expect(slots.runningOn('d')).toBe(1);
    slots.release('d');
    expect(slots.runningOn('d')).toBe(0);
    expect(await slots.acquire('d', Date.now() - 1)).toBe(true);
  });
});
