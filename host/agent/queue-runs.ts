// The agent's run source in scale-out mode (SCALE-OUT.md 4.3): instead of the in-process
// scheduler, a BullMQ job scheduler per association in Redis (host/scale-out/reconciler.ts) and
// this process's share of the runs queue (host/scale-out/run-worker.ts). Every agent process on
// the queue runs any association of the local agent; the store (PostgreSQL) is shared, so the
// result of a slot is written once (the write rule) and what a device's runs keep between runs
// travels through the store (StoreDeviceStates).
import { createHash } from 'node:crypto';
import type { RunExecutor } from '../contract/run-executor.js';
import { createReconciler, RunWorker, type Reconciler, type ScheduleEntry, type SlotOutcome, type SlotRun } from '../scale-out/index.js';
import type { QueueFiguresSnapshot } from '../scale-out/queue-figures.js';
import { ScheduleReader } from '../scale-out/schedule-reader.js';
import { listAssociationSchedules } from '../store/drivers/associations.js';
import { StoreDeviceStates } from '../store/runs/device-states.js';
import { StoreError } from '../contract/errors.js';
import type { Store } from '../store/store.js';
import type { ActionRun } from './association-run.js';

export interface AgentQueueOptions {
  /** redis:// or rediss:// URL of the Redis (or Valkey) every agent of the cluster shares. */
  url: string;
  /**
   * D, the longest one association's run may take (all its actions), ms: its signal aborts then,
   * and a slot is started only while now ≤ slot + period − D. Default 2 × the run timeout, at
   * least 10 s. Every scheduled period must be longer.
   */
  deadlineMs?: number;
  /** This process's name in Redis and in each run's record (default driverbox-<host>-<pid>). */
  name?: string;
  /** BullMQ key prefix (default "driverbox"): agents of one cluster share it. */
  prefix?: string;
  /** How often this agent looks for stalled runs of dead agents, ms (default 5 s). */
  stalledIntervalMs?: number;
  /** BullMQ lock of a running job, ms; default max(30 s, D + 10 s). */
  lockDurationMs?: number;
}

export interface QueueRunHooks {
  /** The actions an association runs (the inventory's, else get_status). */
  actionsOf(associationId: number): string[];
  /** Runs one slot's actions with the given executor, the device's kept state from deviceStates; answers the action runs. */
  run(associationId: number, actions: string[], signal: AbortSignal, executor: RunExecutor, slot: { slotMs: number; runner: string }, deviceStates: StoreDeviceStates): Promise<ActionRun[] | null>;
  report(error: Error): void;
}

export const DEFAULT_QUEUE_PREFIX = 'driverbox';

/** What re-upserting an association's scheduler depends on: its period and device, and what it runs. */
function scheduleVersion(parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export class QueueRuns {
  readonly worker: RunWorker;
  readonly reconciler: Reconciler;
  /** The queue's schedule, read-only (the console's schedule page). */
  readonly schedule: ScheduleReader;
  readonly name: string;

  constructor(store: Store, agentId: number, executor: RunExecutor, options: AgentQueueOptions & { deadlineMs: number; concurrency: number; maxPerDevice: number }, hooks: QueueRunHooks) {
    this.name = options.name ?? `driverbox-${process.pid}`;
    const prefix = options.prefix ?? DEFAULT_QUEUE_PREFIX;
    const deviceStates = new StoreDeviceStates(store);
    const loadSchedules = async (): Promise<ScheduleEntry[]> => {
      const schedules = await listAssociationSchedules(store, agentId);
      return schedules
        .filter((s) => s.enabled && s.deviceMonitored)
        .map((s) => {
          const actions = hooks.actionsOf(s.id);
          return {
            associationId: s.id,
            periodMs: s.samplePeriod * 1000,
            deviceKey: `device-${s.deviceId}`,
            version: scheduleVersion([s.samplePeriod, s.deviceId, actions]),
          };
        });
    };
    const runSlot = async (slot: SlotRun): Promise<SlotOutcome> => {
      const runs = await hooks.run(slot.associationId, hooks.actionsOf(slot.associationId), slot.signal, executor, { slotMs: slot.slotMs, runner: this.name }, deviceStates);
      if (runs === null || runs.length === 0) return 'gone';
      if (runs.some((r) => r.storeError instanceof StoreError && r.storeError.code === 'DUPLICATE_RUN')) return 'refused-duplicate';
      // Past its deadline before the result could commit (a store cut off or slow): nothing was
      // written; the job fails as aborted, and the slot counts as lost, not as stored.
      const late = runs.find((r) => r.storeError instanceof StoreError && r.storeError.code === 'RUN_TOO_LATE');
      if (late) throw late.storeError;
      return 'stored';
    };
    this.reconciler = createReconciler({ url: options.url, loadSchedules, deadlineMs: options.deadlineMs, prefix, name: this.name });
    this.reconciler.on('error', (error: Error) => hooks.report(new Error(`agent: reconciling the queue's schedules failed: ${error.message}`)));
    this.worker = new RunWorker({
      url: options.url,
      runSlot,
      deadlineMs: options.deadlineMs,
      lockDurationMs: options.lockDurationMs,
      stalledIntervalMs: options.stalledIntervalMs,
      concurrency: options.concurrency,
      maxPerDevice: options.maxPerDevice,
      name: this.name,
      prefix,
    });
    this.worker.on('error', (error: Error) => hooks.report(new Error(`agent: the queue worker: ${error.message}`)));
    this.schedule = new ScheduleReader({ url: options.url, prefix, name: this.name });
  }

  async start(): Promise<void> {
    await this.reconciler.start();
    await this.worker.start();
    await this.reconciler.requestReconcile();
  }

  /** Asks for a reconcile (serialised cluster-wide): after API changes, reloads, and every refresh. */
  async refresh(): Promise<void> {
    await this.reconciler.requestReconcile();
  }

  figures(): Promise<QueueFiguresSnapshot> {
    return this.worker.readFigures();
  }

  ping(): Promise<void> {
    return this.worker.ping();
  }

  async stop(graceMs: number): Promise<{ finished: number; aborted: number; dropped: number }> {
    await this.reconciler.stop();
    const stopped = await this.worker.stop({ graceMs });
    await this.schedule.close();
    return { finished: stopped.finished, aborted: stopped.aborted + stopped.abandoned, dropped: 0 };
  }
}
