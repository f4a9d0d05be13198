// The scheduling engine of agent mode: runs keyed jobs every period, with bounds and backpressure.
// It knows nothing of drivers; the agent turns associations into jobs.
//
// Timing: a job's first due time is spread over [0, min(periodMs, jitterMs)) after it is added, so
// many jobs added together do not fire together; after that its due times lie on a fixed grid
// (first due + k × periodMs), so the spread holds and lateness never accumulates into drift.
//
// Every due time ends as exactly one of: started, skipped (the previous run still runs or still
// waits for a slot, or the timer fired after the due time had passed), dropped (the job was removed
// or the scheduler stopped while the run waited), or still waiting. Work never piles up: a job has
// at most one run in flight or waiting.
import { EventEmitter } from 'node:events';
import { systemClock, type SchedulerClock, type TimerHandle } from './clock.js';
import { SchedulerError } from '../../contract/errors.js';
import { validateJob, type SchedulerJob } from './job.js';
import { SampleWindow, type SampleSummary } from '../../sample-window.js';
import { SlotQueue } from './slots.js';
import type { AbortedRun, JobStats, RunCounters, RunFinishedEvent, RunOutcome, RunSkippedEvent, SchedulerEvents, SchedulerOptions, SchedulerStats, SkipReason, StopResult } from './types.js';

interface JobState {
  job: SchedulerJob;
  nextDueAt: number;
  /** Due time of the last due run; undefined before the first. */
  lastDueAt: number | undefined;
  timer: TimerHandle | undefined;
  waiting: WaitingRun | undefined;
  /** Due times before this clock time are skipped ('backoff'); 0: not held. */
  heldUntil: number;
  counters: RunCounters;
  lateness: SampleWindow;
}

interface WaitingRun {
  state: JobState;
  dueAt: number;
}

interface ActiveRun {
  state: JobState;
  key: string;
  deviceKey: string;
  dueAt: number;
  startedAt: number;
  controller: AbortController;
}

export const DEFAULT_MAX_CONCURRENT = 32;
export const DEFAULT_MAX_PER_DEVICE = 2;
export const DEFAULT_JITTER_MS = 30_000;
const GLOBAL_LATENESS_WINDOW = 4096;
/** Per job, so kept for every association: small (10,000 jobs × 16 samples ≈ 1.3 MB once full). */
const JOB_LATENESS_WINDOW = 16;

function zeroCounters(): RunCounters {
  return { due: 0, started: 0, completed: 0, failed: 0, aborted: 0, skipped: 0, dropped: 0 };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new SchedulerError('INVALID_OPTIONS', `scheduler option ${name} must be a positive integer (got ${String(value)})`);
  }
  return value;
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : `non-Error rejection: ${String(reason)}`);
}

export class Scheduler extends EventEmitter<SchedulerEvents> {
  readonly maxConcurrent: number;
  readonly maxPerDevice: number;
  readonly jitterMs: number;
  private readonly random: () => number;
  private readonly clock: SchedulerClock;
  private readonly jobs = new Map<string, JobState>();
  /** By job key; outlives the job's removal, so a job re-added under the key cannot overlap it. */
  private readonly runningByKey = new Map<string, ActiveRun>();
  private readonly slots: SlotQueue<WaitingRun>;
  private readonly totals = zeroCounters();
  private readonly lateness = new SampleWindow(GLOBAL_LATENESS_WINDOW);
  private idleWaiters: Array<() => void> = [];
  private stopping: Promise<StopResult> | undefined;

  constructor(options: SchedulerOptions = {}) {
    super();
    this.maxConcurrent = positiveInteger('maxConcurrent', options.maxConcurrent, DEFAULT_MAX_CONCURRENT);
    this.maxPerDevice = positiveInteger('maxPerDevice', options.maxPerDevice, DEFAULT_MAX_PER_DEVICE);
    const jitterMs = options.jitterMs ?? DEFAULT_JITTER_MS;
    if (typeof jitterMs !== 'number' || Number.isNaN(jitterMs) || jitterMs < 0) {
      throw new SchedulerError('INVALID_OPTIONS', `scheduler option jitterMs must be a number ≥ 0 (got ${String(jitterMs)})`);
    }
    this.jitterMs = jitterMs;
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? systemClock;
    this.slots = new SlotQueue(
      { maxConcurrent: this.maxConcurrent, maxPerDevice: this.maxPerDevice },
      (waiting) => waiting.state.job.deviceKey,
    );
  }

