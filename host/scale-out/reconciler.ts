// Brings the runs queue's job schedulers in line with the store: one scheduler per association,
// upserted only when its period, version, device key or offset changed, removed when the association
// is gone. What was last upserted lives in Redis itself (the scheduler's template data), so a restart
// upserts nothing that did not change.
//
// Reconciles run one at a time across the whole cluster: every request is a job on the `reconcile`
// queue, which has a global concurrency of 1, and only a worker on that queue touches the schedulers.
// External upserts therefore never race each other (the pattern behind bullmq #3085 and #3381).
// requestReconcile() (an API change) enqueues one; a job scheduler on the same queue adds one every
// driftEveryMs (default 1 min) to catch changes nobody announced.
//
// Requests coalesce without BullMQ's deduplication (whose interplay with schedulers has open bugs,
// #2954): each request takes a generation number (HINCRBY), a reconcile records the generation it saw
// before reading the store, and a request whose generation was already seen finishes as a no-op.
import { EventEmitter } from 'node:events';
import { Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { connectCheckedClient, redisOptions } from './redis-connection.js';
import { checkPeriodRule } from './run-rules.js';
import {
  associationOfSchedulerId,
  jobDataOf,
  readJobData,
  RECONCILE_QUEUE,
  RUN_JOB_NAME,
  RUNS_QUEUE,
  schedulerIdOf,
  validateEntry,
  type RunJobData,
  type ScheduleEntry,
} from './run-schedules.js';
import { closeWithin } from './settle.js';
import { ScaleOutError, toError, type ScaleOutErrorCode } from '../contract/errors.js';

export const DEFAULT_DRIFT_EVERY_MS = 60_000;
/** Scheduler upserts / removals in flight at once during one reconcile. */
const UPSERT_PARALLELISM = 32;
const DRIFT_SCHEDULER_ID = 'drift';
const REQUEST_JOB = 'request';
const DRIFT_JOB = 'drift';

export interface ReconcilerOptions {
  url: string;
  /** The desired set: every association that should run, as the store says now. */
  loadSchedules: () => Promise<ScheduleEntry[]>;
  /** D of the run workers: an entry whose period is not above it is refused (and not scheduled). */
  deadlineMs?: number;
  /** Drift reconcile period, ms (default 60 s; 0: none from this process). */
  driftEveryMs?: number;
  /** Take reconcile jobs in this process (default true). An API-only process sets false and only enqueues. */
  processRequests?: boolean;
  /** BullMQ key prefix (default "bull"). */
  prefix?: string;
  /** Redis client names and the `by` of results. Default driverbox-<pid>. */
  name?: string;
  onEvictionPolicy?: 'refuse' | 'warn';
  /** BullMQ lockDuration of reconcile jobs (default 30 s, renewed while one runs). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

export interface RefusedEntry {
  associationId: number | null;
  code: ScaleOutErrorCode;
  message: string;
}

export interface ReconcileResult {
  /** false: a request already covered by an earlier reconcile (nothing read, nothing changed). */
  reconciled: boolean;
  /** Entries loadSchedules gave. */
  desired: number;
  upserted: number[];
  removed: number[];
  unchanged: number;
  refused: RefusedEntry[];
  /** The request generation this reconcile covers. */
  generation: number;
  durationMs: number;
  /** The reconciler (name) that ran it. */
  by: string;
  trigger: 'request' | 'drift';
}

export type ReconcilerEvents = {
  /** A reconcile this process ran. */
  reconciled: [ReconcileResult];
  error: [Error];
};

interface ExistingScheduler {
  every: number | undefined;
  offset: number | undefined;
  data: RunJobData | undefined;
}

function sameData(a: RunJobData | undefined, b: RunJobData): boolean {
  return a !== undefined && a.associationId === b.associationId && a.periodMs === b.periodMs && a.version === b.version && a.deviceKey === b.deviceKey && a.offsetMs === b.offsetMs;
}

/** Runs `work` over the items, at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(lanes);
}

export class Reconciler extends EventEmitter<ReconcilerEvents> {
  readonly name: string;
  private readonly options: ReconcilerOptions;
  private runsQueue: Queue | undefined;
  private reconcileQueue: Queue | undefined;
  private worker: Worker | undefined;
  private client: Redis | undefined;
  private bookKey = '';
  private closing: Promise<void> | undefined;

  constructor(options: ReconcilerOptions) {
    super();
    if (typeof options.loadSchedules !== 'function') throw new ScaleOutError('INVALID_OPTIONS', 'reconciler: loadSchedules must be a function');
    const drift = options.driftEveryMs ?? DEFAULT_DRIFT_EVERY_MS;
    if (!Number.isInteger(drift) || drift < 0) throw new ScaleOutError('INVALID_OPTIONS', `reconciler: driftEveryMs must be an integer ≥ 0 (got ${String(drift)})`);
    if (options.deadlineMs !== undefined && !(options.deadlineMs > 0)) {
      throw new ScaleOutError('INVALID_OPTIONS', `reconciler: deadlineMs must be a positive number of ms (got ${String(options.deadlineMs)})`);
    }
    redisOptions(options.url, 'producer');
    this.options = { ...options, driftEveryMs: drift };
    this.name = options.name ?? `driverbox-${process.pid}`;
  }

  /** Checks the server, sets the reconcile queue's global concurrency to 1, upserts the drift scheduler, starts the reconcile worker. */
  async start(): Promise<void> {
    if (this.runsQueue) throw new ScaleOutError('INVALID_OPTIONS', 'reconciler: start() was already called');
    if (this.closing) throw new ScaleOutError('CLOSED', 'reconciler: stopped');
    const { url, prefix } = this.options;
    this.client = await connectCheckedClient(url, this.name, this.options.onEvictionPolicy ?? 'refuse', (error) => this.report(error));
    const prefixOption = prefix === undefined ? {} : { prefix };
    this.runsQueue = new Queue(RUNS_QUEUE, { connection: redisOptions(url, 'producer', this.name), ...prefixOption });
    this.reconcileQueue = new Queue(RECONCILE_QUEUE, {
      connection: redisOptions(url, 'producer', this.name),
      ...prefixOption,
      defaultJobOptions: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
    });
    for (const queue of [this.runsQueue, this.reconcileQueue]) queue.on('error', (error) => this.report(error));
    this.bookKey = `${prefix ?? 'bull'}:${RECONCILE_QUEUE}:driverbox-generations`;
    await this.reconcileQueue.setGlobalConcurrency(1);
    if (this.options.driftEveryMs! > 0) {
      // Every agent upserts the same scheduler: an unchanged `every` keeps its next slot.
      await this.reconcileQueue.upsertJobScheduler(
        DRIFT_SCHEDULER_ID,
        { every: this.options.driftEveryMs! },
        { name: DRIFT_JOB, data: {}, opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } } },
      );
    }
    if (this.options.processRequests ?? true) {
      const worker = new Worker(RECONCILE_QUEUE, (job) => this.process(job), {
        connection: redisOptions(url, 'worker', this.name),
        ...prefixOption,
        name: this.name,
        autorun: false,
        concurrency: 1,
        lockDuration: this.options.lockDurationMs ?? 30_000,
        stalledInterval: this.options.stalledIntervalMs ?? 5_000,
        removeOnComplete: { count: 100 },
        removeOnFail: { count: 100 },
      });
      this.worker = worker;
      worker.on('error', (error) => this.report(error));
      worker.on('failed', (job, error) => this.report(new Error(`reconcile ${job?.id ?? ''} failed: ${error.message}`)));
      await worker.waitUntilReady();
      worker.run().catch((error: unknown) => this.report(toError(error)));
    }
  }

  /** Asks for a reconcile (after an API change); resolves with the reconcile job's ID once it is queued. */
  async requestReconcile(): Promise<string> {
    const { client, reconcileQueue } = this.started();
    const generation = await client.hincrby(this.bookKey, 'requested', 1);
    const job = await reconcileQueue.add(REQUEST_JOB, { generation });
    return String(job.id);
  }

  /** Waits for a reconcile job (by any process) to end; its result, or its failure as an error. */
  async waitForReconcile(jobId: string, timeoutMs = 30_000): Promise<ReconcileResult> {
    const { reconcileQueue } = this.started();
    const until = Date.now() + timeoutMs;
    for (;;) {
      const job = await reconcileQueue.getJob(jobId);
      if (!job) throw new ScaleOutError('RECONCILE_TIMEOUT', `reconcile job ${jobId} is gone (removed before it was read)`);
      if (job.finishedOn) {
        if (job.failedReason) throw new Error(`reconcile job ${jobId} failed: ${job.failedReason}`);
        return job.returnvalue as ReconcileResult;
      }
      if (Date.now() > until) throw new ScaleOutError('RECONCILE_TIMEOUT', `reconcile job ${jobId} did not finish within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The runs queue's schedulers as Redis has them (what the reconciler compares against). */
  async readSchedulers(): Promise<Map<string, ExistingScheduler>> {
    const { runsQueue } = this.started();
    const list = await runsQueue.getJobSchedulers(0, -1, true);
    const map = new Map<string, ExistingScheduler>();
    for (const s of list) {
      map.set(s.key, { every: s.every ?? undefined, offset: s.offset ?? undefined, data: readJobData(s.template?.data) });
    }
    return map;
  }

  /** Closes the worker (a reconcile in progress finishes first) and the queues. */
  stop(): Promise<void> {
    if (!this.closing) {
      this.closing = (async () => {
        await closeWithin(this.worker);
        await closeWithin(this.reconcileQueue);
        await closeWithin(this.runsQueue);
        this.client?.disconnect();
      })();
    }
    return this.closing;
  }

  private started(): { client: Redis; runsQueue: Queue; reconcileQueue: Queue } {
    if (this.closing) throw new ScaleOutError('CLOSED', 'reconciler: stopped');
    if (!this.client || !this.runsQueue || !this.reconcileQueue) throw new ScaleOutError('CLOSED', 'reconciler: not started');
    return { client: this.client, runsQueue: this.runsQueue, reconcileQueue: this.reconcileQueue };
  }

  private async process(job: Job): Promise<ReconcileResult> {
    const { client } = this.started();
    const startedAt = performance.now();
    const trigger = job.name === DRIFT_JOB ? 'drift' : 'request';
    const [requestedText, doneText] = await client.hmget(this.bookKey, 'requested', 'done');
    const requested = Number(requestedText ?? 0);
    const done = Number(doneText ?? 0);
    const asked = Number((job.data as { generation?: unknown } | undefined)?.generation ?? 0);
    if (trigger === 'request' && asked <= done) {
      return { reconciled: false, desired: 0, upserted: [], removed: [], unchanged: 0, refused: [], generation: done, durationMs: performance.now() - startedAt, by: this.name, trigger };
    }
    const result = await this.reconcile(requested, trigger);
    // Reconciles are serialised, but a re-queued stale one must never lower the mark.
    await client.eval(
      "local d = tonumber(redis.call('HGET', KEYS[1], 'done') or '0') if tonumber(ARGV[1]) > d then redis.call('HSET', KEYS[1], 'done', ARGV[1]) end return 1",
      1,
      this.bookKey,
      String(requested),
    );
    result.durationMs = performance.now() - startedAt;
    this.notify(result);
    return result;
  }

  private async reconcile(generation: number, trigger: ReconcileResult['trigger']): Promise<ReconcileResult> {
    const { runsQueue } = this.started();
    const entries = await this.options.loadSchedules();
    if (!Array.isArray(entries)) throw new ScaleOutError('INVALID_SCHEDULE', 'loadSchedules must resolve with an array of schedule entries');
    const refused: RefusedEntry[] = [];
    const wanted = new Map<string, ScheduleEntry>();
    for (const entry of entries) {
      try {
        validateEntry(entry);
        if (this.options.deadlineMs !== undefined) checkPeriodRule(this.options.deadlineMs, entry.periodMs, entry.associationId);
        const id = schedulerIdOf(entry.associationId);
        if (wanted.has(id)) throw new ScaleOutError('INVALID_SCHEDULE', `schedule of association ${entry.associationId}: given twice (the first is kept)`);
        wanted.set(id, entry);
      } catch (error) {
        const failure = toError(error);
        const associationId = Number.isSafeInteger((entry as Partial<ScheduleEntry> | null)?.associationId) ? entry.associationId : null;
        refused.push({ associationId, code: failure instanceof ScaleOutError ? failure.code : 'INVALID_SCHEDULE', message: failure.message });
      }
    }
    const existing = await this.readSchedulers();
    const toUpsert: ScheduleEntry[] = [];
    let unchanged = 0;
    for (const [id, entry] of wanted) {
      const now = existing.get(id);
      const data = jobDataOf(entry);
      if (now && now.every === entry.periodMs && now.offset === data.offsetMs && sameData(now.data, data)) unchanged += 1;
      else toUpsert.push(entry);
    }
    // Only schedulers that look like ours (an association ID) are removed; others are left alone.
    const toRemove = [...existing.keys()].filter((id) => !wanted.has(id) && associationOfSchedulerId(id) !== undefined);
    const upserted: number[] = [];
    const removed: number[] = [];
    await eachLimited(toUpsert, UPSERT_PARALLELISM, async (entry) => {
      const data = jobDataOf(entry);
      await runsQueue.upsertJobScheduler(schedulerIdOf(entry.associationId), { every: entry.periodMs, offset: data.offsetMs }, { name: RUN_JOB_NAME, data });
      upserted.push(entry.associationId);
    });
    await eachLimited(toRemove, UPSERT_PARALLELISM, async (id) => {
      await runsQueue.removeJobScheduler(id);
      removed.push(associationOfSchedulerId(id)!);
    });
    return { reconciled: true, desired: entries.length, upserted, removed, unchanged, refused, generation, durationMs: 0, by: this.name, trigger };
  }

  private notify(result: ReconcileResult): void {
    try {
      this.emit('reconciled', result);
    } catch (error) {
      this.report(toError(error));
    }
  }

  private report(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else process.emitWarning(`driverbox reconciler ${this.name}: ${error.message}`);
  }
}

export function createReconciler(options: ReconcilerOptions): Reconciler {
  return new Reconciler(options);
}
