// The agent's scheduler under vitest fake timers (the default clock reads the faked globals), and
// under a hand-driven clock where a timer must fire late.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createScheduler, type Scheduler } from '../../host/agent/scheduler/scheduler.js';
import type { SchedulerJob } from '../../host/agent/scheduler/job.js';
import type { SchedulerClock } from '../../host/agent/scheduler/clock.js';
import { SchedulerError } from '../../host/contract/errors.js';
import type { RunFinishedEvent, RunSkippedEvent, RunStartedEvent, SchedulerOptions } from '../../host/agent/scheduler/types.js';

/** A run that takes ms of (fake) time. */
const takes = (ms: number) => () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), ms));
/** A run that never ends, whatever its signal says. */
const hangs = () => new Promise<never>(() => {});
/** A run that ends only when aborted. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));

/** Deterministic numbers in [0, 1) (a linear congruential generator). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Recorder {
  started: Array<RunStartedEvent & { at: number }>;
  finished: RunFinishedEvent[];
  skipped: RunSkippedEvent[];
  startsOf(key: string): number[];
}

function record(scheduler: Scheduler, t0: number): Recorder {
  const recorder: Recorder = {
    started: [],
    finished: [],
    skipped: [],
    startsOf: (key) => recorder.started.filter((event) => event.key === key).map((event) => event.at),
  };
  scheduler.on('runStarted', (event) => recorder.started.push({ ...event, at: performance.now() - t0 }));
  scheduler.on('runFinished', (event) => recorder.finished.push(event));
  scheduler.on('runSkipped', (event) => recorder.skipped.push(event));
  return recorder;
}

/** Peak of runs in flight at once, overall and per device, measured from inside the runs. */
function concurrencyProbe() {
  let now = 0;
  const byDevice = new Map<string, number>();
  const peak = { total: 0, byDevice: new Map<string, number>() };
  const wrap = (deviceKey: string, run: SchedulerJob['run']): SchedulerJob['run'] => async (signal) => {
    now += 1;
    const onDevice = (byDevice.get(deviceKey) ?? 0) + 1;
    byDevice.set(deviceKey, onDevice);
    peak.total = Math.max(peak.total, now);
    peak.byDevice.set(deviceKey, Math.max(peak.byDevice.get(deviceKey) ?? 0, onDevice));
    try {
      return await run(signal);
    } finally {
      now -= 1;
      byDevice.set(deviceKey, byDevice.get(deviceKey)! - 1);
    }
  };
  return { peak, wrap };
}

function invariant(scheduler: Scheduler): void {
  const stats = scheduler.stats();
  // Every due time is started, skipped, dropped or still waiting.
  expect(stats.due).toBe(stats.started + stats.skipped + stats.dropped + stats.waiting);
  expect(stats.started).toBe(stats.completed + stats.failed + stats.aborted + stats.running);
}