  get stopped(): boolean {
    return this.stopping !== undefined;
  }

  has(key: string): boolean {
    return this.jobs.has(key);
  }

  keys(): string[] {
    return [...this.jobs.keys()];
  }

  /** Schedules a new job; its first run comes within the jitter. Throws DUPLICATE_JOB for a key in use. */
  add(job: SchedulerJob): void {
    this.assertOpen();
    validateJob(job);
    if (this.jobs.has(job.key)) {
      throw new SchedulerError('DUPLICATE_JOB', `scheduler job "${job.key}" is already scheduled (use replace to change it)`);
    }
    // Clamped so a jitter source that strays (1, −0.1, NaN) still lands inside the window.
    const raw = this.random();
    const draw = Number.isFinite(raw) ? Math.min(Math.max(raw, 0), 1 - Number.EPSILON) : 0;
    const offset = Math.min(job.periodMs, this.jitterMs) * draw;
    const state: JobState = {
      job: { ...job },
      nextDueAt: this.clock.now() + offset,
      lastDueAt: undefined,
      timer: undefined,
      waiting: undefined,
      heldUntil: 0,
      counters: zeroCounters(),
      lateness: new SampleWindow(JOB_LATENESS_WINDOW),
    };
    this.jobs.set(job.key, state);
    this.arm(state);
  }

  /**
   * Changes a job's device, period or run function. Its phase is kept (same period: same due
   * times; new period: next due = last due + new period), a run in flight goes on with the old
   * function, and a run waiting for a slot will use the new one.
   */
  replace(job: SchedulerJob): void {
    this.assertOpen();
    validateJob(job);
    const state = this.jobs.get(job.key);
    if (!state) throw new SchedulerError('UNKNOWN_JOB', `scheduler job "${job.key}" is not scheduled (use add)`);
    const previousPeriod = state.job.periodMs;
    state.job = { ...job };
    if (job.periodMs !== previousPeriod && state.lastDueAt !== undefined) {
      state.nextDueAt = Math.max(state.lastDueAt + job.periodMs, this.clock.now());
      this.arm(state);
    }
    // A waiting run may now belong to a device with a free slot.
    this.dispatch();
  }

  /** add or replace, whichever applies (an inventory reload). */
  upsert(job: SchedulerJob): void {
    if (this.jobs.has(job.key)) this.replace(job);
    else this.add(job);
  }

  /**
   * Unschedules a job: its waiting run is dropped, a run in flight goes on to its end (and keeps
   * the key busy: a job added again under the key waits for it). False when the key is unknown.
   */
  remove(key: string): boolean {
    const state = this.jobs.get(key);
    if (!state) return false;
    this.disarm(state);
    this.dropWaiting(state);
    this.jobs.delete(key);
    this.dispatch();
    return true;
  }

  stats(): SchedulerStats {
    return {
      ...this.totals,
      jobs: this.jobs.size,
      running: this.slots.running,
      waiting: this.slots.waitingCount,
      lateness: this.lateness.summary(),
    };
  }

  /** One job's counters, or undefined for an unknown key. */
  jobStats(key: string): JobStats | undefined {
    const state = this.jobs.get(key);
    if (!state) return undefined;
    return {
      ...state.counters,
      key,
      deviceKey: state.job.deviceKey,
      periodMs: state.job.periodMs,
      nextDueAt: state.timer === undefined ? undefined : state.nextDueAt,
      running: this.runningByKey.has(key),
      waiting: state.waiting !== undefined,
      lateness: state.lateness.summary(),
      heldUntil: state.heldUntil > 0 ? state.heldUntil : undefined,
    };
  }

