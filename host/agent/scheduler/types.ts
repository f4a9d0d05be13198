// The scheduler's types: its options, the events it tells of each due time (started, finished,
// skipped), its figures and what stop() answers. Apart from scheduler.ts, the engine, so that
// readers of the figures and events do not import the engine.
import type { SchedulerClock } from './clock.js';
import type { SampleSummary } from '../../sample-window.js';

export interface SchedulerOptions {
  /** Runs in flight at once, all jobs together. Default 32. */
  maxConcurrent?: number;
  /** Runs in flight at once per deviceKey. Default 2. */
  maxPerDevice?: number;
  /** A job's first run comes within [0, min(periodMs, jitterMs)) of its add(). Default 30 s. */
  jitterMs?: number;
  /** Source of the jitter, in [0, 1). Default Math.random. */
  random?: () => number;
  /** Time and timers. Default: performance.now and the global timers (vitest fake timers drive it). */
  clock?: SchedulerClock;
}

export type RunOutcome = 'completed' | 'failed' | 'aborted';
/**
 * running / waiting: the job's previous run was still in flight / still queued for a slot; missed: the timer fired after further due times had passed;
 * backoff: the job is held (hold()) until a later time, e.g. after repeated limit hits.
 */
export type SkipReason = 'running' | 'waiting' | 'missed' | 'backoff';

export interface RunStartedEvent {
  key: string;
  deviceKey: string;
  /** Clock times (ms). */
  dueAt: number;
  startedAt: number;
  /** startedAt − dueAt: timer delay plus the wait for a slot. */
  latenessMs: number;
}

export interface RunFinishedEvent extends RunStartedEvent {
  finishedAt: number;
  durationMs: number;
  /** completed: run resolved; failed: it threw or rejected; aborted: it rejected after stop() aborted it. */
  outcome: RunOutcome;
  /** What run resolved with (outcome completed). */
  value?: unknown;
  /** Why it failed or was aborted. */
  error?: Error;
}

export interface RunSkippedEvent {
  key: string;
  deviceKey: string;
  /** The (first) due time skipped. */
  dueAt: number;
  reason: SkipReason;
  /** Due times skipped at once: 1, or more for 'missed'. */
  count: number;
}

export interface SchedulerEvents {
  runStarted: [RunStartedEvent];
  runFinished: [RunFinishedEvent];
  runSkipped: [RunSkippedEvent];
  /** A listener of the events above threw; without an 'error' listener the error is rethrown uncaught. */
  error: [Error];
}

export interface RunCounters {
  due: number;
  started: number;
  completed: number;
  failed: number;
  aborted: number;
  skipped: number;
  dropped: number;
}

export interface SchedulerStats extends RunCounters {
  jobs: number;
  running: number;
  waiting: number;
  lateness: SampleSummary;
}

export interface JobStats extends RunCounters {
  key: string;
  deviceKey: string;
  periodMs: number;
  /** Clock time of the next due time (undefined once removed or stopped). */
  nextDueAt: number | undefined;
  running: boolean;
  waiting: boolean;
  lateness: SampleSummary;
  /** Clock time before which its due times are skipped (hold()); undefined when not held. */
  heldUntil: number | undefined;
}

export interface AbortedRun {
  key: string;
  deviceKey: string;
  dueAt: number;
  startedAt: number;
}

export interface StopResult {
  /** Runs in flight at stop() that settled within the grace. */
  finished: number;
  /** Runs still in flight when the grace ran out; their signals were aborted. */
  aborted: AbortedRun[];
  /** Runs that were waiting for a slot and never started. */
  dropped: number;
}
