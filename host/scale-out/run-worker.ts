// One agent's share of the scale-out runs: a BullMQ Worker on the `runs` queue that hands each job
// to runSlot (the agent's callback: read the association, run it in the sandbox, write the result).
//
// Every job it takes ends as exactly one of (the embedded scheduler's vocabulary):
// - started: runSlot was called; it then completes (resolved with a SlotOutcome) or fails (threw);
// - skipped-late: the start rule refused it (it came after slot + period − D, or waited for its
//   device's bound until then). The job is completed, not failed, so nothing is retried and the
//   scheduler's chain goes on (BullMQ made the next slot's job when this one became active).
// A job fetched after stop() began aborting runs goes back to wait for another agent.
import { EventEmitter } from 'node:events';
import { Queue, WaitingError, type Job, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { DeviceSlots } from './device-slots.js';
import { FairShare, type FairShareOptions } from './fair-share.js';
import { FairWorker } from './fair-worker.js';
import { QueueFigures, pingQueue, readQueueCounts, type QueueCounts, type QueueFiguresSnapshot } from './queue-figures.js';
import { connectCheckedClient, redisOptions } from './redis-connection.js';
import { DEFAULT_LOCK_MARGIN_MS, checkLockRule, latestStartMs } from './run-rules.js';
import { readJobData, RUNS_QUEUE, schedulerIdOf, slotOfJobId, type RunJobData } from './run-schedules.js';
import { ScaleOutError, toError } from '../contract/errors.js';
import { closeWithin, settlesWithin } from './settle.js';

/** Same defaults as the embedded scheduler (host/agent/scheduler/scheduler.ts). */
export const DEFAULT_CONCURRENCY = 32;
export const DEFAULT_MAX_PER_DEVICE = 2;
/** BullMQ's default is 30 s; SCALE-OUT.md 4.1 wants 5–10 s so a dead worker's job is re-queued sooner. */
export const DEFAULT_STALLED_INTERVAL_MS = 5_000;
export const DEFAULT_GRACE_MS = 30_000;
/** Completed / failed run jobs BullMQ keeps (Redis would otherwise keep every one). */
export const DEFAULT_KEEP_COMPLETED = 1_000;
export const DEFAULT_KEEP_FAILED = 1_000;

/** What runSlot reports about the result's write (the write rule is the store's). */
export type SlotOutcome = 'stored' | 'refused-duplicate' | 'gone';
const OUTCOMES: readonly SlotOutcome[] = ['stored', 'refused-duplicate', 'gone'];

export interface SlotRun {
  associationId: number;
  /** The slot's scheduled time (epoch ms): the millis of the job ID `repeat:<id>:<millis>`. */
  slotMs: number;
  periodMs: number;
  /** The schedule version the job was made with (the reconciler's ScheduleEntry.version). */
  version: string;
  deviceKey: string;
  /** BullMQ's job ID, for logs. */
  jobId: string;
  /** Aborts at the deadline D after the start, when the job's lock is lost, or when stop()'s grace ends. */
  signal: AbortSignal;
}

export type RunSlot = (run: SlotRun) => Promise<SlotOutcome>;

export interface RunWorkerOptions {
  /** redis:// or rediss:// URL. */
  url: string;
  runSlot: RunSlot;
  /** D: the longest one job's runSlot may take, ms; its signal aborts then. */
  deadlineMs: number;
  /** BullMQ lockDuration; default max(30 s, D + margin + 5 s). Must exceed D + margin. */
  lockDurationMs?: number;
  /** Default 5 s. */
  marginMs?: number;
  /** How often this worker looks for stalled jobs, ms (default 5 s). */
  stalledIntervalMs?: number;
  /** Runs in flight at once in this agent (BullMQ concurrency); default 32. */
  concurrency?: number;
  /** Runs in flight at once per device key in this agent; default 2 (cluster-wide: N agents × this). */
  maxPerDevice?: number;
  /** Worker name: BullMQ's processedBy of each job and the Redis client names. Default driverbox-<pid>. */
  name?: string;
  /** BullMQ key prefix (default "bull"). */
  prefix?: string;
  keepCompleted?: number;
  keepFailed?: number;
  /** maxmemory-policy other than noeviction: refuse (default) or warn. */
  onEvictionPolicy?: 'refuse' | 'warn';
  /** Wall clock for the start rule and lateness (default Date.now; the slot is epoch ms). */
  now?: () => number;
  latenessWindow?: number;
  /** Fair share between agents (fair-share.ts): on by default; false takes jobs as BullMQ gives them. */
  fairShare?: false | Pick<FairShareOptions, 'windowMs' | 'heartbeatMs' | 'ttlMs' | 'tolerance' | 'deferMs' | 'maxDeferMs' | 'lateMs'>;
}

export interface RunStarted {
  jobId: string;
  associationId: number;
  deviceKey: string;
  slotMs: number;
  startedAt: number;
  /** startedAt − slotMs (negative when this host's clock is behind the scheduler's). */
  latenessMs: number;
}

export interface RunFinished extends RunStarted {
  finishedAt: number;
  durationMs: number;
  /** completed: runSlot resolved; failed: it threw; aborted: it threw after its signal was aborted. */
  result: 'completed' | 'failed' | 'aborted';
  outcome?: SlotOutcome;
  error?: Error;
}

export interface RunSkipped {
  jobId: string;
  associationId: number;
  deviceKey: string;
  slotMs: number;
  /** late: came after the latest start; device-busy: waited for the device bound until then. */
  reason: 'late' | 'device-busy';
  at: number;
  /** at − latest start. */
  lateByMs: number;
}

export type RunWorkerEvents = {
  runStarted: [RunStarted];
  runFinished: [RunFinished];
  runSkipped: [RunSkipped];
  /** A stalled job this worker's check moved back to wait. */
  stalled: [{ jobId: string }];
  /** Redis and BullMQ trouble; the worker goes on (BullMQ reconnects). Without a listener: a process warning. */
  error: [Error];
};

/** What a completed run job keeps in Redis (its returnvalue). */
export interface RunJobResult {
  result: 'started' | 'skipped-late';
  outcome?: SlotOutcome;
  reason?: RunSkipped['reason'];
  slotMs: number;
  at: number;
  worker: string;
}

export interface RunWorkerStopResult {
  /** Runs in flight at stop() that ended within the grace. */
  finished: number;
  /** Runs whose signal was aborted when the grace ran out. */
  aborted: number;
  /** Aborted runs that still had not settled after abortWaitMs: the worker was closed without them (their jobs stall and are re-queued elsewhere). */
  abandoned: number;
}

interface InFlight {
  controller: AbortController;
  settled: Promise<void>;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new ScaleOutError('INVALID_OPTIONS', `run worker option ${name} must be a positive integer (got ${String(value)})`);
  return value;
}

function abortError(message: string): Error {
  const error = new Error(message);
  error.name = 'AbortError';
  return error;
}

export class RunWorker extends EventEmitter<RunWorkerEvents> {
  readonly name: string;
  readonly deadlineMs: number;
  readonly lockDurationMs: number;
  readonly marginMs: number;
  readonly concurrency: number;
  readonly maxPerDevice: number;
  readonly figures: QueueFigures;
  private readonly options: RunWorkerOptions;
  private readonly now: () => number;
  private readonly devices: DeviceSlots;
  private readonly inFlight = new Map<string, InFlight>();
  private worker: Worker | undefined;
  private queue: Queue | undefined;
  private client: Redis | undefined;
  private fair: FairShare | undefined;
  private stopping: Promise<RunWorkerStopResult> | undefined;
  /** Set once stop()'s grace ran out: jobs fetched after that go back to wait. */
  private refusing = false;

  /** Checks the options (the config rule among them); start() connects. */
  constructor(options: RunWorkerOptions) {
    super();
    if (typeof options.runSlot !== 'function') throw new ScaleOutError('INVALID_OPTIONS', 'run worker: runSlot must be a function');
    this.options = { ...options };
    this.marginMs = options.marginMs ?? DEFAULT_LOCK_MARGIN_MS;
    this.deadlineMs = options.deadlineMs;
    this.lockDurationMs = options.lockDurationMs ?? Math.max(30_000, options.deadlineMs + this.marginMs + 5_000);
    checkLockRule({ deadlineMs: this.deadlineMs, lockDurationMs: this.lockDurationMs, marginMs: this.marginMs });
    this.concurrency = positiveInteger('concurrency', options.concurrency, DEFAULT_CONCURRENCY);
    this.maxPerDevice = positiveInteger('maxPerDevice', options.maxPerDevice, DEFAULT_MAX_PER_DEVICE);
    positiveInteger('stalledIntervalMs', options.stalledIntervalMs, DEFAULT_STALLED_INTERVAL_MS);
    // Fails now on a bad URL, not at the first connection.
    redisOptions(options.url, 'worker');
    this.name = options.name ?? `driverbox-${process.pid}`;
    this.now = options.now ?? Date.now;
    this.devices = new DeviceSlots(this.maxPerDevice);
    this.figures = new QueueFigures(options.latenessWindow);
  }

  /** Checks the server (noeviction), then starts taking jobs. Resolves once the worker's connections are ready. */
  async start(): Promise<void> {
    if (this.worker) throw new ScaleOutError('INVALID_OPTIONS', 'run worker: start() was already called');
    if (this.stopping) throw new ScaleOutError('CLOSED', 'run worker: stopped');
    const { url, prefix } = this.options;
    this.client = await connectCheckedClient(url, this.name, this.options.onEvictionPolicy ?? 'refuse', (error) => this.report(error));
    const prefixOption = prefix === undefined ? {} : { prefix };
    this.queue = new Queue(RUNS_QUEUE, { connection: redisOptions(url, 'producer', this.name), ...prefixOption });
    this.queue.on('error', (error) => this.report(error));
    const { fairShare } = this.options;
    if (fairShare !== false) {
      this.fair = new FairShare({ ...fairShare, client: this.client, name: this.name, prefix, now: this.now, onError: (error) => this.report(error) });
      await this.fair.start();
    }
    const gate = { holdBackMs: () => this.fair?.holdBackMs() ?? 0 };
    const worker = new FairWorker(gate, RUNS_QUEUE, (job, token) => this.process(job, token), {
      connection: redisOptions(url, 'worker', this.name),
      ...prefixOption,
      name: this.name,
      autorun: false,
      concurrency: this.concurrency,
      lockDuration: this.lockDurationMs,
      stalledInterval: this.options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
      removeOnComplete: { count: this.options.keepCompleted ?? DEFAULT_KEEP_COMPLETED },
      removeOnFail: { count: this.options.keepFailed ?? DEFAULT_KEEP_FAILED },
    });
    this.worker = worker;
    worker.on('error', (error) => this.report(error));
    worker.on('stalled', (jobId) => {
      this.figures.count('stalledRequeues');
      this.notify('stalled', { jobId });
    });
    worker.on('lockRenewalFailed', (jobIds) => {
      this.figures.count('lockRenewalFailures', jobIds.length);
      // Another worker may take the job now: end our run of it.
      for (const jobId of jobIds) this.inFlight.get(jobId)?.controller.abort(abortError(`run worker: the lock of job ${jobId} could not be renewed`));
    });
    await worker.waitUntilReady();
    worker.run().catch((error: unknown) => this.report(toError(error)));
  }

  /** This agent's figures, with the queue's counts from Redis (null when Redis does not answer within 2 s). */
  async readFigures(): Promise<QueueFiguresSnapshot> {
    let queue: QueueCounts | null = null;
    if (this.queue && !this.stopping) {
      try {
        queue = await Promise.race([
          readQueueCounts(this.queue),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 2000).unref()),
        ]);
      } catch (error) {
        this.report(toError(error));
      }
    }
    return {
      ...this.figures.counters,
      queue,
      running: this.inFlight.size,
      waitingForDevice: this.devices.waitingCount,
      lateness: this.figures.latenessSummary(),
    };
  }

  /** The status route's Redis check: rejects when PING gets no answer in time. */
  async ping(timeoutMs = 2000): Promise<void> {
    if (!this.client) throw new ScaleOutError('CLOSED', 'run worker: not started');
    await pingQueue(this.client, timeoutMs);
  }

  /** The BullMQ worker (tests, and what the status route may want to read). */
  get bullWorker(): Worker | undefined {
    return this.worker;
  }

  /**
   * Stops taking jobs, lets runs in flight finish within graceMs, then aborts their signals and
   * waits up to abortWaitMs more; runs still going then are left behind (their jobs are re-queued
   * by another agent's stalled check, where the start rule decides). Calling it again returns the same.
   */
  stop(options: { graceMs?: number; abortWaitMs?: number } = {}): Promise<RunWorkerStopResult> {
    if (this.stopping) return this.stopping;
    this.stopping = this.shutDown(options.graceMs ?? DEFAULT_GRACE_MS, options.abortWaitMs ?? 5_000);
    return this.stopping;
  }

  private async shutDown(graceMs: number, abortWaitMs: number): Promise<RunWorkerStopResult> {
    const atStop = this.inFlight.size;
    // Withdrawn first, so the others count one agent fewer while this one's runs finish (bounded: Redis may be gone).
    if (this.fair) await settlesWithin(this.fair.stop(), 1_000);
    const closing = this.worker ? this.worker.close() : Promise.resolve();
    closing.catch((error: unknown) => this.report(toError(error)));
    const closedInGrace = await settlesWithin(closing, graceMs);
    let aborted = 0;
    let abandoned = 0;
    if (!closedInGrace) {
      this.refusing = true;
      this.devices.cancelWaits();
      const reason = abortError(`run worker stopped: the run did not finish within the grace of ${graceMs} ms`);
      const left = [...this.inFlight.values()];
      aborted = left.length;
      for (const run of left) run.controller.abort(reason);
      if (!(await settlesWithin(closing, abortWaitMs))) {
        abandoned = this.inFlight.size;
        // BullMQ's close() waits for every job; the ones that ignore their signal would hold it for ever.
        if (this.worker) {
          const disconnecting = this.worker.disconnect();
          disconnecting.catch(() => undefined);
          await settlesWithin(disconnecting, abortWaitMs);
        }
      }
    }
    await closeWithin(this.queue);
    this.client?.disconnect();
    return { finished: Math.max(0, atStop - aborted), aborted, abandoned };
  }

  private async process(job: Job, token: string | undefined): Promise<RunJobResult> {
    const data = readJobData(job.data);
    if (!data) {
      this.figures.count('failed');
      throw new Error(`run worker: job ${String(job.id)} has no run data (not made by the driverbox reconciler)`);
    }
    const jobId = String(job.id);
    if (this.refusing) {
      // stop() is aborting runs: leave this job to another agent.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    this.figures.count('taken');
    const slotMs = slotOfJobId(jobId, job.repeatJobKey ?? schedulerIdOf(data.associationId)) ?? job.timestamp + (job.opts.delay ?? 0);
    this.fair?.record(this.now() - slotMs);
    const latest = latestStartMs(slotMs, data.periodMs, this.deadlineMs);
    if (this.now() > latest) return this.skip(jobId, data, slotMs, latest, 'late');
    if (!(await this.devices.acquire(data.deviceKey, latest, this.now))) return this.skip(jobId, data, slotMs, latest, 'device-busy');
    // The device slot is ours from here: every path below releases it once.
    if (this.now() > latest) {
      this.devices.release(data.deviceKey);
      return this.skip(jobId, data, slotMs, latest, 'device-busy');
    }
    return this.run(jobId, data, slotMs);
  }

  private skip(jobId: string, data: RunJobData, slotMs: number, latest: number, reason: RunSkipped['reason']): RunJobResult {
    const at = this.now();
    this.figures.count('skippedLate');
    this.notify('runSkipped', { jobId, associationId: data.associationId, deviceKey: data.deviceKey, slotMs, reason, at, lateByMs: at - latest });
    return { result: 'skipped-late', reason, slotMs, at, worker: this.name };
  }

  private async run(jobId: string, data: RunJobData, slotMs: number): Promise<RunJobResult> {
    const controller = new AbortController();
    const startedAt = this.now();
    const started: RunStarted = { jobId, associationId: data.associationId, deviceKey: data.deviceKey, slotMs, startedAt, latenessMs: startedAt - slotMs };
    const deadline = setTimeout(() => {
      controller.abort(abortError(`run of association ${data.associationId} (slot ${slotMs}) passed its deadline of ${this.deadlineMs} ms`));
    }, this.deadlineMs);
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.inFlight.set(jobId, { controller, settled });
    this.figures.count('started');
    this.figures.addLateness(started.latenessMs);
    this.notify('runStarted', started);
    try {
      const outcome = await this.options.runSlot({
        associationId: data.associationId,
        slotMs,
        periodMs: data.periodMs,
        version: data.version,
        deviceKey: data.deviceKey,
        jobId,
        signal: controller.signal,
      });
      if (!OUTCOMES.includes(outcome)) throw new Error(`runSlot resolved with ${JSON.stringify(outcome)}; expected one of ${OUTCOMES.join(', ')}`);
      this.figures.count('completed');
      if (outcome === 'refused-duplicate') this.figures.count('refusedDuplicate');
      if (outcome === 'gone') this.figures.count('gone');
      if (controller.signal.aborted) this.figures.count('aborted');
      this.finish(started, { result: 'completed', outcome });
      return { result: 'started', outcome, slotMs, at: startedAt, worker: this.name };
    } catch (error) {
      const aborted = controller.signal.aborted;
      this.figures.count('failed');
      if (aborted) this.figures.count('aborted');
      this.finish(started, { result: aborted ? 'aborted' : 'failed', error: toError(error) });
      throw error;
    } finally {
      clearTimeout(deadline);
      this.inFlight.delete(jobId);
      this.devices.release(data.deviceKey);
      settle();
    }
  }

  private finish(started: RunStarted, end: Pick<RunFinished, 'result' | 'outcome' | 'error'>): void {
    const finishedAt = this.now();
    const event: RunFinished = { ...started, finishedAt, durationMs: finishedAt - started.startedAt, result: end.result };
    if (end.outcome !== undefined) event.outcome = end.outcome;
    if (end.error !== undefined) event.error = end.error;
    this.notify('runFinished', event);
  }

  private report(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else process.emitWarning(`driverbox run worker ${this.name}: ${error.message}`);
  }

  // The worker's state is settled before an event goes out: a throwing listener is reported, never fatal.
  private notify<K extends 'runStarted' | 'runFinished' | 'runSkipped' | 'stalled'>(name: K, ...args: RunWorkerEvents[K]): void {
    try {
      (this.emit as (event: string, ...rest: unknown[]) => boolean)(name, ...args);
    } catch (error) {
      this.report(toError(error));
    }
  }
}

/** A worker with the given options; call start(). */
export function createRunWorker(options: RunWorkerOptions): RunWorker {
  return new RunWorker(options);
}