  /**
   * Holds a job: its due times before `untilMs` (clock time) are skipped with reason 'backoff',
   * and its grid of due times is kept. 0 (or a time past) lifts the hold. A run in flight or
   * waiting for a slot goes on. False when the key is unknown.
   */
  hold(key: string, untilMs: number): boolean {
    const state = this.jobs.get(key);
    if (!state) return false;
    state.heldUntil = Number.isFinite(untilMs) && untilMs > 0 ? untilMs : 0;
    return true;
  }

  /** Resolves when no run is in flight (at once if none is). */
  idle(): Promise<void> {
    if (this.runningByKey.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Stops scheduling (no due time fires any more, waiting runs are dropped), lets the runs in
   * flight finish within graceMs, then aborts the signals of those still going and resolves.
   * It does not wait for aborted runs to settle (a run may ignore its signal): their runFinished
   * comes when they do, and idle() tells when all have. Calling it again returns the same result.
   */
  stop(options: { graceMs?: number } = {}): Promise<StopResult> {
    if (this.stopping) return this.stopping;
    const graceMs = options.graceMs ?? 0;
    if (typeof graceMs !== 'number' || Number.isNaN(graceMs) || graceMs < 0) {
      throw new SchedulerError('INVALID_OPTIONS', `scheduler stop: graceMs must be a number ≥ 0 (got ${String(graceMs)})`);
    }
    let dropped = 0;
    for (const state of this.jobs.values()) {
      this.disarm(state);
      if (this.dropWaiting(state)) dropped += 1;
    }
    const inFlight = this.runningByKey.size;
    this.stopping = this.drainThenAbort(graceMs).then((aborted) => ({ finished: inFlight - aborted.length, aborted, dropped }));
    return this.stopping;
  }

  private async drainThenAbort(graceMs: number): Promise<AbortedRun[]> {
    if (this.runningByKey.size > 0) {
      let timer: TimerHandle | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = this.clock.setTimeout(resolve, graceMs);
      });
      await Promise.race([this.idle(), graceOver]);
      this.clock.clearTimeout(timer);
    }
    const left = [...this.runningByKey.values()];
    const reason = new Error(`scheduler stopped: the run did not finish within the grace of ${graceMs} ms`);
    reason.name = 'AbortError';
    for (const run of left) run.controller.abort(reason);
    return left.map(({ key, deviceKey, dueAt, startedAt }) => ({ key, deviceKey, dueAt, startedAt }));
  }

  private assertOpen(): void {
    if (this.stopping) throw new SchedulerError('SCHEDULER_STOPPED', 'the scheduler is stopped: no job can be added or replaced');
  }

  private arm(state: JobState): void {
    this.disarm(state);
    // Rounded up: Node's timers count whole ms from a cached loop time, so they can fire a
    // fraction of a ms early; onTimer re-arms then, and a run never starts before its due time.
    const delay = Math.max(0, Math.ceil(state.nextDueAt - this.clock.now()));
    state.timer = this.clock.setTimeout(() => this.onTimer(state), delay);
  }

  private disarm(state: JobState): void {
    if (state.timer !== undefined) this.clock.clearTimeout(state.timer);
    state.timer = undefined;
  }

  private onTimer(state: JobState): void {
    state.timer = undefined;
    if (this.jobs.get(state.job.key) !== state || this.stopping) return;
    if (this.clock.now() < state.nextDueAt) return this.arm(state);
    const dueAt = state.nextDueAt;
    const period = state.job.periodMs;
    this.onDue(state, dueAt);
    // A timer that fired late (a blocked event loop) must not fire once per missed period.
    let next = dueAt + period;
    const now = this.clock.now();
    if (next <= now) {
      const missed = Math.floor((now - next) / period) + 1;
      this.count(state, 'due', missed);
      this.count(state, 'skipped', missed);
      this.notifySkipped({ key: state.job.key, deviceKey: state.job.deviceKey, dueAt: next, reason: 'missed', count: missed });
      next += missed * period;
    }
    // A listener may have removed the job or stopped the scheduler.
    if (this.jobs.get(state.job.key) !== state || this.stopping) return;
    state.nextDueAt = next;
    this.arm(state);
  }