describe('agent scheduler', () => {
  let scheduler: Scheduler | undefined;
  let t0 = 0;
  const make = (options: SchedulerOptions) => (scheduler = createScheduler(options));

  beforeEach(() => {
    vi.useFakeTimers();
    t0 = performance.now();
  });
  afterEach(async () => {
    if (scheduler && !scheduler.stopped) {
      const stopping = scheduler.stop({ graceMs: 0 });
      await vi.runOnlyPendingTimersAsync();
      await stopping;
    }
    scheduler = undefined;
    vi.useRealTimers();
  });

  it('runs a job at its jittered first due time, then every period on a fixed grid', async () => {
    const s = make({ jitterMs: 2_000, random: () => 0.25 });
    const rec = record(s, t0);
    s.add({ key: 'a', deviceKey: 'd1', periodMs: 10_000, run: takes(3_000) });
    await vi.advanceTimersByTimeAsync(499);
    expect(rec.started).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(rec.startsOf('a')).toEqual([500, 10_500, 20_500, 30_500]);
    expect(rec.finished.map((event) => [event.outcome, event.durationMs, event.value])).toEqual([
      ['completed', 3_000, 'done'],
      ['completed', 3_000, 'done'],
      ['completed', 3_000, 'done'],
    ]);
    expect(s.jobStats('a')).toMatchObject({ due: 4, started: 4, completed: 3, running: true, nextDueAt: t0 + 40_500 });
    expect(s.stats().lateness).toEqual({ count: 4, p50: 0, p99: 0, max: 0 });
    invariant(s);
  });

  it('spreads first runs over [0, min(periodMs, jitterMs)) so many jobs do not fire together', async () => {
    const s = make({ jitterMs: 5_000, random: seeded(42), maxConcurrent: 1_000, maxPerDevice: 1 });
    const rec = record(s, t0);
    for (let i = 0; i < 1_000; i++) s.add({ key: `long-${i}`, deviceKey: `dev-${i}`, periodMs: 60_000, run: takes(1) });
    for (let i = 0; i < 100; i++) s.add({ key: `short-${i}`, deviceKey: `sdev-${i}`, periodMs: 800, run: takes(1) });
    await vi.advanceTimersByTimeAsync(5_000);
    const longStarts = rec.started.filter((event) => event.key.startsWith('long-')).map((event) => event.at);
    expect(longStarts).toHaveLength(1_000);
    expect(Math.min(...longStarts)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...longStarts)).toBeLessThan(5_000);
    // Spread: every 500 ms tenth of the window holds a share, none holds a crowd.
    const buckets = Array.from({ length: 10 }, (_, b) => longStarts.filter((at) => Math.floor(at / 500) === b).length);
    for (const count of buckets) expect(count).toBeGreaterThan(50);
    for (const count of buckets) expect(count).toBeLessThan(150);
    // A period shorter than the jitter bounds the first run by the period.
    const shortFirsts = Array.from({ length: 100 }, (_, i) => rec.startsOf(`short-${i}`)[0]!);
    expect(Math.max(...shortFirsts)).toBeLessThan(800);
  });

  it('never starts a run before its due time, even when the timer fires early', async () => {
    // Node's timers count whole ms from a cached loop time and can fire a little early.
    const early = { now: () => performance.now(), setTimeout: (cb: () => void, ms: number) => setTimeout(cb, Math.max(0, ms - 3)), clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>) };
    const s = make({ clock: early, jitterMs: 0 });
    const starts: Array<[number, number]> = [];
    s.on('runStarted', (event) => starts.push([event.startedAt, event.dueAt]));
    s.add({ key: 'a', deviceKey: 'd', periodMs: 1_000, run: takes(1) });
    await vi.advanceTimersByTimeAsync(3_500);
    expect(starts).toHaveLength(4);
    for (const [startedAt, dueAt] of starts) expect(startedAt).toBeGreaterThanOrEqual(dueAt);
  });

  it('keeps a straying jitter source inside the window', async () => {
    const s = make({ jitterMs: 1_000, random: () => 1 });
    const dues: number[] = [];
    s.on('runStarted', (event) => dues.push(event.dueAt - t0));
    s.add({ key: 'edge', deviceKey: 'd', periodMs: 10_000, run: takes(1) });
    // The due time lies inside the window; the start follows it on the next whole ms at most.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(dues).toHaveLength(1);
    expect(dues[0]).toBeLessThan(1_000);
  });

  it('never runs two runs of one job at once: a run still going at its next due time is skipped and counted', async () => {
    const { peak, wrap } = concurrencyProbe();
    const s = make({ jitterMs: 0 });
    const rec = record(s, t0);
    s.add({ key: 'slow', deviceKey: 'd1', periodMs: 10_000, run: wrap('d1', takes(25_000)) });
    await vi.advanceTimersByTimeAsync(60_000);
    // Due at 0, 10, 20 (skipped), 30, 40, 50 (skipped), 60: starts at 0, 30, 60.
    expect(rec.startsOf('slow')).toEqual([0, 30_000, 60_000]);
    expect(rec.skipped.map((event) => [event.dueAt - t0, event.reason])).toEqual([
      [10_000, 'running'],
      [20_000, 'running'],
      [40_000, 'running'],
      [50_000, 'running'],
    ]);
    expect(peak.total).toBe(1);
    expect(s.jobStats('slow')).toMatchObject({ due: 7, started: 3, completed: 2, skipped: 4, running: true });
    invariant(s);
  });

  it('holds the global bound: runs wait for a slot in FIFO order and start as slots free', async () => {
    const { peak, wrap } = concurrencyProbe();
    const s = make({ jitterMs: 0, maxConcurrent: 3, maxPerDevice: 5 });
    const rec = record(s, t0);
    for (let i = 0; i < 7; i++) s.add({ key: `j${i}`, deviceKey: `d${i}`, periodMs: 60_000, run: wrap(`d${i}`, takes(1_000)) });
    await vi.advanceTimersByTimeAsync(0);
    expect(s.stats()).toMatchObject({ running: 3, waiting: 4 });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(peak.total).toBe(3);
    expect(rec.started.map((event) => [event.key, event.at])).toEqual([
      ['j0', 0], ['j1', 0], ['j2', 0], ['j3', 1_000], ['j4', 1_000], ['j5', 1_000], ['j6', 2_000],
    ]);
    // Lateness is the wait for a slot.
    expect(rec.started.map((event) => event.latenessMs)).toEqual([0, 0, 0, 1_000, 1_000, 1_000, 2_000]);
    expect(s.stats()).toMatchObject({ completed: 7, running: 0, waiting: 0, lateness: { count: 7, max: 2_000, p99: 2_000 } });
    invariant(s);
  });

  it('holds the per-device bound without letting a busy device hold up the others', async () => {
    const { peak, wrap } = concurrencyProbe();
    const s = make({ jitterMs: 0, maxConcurrent: 4, maxPerDevice: 2 });
    const rec = record(s, t0);
    for (let i = 0; i < 6; i++) s.add({ key: `a${i}`, deviceKey: 'A', periodMs: 60_000, run: wrap('A', takes(1_000)) });
    s.add({ key: 'b0', deviceKey: 'B', periodMs: 60_000, run: wrap('B', takes(1_000)) });
    await vi.advanceTimersByTimeAsync(0);
    // b0 was queued last, behind four runs for A that cannot start: it starts at once.
    expect(rec.started.map((event) => event.key)).toEqual(['a0', 'a1', 'b0']);
    expect(s.stats()).toMatchObject({ running: 3, waiting: 4 });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(rec.started.map((event) => [event.key, event.at])).toEqual([
      ['a0', 0], ['a1', 0], ['b0', 0], ['a2', 1_000], ['a3', 1_000], ['a4', 2_000], ['a5', 2_000],
    ]);
    expect(peak.byDevice.get('A')).toBe(2);
    expect(peak.total).toBe(3);
  });

  it('skips a run whose previous run still waits for a slot (work never piles up)', async () => {
    const s = make({ jitterMs: 0, maxConcurrent: 1 });
    const rec = record(s, t0);
    s.add({ key: 'hog', deviceKey: 'd1', periodMs: 10_000, run: takes(35_000) });
    s.add({ key: 'starved', deviceKey: 'd2', periodMs: 10_000, run: takes(1) });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(s.jobStats('starved')).toMatchObject({ due: 4, started: 0, skipped: 3, waiting: true });
    expect(rec.skipped.filter((event) => event.key === 'starved').map((event) => event.reason)).toEqual(['waiting', 'waiting', 'waiting']);
    expect(s.stats().waiting).toBe(1);
    await vi.advanceTimersByTimeAsync(5_001);
    // The one run that waited since 0 starts when the slot frees, 35 s late; nothing queued behind it.
    expect(rec.started.find((event) => event.key === 'starved')).toMatchObject({ latenessMs: 35_000 });
    expect(s.jobStats('starved')).toMatchObject({ started: 1, completed: 1, waiting: false });
    invariant(s);
  });

  it('does not let a job that always hangs starve the others (global bound with per-device bound)', async () => {
    const s = make({ jitterMs: 1_000, random: seeded(7), maxConcurrent: 4, maxPerDevice: 2 });
    for (let i = 0; i < 5; i++) s.add({ key: `hang-${i}`, deviceKey: 'stuck', periodMs: 10_000, run: hangs });
    for (let i = 0; i < 6; i++) s.add({ key: `ok-${i}`, deviceKey: `ok-dev-${i % 3}`, periodMs: 10_000, run: takes(500) });
    await vi.advanceTimersByTimeAsync(100_000);
    // The stuck device holds 2 of the 4 slots forever; its 3 other jobs wait and are skipped each period.
    for (let i = 0; i < 6; i++) expect(s.jobStats(`ok-${i}`)).toMatchObject({ due: 10, started: 10, completed: 10, skipped: 0 });
    const hung = Array.from({ length: 5 }, (_, i) => s.jobStats(`hang-${i}`)!);
    expect(hung.filter((stats) => stats.running)).toHaveLength(2);
    expect(hung.filter((stats) => stats.waiting)).toHaveLength(3);
    for (const stats of hung) expect(stats.skipped).toBe(9);
    expect(s.stats()).toMatchObject({ running: 2, waiting: 3, skipped: 45 });
    invariant(s);
  });

  it('stop lets runs in flight finish within the grace, then aborts the rest and drops waiting runs', async () => {
    const s = make({ jitterMs: 0, maxConcurrent: 3 });
    const rec = record(s, t0);
    s.add({ key: 'quick', deviceKey: 'd1', periodMs: 10_000, run: takes(2_000) });
    s.add({ key: 'abortable', deviceKey: 'd2', periodMs: 10_000, run: untilAborted });
    s.add({ key: 'deaf', deviceKey: 'd3', periodMs: 10_000, run: hangs });
    s.add({ key: 'queued', deviceKey: 'd4', periodMs: 10_000, run: takes(1) });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.stats()).toMatchObject({ running: 3, waiting: 1 });

    const stopping = s.stop({ graceMs: 5_000 });
    expect(() => s.add({ key: 'late', deviceKey: 'd5', periodMs: 1_000, run: takes(1) })).toThrow(SchedulerError);
    let result: Awaited<typeof stopping> | undefined;
    void stopping.then((value) => (result = value));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(result).toBeUndefined();
    expect(rec.finished.map((event) => event.key)).toEqual(['quick']);
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toEqual({
      finished: 1,
      dropped: 1,
      aborted: [
        { key: 'abortable', deviceKey: 'd2', dueAt: t0, startedAt: t0 },
        { key: 'deaf', deviceKey: 'd3', dueAt: t0, startedAt: t0 },
      ],
    });
    const aborted = rec.finished.find((event) => event.key === 'abortable')!;
    expect(aborted.outcome).toBe('aborted');
    expect(aborted.error?.message).toMatch(/grace of 5000 ms/);
    // Nothing is scheduled any more; the run that ignores its signal still counts as running.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(rec.started).toHaveLength(3);
    expect(s.stats()).toMatchObject({ completed: 1, aborted: 1, dropped: 1, running: 1, waiting: 0 });
    expect(await s.stop()).toBe(result);
    invariant(s);
  });

  it('stop resolves at once when nothing runs, and as soon as the last run ends within the grace', async () => {
    const idle = make({ jitterMs: 0 });
    expect(await idle.stop({ graceMs: 10_000 })).toEqual({ finished: 0, aborted: [], dropped: 0 });

    const s = make({ jitterMs: 0 });
    s.add({ key: 'a', deviceKey: 'd', periodMs: 10_000, run: takes(1_500) });
    await vi.advanceTimersByTimeAsync(0);
    const stopping = s.stop({ graceMs: 60_000 });
    await vi.advanceTimersByTimeAsync(1_500);
    expect(await stopping).toEqual({ finished: 1, aborted: [], dropped: 0 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('replace keeps the phase, lets the run in flight finish with the old function, and uses the new one next', async () => {
    const s = make({ jitterMs: 4_000, random: () => 0.5 });
    const rec = record(s, t0);
    const calls: string[] = [];
    const version = (name: string) => async () => {
      calls.push(name);
      await takes(3_000)();
      return name;
    };
    s.add({ key: 'a', deviceKey: 'd1', periodMs: 10_000, run: version('v1') });
    await vi.advanceTimersByTimeAsync(3_000); // first due at 2 s, run in flight
    s.replace({ key: 'a', deviceKey: 'd1', periodMs: 10_000, run: version('v2') });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(rec.startsOf('a')).toEqual([2_000, 12_000, 22_000]);
    expect(calls).toEqual(['v1', 'v2', 'v2']);
    expect(rec.finished.map((event) => [event.outcome, event.value])).toEqual([['completed', 'v1'], ['completed', 'v2']]);

    // A new period counts from the last due time (22 s): next due 27 s, then every 5 s.
    s.replace({ key: 'a', deviceKey: 'd1', periodMs: 5_000, run: version('v3') });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(rec.startsOf('a')).toEqual([2_000, 12_000, 22_000, 27_000, 32_000]);
    expect(() => s.replace({ key: 'nope', deviceKey: 'd1', periodMs: 1, run: hangs })).toThrow(/"nope" is not scheduled/);
  });

  it('replace moves a waiting run to its new device', async () => {
    const s = make({ jitterMs: 0, maxPerDevice: 1 });
    const rec = record(s, t0);
    s.add({ key: 'busy', deviceKey: 'A', periodMs: 60_000, run: hangs });
    s.add({ key: 'mover', deviceKey: 'A', periodMs: 60_000, run: takes(1) });
    await vi.advanceTimersByTimeAsync(0);
    expect(s.jobStats('mover')).toMatchObject({ waiting: true });
    s.replace({ key: 'mover', deviceKey: 'B', periodMs: 60_000, run: takes(1) });
    expect(rec.started.map((event) => [event.key, event.deviceKey])).toEqual([['busy', 'A'], ['mover', 'B']]);
  });

  it('remove stops a job, drops its waiting run, lets its run in flight end, and a re-added job does not overlap it', async () => {
    const s = make({ jitterMs: 0, maxConcurrent: 1 });
    const rec = record(s, t0);
    s.add({ key: 'a', deviceKey: 'd1', periodMs: 10_000, run: takes(15_000) });
    s.add({ key: 'b', deviceKey: 'd2', periodMs: 10_000, run: takes(1) });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.jobStats('b')).toMatchObject({ waiting: true });
    expect(s.remove('b')).toBe(true);
    expect(s.remove('b')).toBe(false);
    expect(s.stats()).toMatchObject({ jobs: 1, waiting: 0, dropped: 1 });

    expect(s.remove('a')).toBe(true); // its run goes on to 15 s
    s.add({ key: 'a', deviceKey: 'd1', periodMs: 4_000, run: takes(1) });
    await vi.advanceTimersByTimeAsync(20_000);
    expect(rec.finished.filter((event) => event.key === 'a')[0]).toMatchObject({ outcome: 'completed', durationMs: 15_000 });
    // New job: due at 1 s, 5 s, 9 s, 13 s while the old run went on (skipped), then 17 s, 21 s.
    expect(rec.startsOf('a')).toEqual([0, 17_000, 21_000]);
    expect(rec.startsOf('b')).toEqual([]);
    expect(s.jobStats('a')).toMatchObject({ skipped: 4, started: 2 });
  });

  it('counts a run that throws or rejects as failed with its error, and goes on', async () => {
    const s = make({ jitterMs: 0 });
    const rec = record(s, t0);
    s.add({ key: 'sync', deviceKey: 'd', periodMs: 1_000, run: () => { throw new TypeError('bad driver'); } });
    s.add({ key: 'async', deviceKey: 'e', periodMs: 1_000, run: () => Promise.reject('plain string') });
    await vi.advanceTimersByTimeAsync(2_500);
    expect(s.jobStats('sync')).toMatchObject({ started: 3, failed: 3 });
    expect(s.jobStats('async')).toMatchObject({ started: 3, failed: 3 });
    const sync = rec.finished.find((event) => event.key === 'sync')!;
    expect(sync.outcome).toBe('failed');
    expect(sync.error).toBeInstanceOf(TypeError);
    expect(rec.finished.find((event) => event.key === 'async')!.error?.message).toBe('plain string');
  });

  it('reports a listener that throws on its error event and keeps its state', async () => {
    const s = make({ jitterMs: 0 });
    const errors: Error[] = [];
    s.on('error', (error) => errors.push(error));
    s.on('runStarted', () => { throw new Error('listener bug'); });
    s.add({ key: 'a', deviceKey: 'd', periodMs: 1_000, run: takes(10) });
    await vi.advanceTimersByTimeAsync(2_500);
    expect(errors.map((error) => error.message)).toEqual(['listener bug', 'listener bug', 'listener bug']);
    expect(s.jobStats('a')).toMatchObject({ started: 3, completed: 3 });
  });

  it('rejects bad jobs and options with errors naming the field', () => {
    const s = make({});
    const job: SchedulerJob = { key: 'k', deviceKey: 'd', periodMs: 1_000, run: takes(1) };
    const codeOf = (fn: () => void) => { try { fn(); } catch (error) { return [(error as SchedulerError).code, (error as Error).message]; } return undefined; };
    expect(codeOf(() => s.add({ ...job, key: '' }))).toEqual(['INVALID_JOB', 'scheduler job: key must be a non-empty string (got "")']);
    expect(codeOf(() => s.add({ ...job, periodMs: -5 }))).toEqual(['INVALID_JOB', 'scheduler job "k": periodMs must be a positive number of milliseconds (got -5)']);
    expect(codeOf(() => s.add({ ...job, periodMs: Number.POSITIVE_INFINITY }))?.[0]).toBe('INVALID_JOB');
    expect(codeOf(() => s.add({ ...job, deviceKey: 3 as unknown as string }))).toEqual(['INVALID_JOB', 'scheduler job "k": deviceKey must be a non-empty string (got 3)']);
    expect(codeOf(() => s.add({ ...job, run: 'x' as unknown as SchedulerJob['run'] }))).toEqual(['INVALID_JOB', 'scheduler job "k": run must be a function (got "x")']);
    s.add(job);
    expect(codeOf(() => s.add(job))).toEqual(['DUPLICATE_JOB', 'scheduler job "k" is already scheduled (use replace to change it)']);
    expect(codeOf(() => createScheduler({ maxPerDevice: 0 }))).toEqual(['INVALID_OPTIONS', 'scheduler option maxPerDevice must be a positive integer (got 0)']);
    expect(codeOf(() => createScheduler({ maxConcurrent: 1.5 }))?.[0]).toBe('INVALID_OPTIONS');
    expect(codeOf(() => createScheduler({ jitterMs: -1 }))?.[0]).toBe('INVALID_OPTIONS');
  });
});

describe('agent scheduler on an injected clock', () => {
  /** A clock whose time moves only when told, and whose timers fire only when fired. */
  function manualClock() {
    let time = 0;
    let nextId = 0;
    const timers = new Map<number, { at: number; callback: () => void }>();
    const clock: SchedulerClock = {
      now: () => time,
      setTimeout: (callback, ms) => { timers.set(++nextId, { at: time + ms, callback }); return nextId; },
      clearTimeout: (handle) => void timers.delete(handle as number),
    };
    /** Jumps to `to` (a blocked event loop), then fires the timers that are due, oldest first. */
    const jump = (to: number) => {
      time = to;
      const due = [...timers].filter(([, timer]) => timer.at <= time).sort((x, y) => x[1].at - y[1].at);
      for (const [id, timer] of due) { timers.delete(id); timer.callback(); }
    };
    return { clock, jump, pending: () => [...timers.values()].map((timer) => timer.at) };
  }

  it('uses the injected clock, and counts due times a late timer passed over as missed instead of firing each', async () => {
    const { clock, jump, pending } = manualClock();
    const s = createScheduler({ clock, jitterMs: 0 });
    const skipped: RunSkippedEvent[] = [];
    const starts: number[] = [];
    s.on('runSkipped', (event) => skipped.push(event));
    s.on('runStarted', (event) => starts.push(event.startedAt));
    s.add({ key: 'a', deviceKey: 'd', periodMs: 1_000, run: async () => 'ok' });
    expect(pending()).toEqual([0]);
    jump(0);
    await Promise.resolve();
    expect(starts).toEqual([0]);
    expect(pending()).toEqual([1_000]);
    jump(4_500); // the timer for 1 000 fires at 4 500: 2 000, 3 000 and 4 000 were passed over
    await Promise.resolve();
    expect(starts).toEqual([0, 4_500]);
    expect(skipped).toEqual([{ key: 'a', deviceKey: 'd', dueAt: 2_000, reason: 'missed', count: 3 }]);
    expect(pending()).toEqual([5_000]);
    expect(s.stats()).toMatchObject({ due: 5, started: 2, skipped: 3, lateness: { count: 2, max: 3_500 } });
    await s.stop();
    expect(pending()).toEqual([]);
  });
});