  private onDue(state: JobState, dueAt: number): void {
    state.lastDueAt = dueAt;
    this.count(state, 'due');
    const { key, deviceKey } = state.job;
    const reason: SkipReason | undefined = dueAt < state.heldUntil ? 'backoff' : this.runningByKey.has(key) ? 'running' : state.waiting ? 'waiting' : undefined;
    if (reason) {
      this.count(state, 'skipped');
      this.notifySkipped({ key, deviceKey, dueAt, reason, count: 1 });
      return;
    }
    state.waiting = { state, dueAt };
    this.slots.push(state.waiting);
    this.dispatch();
  }

  private dispatch(): void {
    for (let taken = this.slots.take(); taken; taken = this.slots.take()) this.start(taken.item, taken.deviceKey);
  }

  private start(waiting: WaitingRun, deviceKey: string): void {
    const { state, dueAt } = waiting;
    state.waiting = undefined;
    const key = state.job.key;
    const startedAt = this.clock.now();
    const latenessMs = startedAt - dueAt;
    const run: ActiveRun = { state, key, deviceKey, dueAt, startedAt, controller: new AbortController() };
    this.runningByKey.set(key, run);
    this.count(state, 'started');
    state.lateness.add(latenessMs);
    this.lateness.add(latenessMs);
    this.notify('runStarted', { key, deviceKey, dueAt, startedAt, latenessMs });
    let settled: Promise<unknown>;
    try {
      settled = Promise.resolve(state.job.run(run.controller.signal));
    } catch (error) {
      settled = Promise.reject(error);
    }
    settled.then(
      (value) => this.finish(run, 'completed', value, undefined),
      (error: unknown) => this.finish(run, run.controller.signal.aborted ? 'aborted' : 'failed', undefined, asError(error)),
    );
  }

  private finish(run: ActiveRun, outcome: RunOutcome, value: unknown, error: Error | undefined): void {
    const finishedAt = this.clock.now();
    if (this.runningByKey.get(run.key) === run) this.runningByKey.delete(run.key);
    this.slots.release(run.deviceKey);
    this.count(run.state, outcome);
    const event: RunFinishedEvent = {
      key: run.key,
      deviceKey: run.deviceKey,
      dueAt: run.dueAt,
      startedAt: run.startedAt,
      latenessMs: run.startedAt - run.dueAt,
      finishedAt,
      durationMs: finishedAt - run.startedAt,
      outcome,
    };
    if (outcome === 'completed') event.value = value;
    else event.error = error;
    if (this.runningByKey.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
    // Told before the freed slot is reused, so a job's runFinished precedes the next runStarted.
    this.notify('runFinished', event);
    if (!this.stopping) this.dispatch();
  }

  /** Drops the job's run waiting for a slot, if any. */
  private dropWaiting(state: JobState): boolean {
    if (!state.waiting) return false;
    this.slots.delete(state.waiting);
    state.waiting = undefined;
    this.count(state, 'dropped');
    return true;
  }

  private count(state: JobState, counter: keyof RunCounters, by = 1): void {
    state.counters[counter] += by;
    this.totals[counter] += by;
  }

  private notifySkipped(event: RunSkippedEvent): void {
    this.notify('runSkipped', event);
  }

  // The scheduler's state is settled before any event goes out, so a throwing listener cannot
  // corrupt it; its error is still reported, never swallowed.
  private notify<K extends 'runStarted' | 'runFinished' | 'runSkipped'>(name: K, ...args: SchedulerEvents[K]): void {
    try {
      (this.emit as (event: string, ...rest: unknown[]) => boolean)(name, ...args);
    } catch (error) {
      const failure = asError(error);
      if (this.listenerCount('error') > 0) this.emit('error', failure);
      else queueMicrotask(() => { throw failure; });
    }
  }
}

/** A scheduler with the given bounds and jitter; jobs are added with add() and run until stop(). */
export function createScheduler(options: SchedulerOptions = {}): Scheduler {
  return new Scheduler(options);
}
