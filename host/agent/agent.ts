// createAgent's agent: the long-running collector. It brings the store in line with the
// inventory, turns every enabled association of the local agent (from the inventory or made
// through the API) into a scheduler job (or, in scale-out mode, a slot of the shared queue), runs
// those jobs in the supervised sandbox process and writes each result to the store. The HTTP
// server beside it (the Monitoring API, /metrics, the status) is built by host/server/, which
// hands it in as `serve`. docs/reference/agent/agent-mode.md tells how to embed it.
import { EventEmitter } from 'node:events';
import { DriverboxError } from '../contract/errors.js';
import type { RunExecutor } from '../contract/run-executor.js';
import { defaultLimits } from '../contract/limits.js';
import type { SandboxProcess, SandboxProcessMemory } from '../engine/process/index.js';
import type { ScheduleReader } from '../scale-out/schedule-reader.js';
import { ensureLocalAgent } from '../store/fleet/agents.js';
import { listAssociationSchedules, type AssociationSchedule } from '../store/drivers/associations.js';
import { terminalOutput } from '../terminal-text.js';
import { startAgentSandbox } from './agent-sandbox.js';
import {
  DEFAULT_GRACE_MS,
  DEFAULT_KEEP_RUNS_PER_DEVICE,
  DEFAULT_STORE_REFRESH_MS,
  type AgentCoreOptions,
  type AgentEvents,
  type AgentState,
  type AgentStats,
  type AgentStopResult,
  type PlannedJob,
  type ScheduledAssociation,
  type ScheduleFigures,
} from './agent-types.js';
import { backoffRuleOf } from './association-backoff.js';
import { runAssociation, type AssociationRunContext } from './association-run.js';
import { BackoffTracker } from './backoff-tracker.js';
import { applyJobs, backoffJob, jobKey, wantedJobs } from './job-plan.js';
import { DeviceRunPruner } from './device-run-pruner.js';
import { externalHostList } from './external-hosts.js';
import { loadInventory, syncInventory, type Inventory, type InventorySyncResult } from './inventory/index.js';
import { DEFAULT_ACTIONS } from './inventory/types.js';
import { createAgentMetrics, type AgentMetrics } from './metrics.js';
import { queueMode } from './queue-mode.js';
import type { AgentQueueOptions, QueueRuns } from './queue-runs.js';
import { RunTally } from './run-tally.js';
import { createScheduler, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_PER_DEVICE, type Scheduler } from './scheduler/scheduler.js';
import { systemClock } from './scheduler/clock.js';

/** A check of one module of the agent for the application status: it throws (or rejects) when the module fails. */
export type AgentProbe = () => Promise<void> | void;

/** The HTTP server an agent serves beside itself (host/server/agent-server.ts builds it). */
export interface AgentServer {
  /** Its base URL, http://127.0.0.1:<port>. */
  readonly url: string;
  close(): Promise<void>;
}

/** What the agent hands its server once its executor runs: the executor, its host list, the probes of its own modules. */
export interface AgentServeParts {
  executor: RunExecutor;
  externalHosts: readonly string[];
  probes: { sandbox: AgentProbe; scheduler: AgentProbe };
}

/** Builds and starts the agent's server; called by start() before the first runs. */
export type ServeAgent = (agent: Agent, parts: AgentServeParts) => Promise<AgentServer>;

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function optionalCount(value: number | null | undefined, fallback: number | null, name: string): number | null {
  if (value === undefined) return fallback;
  if (value === null) return null;
  if (!Number.isInteger(value) || value < 0) throw new DriverboxError('INVALID_OPTIONS', `agent option ${name} must be an integer ≥ 0 (got ${String(value)})`);
  return value;
}

export class Agent extends EventEmitter<AgentEvents> {
  #refreshing: Promise<void> = Promise.resolve();
  readonly metrics: AgentMetrics;
  readonly #options: AgentCoreOptions;
  readonly #serveApi: ServeAgent | undefined;
  readonly #graceMs: number;
  readonly #refreshMs: number;
  readonly #keepRuns: number | null;
  readonly #externalHosts: string[];
  #state: AgentState = 'new';
  #agentId: number | null = null;
  #scheduler: Scheduler | null = null;
  #queue: QueueRuns | null = null;
  #queueAssociations = 0;
  #executor: RunExecutor | null = null;
  #sandbox: SandboxProcess | null = null;
  #server: AgentServer | null = null;
  #refreshTimer: NodeJS.Timeout | null = null;
  /** Actions the inventory gives its associations; others run get_status. */
  #inventoryActions = new Map<number, string[]>();
  readonly #planned = new Map<string, PlannedJob>();
  readonly #tally: RunTally;
  #stopping: Promise<AgentStopResult> | null = null;
  /** Keeps keepRunsPerDevice runs per device, pruned in batches (null: all kept). */
  #runPruner: DeviceRunPruner | null = null;
  /** The backoff after repeated limit hits (turned off when its rule's threshold is 0). */
  readonly #backoffs: BackoffTracker;

  /** `serve` builds the HTTP server beside the agent (createAgent gives it when options.api asks for one). */
  constructor(options: AgentCoreOptions, serve?: ServeAgent) {
    super();
    if (!options || typeof options !== 'object' || !options.store) throw new DriverboxError('INVALID_OPTIONS', 'createAgent: a store is required (openStore(...))');
    if ('api' in options && options.api !== undefined && !serve) throw new DriverboxError('INVALID_OPTIONS', 'new Agent(): the api option needs the server that createAgent(options) builds; make the agent with createAgent');
    this.#options = { ...options };
    this.#serveApi = serve;
    this.#graceMs = optionalCount(options.graceMs, DEFAULT_GRACE_MS, 'graceMs')!;
    this.#refreshMs = optionalCount(options.storeRefreshMs, DEFAULT_STORE_REFRESH_MS, 'storeRefreshMs')!;
    this.#keepRuns = optionalCount(options.keepRunsPerDevice, DEFAULT_KEEP_RUNS_PER_DEVICE, 'keepRunsPerDevice');
    this.metrics = createAgentMetrics(options.metrics);
    this.#backoffs = new BackoffTracker({
      store: options.store,
      rule: backoffRuleOf(options.backoff, (message) => new DriverboxError('INVALID_OPTIONS', message)),
      clockOf: (wallMs) => this.#clockOf(wallMs),
      tell: (event) => this.emit('backoff', event),
      report: (error) => this.#report(error),
    });
    this.#tally = new RunTally({
      metrics: this.metrics,
      poolAlive: () => this.#sandbox?.stats().pool?.alive,
      started: (event) => this.emit('runStarted', event),
      finished: (event) => this.emit('runFinished', event),
      report: (error) => this.#report(error),
    });
    try {
      this.#externalHosts = externalHostList(options.externalHosts ?? [], 'agent option externalHosts');
    } catch (error) {
      throw new DriverboxError('INVALID_OPTIONS', (error as Error).message);
    }
  }

  get state(): AgentState {
    return this.#state;
  }

  /** The served API's base URL (http://127.0.0.1:<port>), or null when not serving. */
  get url(): string | null {
    return this.#server?.url ?? null;
  }

  get agentId(): number | null {
    return this.#agentId;
  }

  /**
   * Syncs the inventory, starts the sandbox, schedules every enabled association and serves the
   * API when asked. A bad inventory or a port in use rejects, with everything started undone.
   */
  async start(): Promise<void> {
    if (this.#state !== 'new') throw new DriverboxError('INVALID_OPTIONS', `agent.start(): the agent is ${this.#state} (an agent starts once)`);
    this.#state = 'starting';
    const { store } = this.#options;
    try {
      this.#agentId = (await ensureLocalAgent(store)).id;
      if (this.#keepRuns !== null) {
        this.#runPruner = new DeviceRunPruner(store, { keep: this.#keepRuns, onError: (error) => this.#report(new Error(`agent: ${error.message}`)) });
      }
      if (this.#options.inventory !== undefined) this.#applySync(await syncInventory(store, this.#readInventory(this.#options.inventory)));
      if (!this.#options.queue) this.#scheduler = this.#makeScheduler();
      await this.#startExecutor();
      // The API first: building its routes takes the event loop for a moment, which must not make
      // the first runs late (they are due within the jitter of being scheduled).
      if (this.#serveApi) this.#server = await this.#serveApi(this, { executor: this.#executor!, externalHosts: this.#externalHosts, probes: this.#probes() });
      if (this.#options.queue) {
        this.#queue = this.#makeQueue(this.#options.queue);
        await this.#queue.start();
      }
      await this.refresh();
      if (this.#refreshMs > 0) {
        this.#refreshTimer = setInterval(() => void this.refresh().catch((error) => this.#report(toError(error))), this.#refreshMs);
        this.#refreshTimer.unref();
      }
      this.#state = 'running';
    } catch (error) {
      this.#state = 'stopping';
      await this.#shutDown(0).catch(() => undefined);
      this.#state = 'stopped';
      throw error;
    }
  }

  /**
   * Reads the inventory again (its file, or the one given) and syncs it: runs in flight go on,
   * changed associations take their new period at their next due time. A bad inventory rejects
   * and the agent keeps the one it had.
   */
  async reload(inventory?: Inventory | string): Promise<InventorySyncResult> {
    if (this.#state !== 'running') throw new DriverboxError('INVALID_OPTIONS', `agent.reload(): the agent is ${this.#state}`);
    const source = inventory ?? this.#options.inventory;
    if (source === undefined) throw new DriverboxError('INVALID_OPTIONS', 'agent.reload(): the agent was started without an inventory and none was given');
    const result = await syncInventory(this.#options.store, this.#readInventory(source));
    if (inventory !== undefined) this.#options.inventory = inventory;
    this.#applySync(result);
    await this.refresh();
    return result;
  }

  /**
   * Brings the jobs in line with the store's associations: new ones scheduled, removed or
   * disabled ones unscheduled, a changed period applied. Called on start, after reloads and API
   * changes, and every storeRefreshMs.
   */
  refresh(): Promise<void> {
    // One at a time, in call order: a refresh that read the store earlier never undoes a later one.
    const next = this.#refreshing.then(() => this.#refreshOnce());
    this.#refreshing = next.catch(() => undefined);
    return next;
  }

  async #refreshOnce(): Promise<void> {
    if (this.#queue) {
      // The reconciler reads the store and upserts the schedulers, one reconcile at a time cluster-wide.
      await this.#queue.refresh().catch((error) => this.#report(new Error(`agent: could not ask for a reconcile: ${toError(error).message}`)));
      const schedules = await listAssociationSchedules(this.#options.store, this.#agentId!).catch(() => null);
      if (schedules) this.#queueAssociations = schedules.filter((s) => s.enabled && s.deviceMonitored).length;
      return;
    }
    const scheduler = this.#scheduler;
    if (!scheduler || scheduler.stopped || this.#agentId === null) return;
    let schedules: AssociationSchedule[];
    try {
      schedules = await listAssociationSchedules(this.#options.store, this.#agentId);
    } catch (error) {
      this.#report(new Error(`agent: could not read the associations from the store: ${toError(error).message}`));
      return;
    }
    const backoffs = await this.#backoffs.read(this.#agentId);
    const wanted = wantedJobs(schedules, (id) => this.#inventoryActions.get(id) ?? [...DEFAULT_ACTIONS]);
    applyJobs(scheduler, this.#planned, wanted, (key, signal) => this.#runJob(key, signal));
    if (backoffs) this.#backoffs.apply(scheduler, backoffs, [...wanted].map(([key, job]) => backoffJob(key, job)));
  }

  /** A wall-clock time on the scheduler's clock (monotonic). */
  #clockOf(wallMs: number): number {
    return wallMs - Date.now() + (this.#options.scheduler?.clock ?? systemClock).now();
  }

  stats(): AgentStats {
    return {
      mode: this.#options.queue ? 'queue' : 'embedded',
      state: this.#state,
      agentId: this.#agentId,
      associations: this.#queue ? this.#queueAssociations : this.#planned.size,
      results: { ...this.#tally.results },
      scheduler: this.#scheduler?.stats() ?? null,
      queue: this.#queue ? { ...this.#queue.worker.figures.counters } : null,
      sandbox: this.#sandbox?.stats() ?? null,
    };
  }

  /** Where the sandbox process's memory is (its heaps, its isolates'); null without one (an executor given, not started, stopped). */
  sandboxMemory(): Promise<SandboxProcessMemory | null> {
    return this.#sandbox?.memory() ?? Promise.resolve(null);
  }

  /**
   * The associations the embedded scheduler has, read-only, in no particular order (the console's
   * schedule page); null in scale-out mode (the schedule is in Redis) or before start. Cheap: the
   * scheduler's figures of each are read with scheduleFigures, for the ones shown.
   */
  scheduledAssociations(): ScheduledAssociation[] | null {
    if (!this.#scheduler) return null;
    return [...this.#planned.values()].map(({ schedule, name, actions }) => ({ associationId: schedule.id, name, deviceId: schedule.deviceId, driverId: schedule.customDriverId, actions: [...actions] }));
  }

  /** Scale-out mode: the queue's schedule, read-only, for the schedule page; null in embedded mode or before start. */
  queueSchedule(): { reader: ScheduleReader; name: string; actionsOf(associationId: number): string[] } | null {
    const queue = this.#queue;
    return queue ? { reader: queue.schedule, name: queue.name, actionsOf: (id) => this.#inventoryActions.get(id) ?? [...DEFAULT_ACTIONS] } : null;
  }

  /** The scheduler's figures of one association (its next due time in wall-clock ms); undefined when it is not scheduled. */
  scheduleFigures(associationId: number): ScheduleFigures | undefined {
    const stats = this.#scheduler?.jobStats(jobKey(associationId));
    if (!stats) return undefined;
    // The scheduler counts on its own clock (monotonic): its due time is turned into wall time.
    const toWall = Date.now() - (this.#options.scheduler?.clock ?? systemClock).now();
    const { periodMs, running, waiting, due, started, lateness } = stats;
    return { periodMs, nextDueAt: stats.nextDueAt === undefined ? null : stats.nextDueAt + toWall, running, waiting, due, started, lateness };
  }

  /**
   * Stops scheduling, lets runs in flight finish within the grace (their results are written),
   * ends those still going as failed, then closes the API server, the sandbox and (closeStore)
   * the store. Calling it again returns the same result.
   */
  stop(options: { graceMs?: number } = {}): Promise<AgentStopResult> {
    if (this.#stopping) return this.#stopping;
    const graceMs = optionalCount(options.graceMs, this.#graceMs, 'graceMs')!;
    this.#state = 'stopping';
    this.#stopping = this.#shutDown(graceMs).finally(() => {
      this.#state = 'stopped';
    });
    return this.#stopping;
  }

  async #shutDown(graceMs: number): Promise<AgentStopResult> {
    if (this.#refreshTimer) clearInterval(this.#refreshTimer);
    this.#refreshTimer = null;
    const scheduler = this.#scheduler;
    const drained = scheduler
      ? await scheduler.stop({ graceMs })
      : this.#queue
        ? await this.#queue.stop(graceMs).then((s) => ({ finished: s.finished, aborted: Array(s.aborted).fill(null), dropped: s.dropped }))
        : { finished: 0, aborted: [], dropped: 0 };
    // Runs past the grace end when their sandbox is stopped; idle() then sees their results written.
    if (this.#executor) await this.#executor.close();
    if (scheduler) await scheduler.idle();
    // The runs' last results pruned like the others, before the store may close.
    await this.#runPruner?.prune();
    if (this.#server) await this.#server.close();
    if (this.#options.closeStore) await this.#options.store.close();
    return { finished: drained.finished, aborted: drained.aborted.length, dropped: drained.dropped };
  }

  #readInventory(source: Inventory | string): Inventory {
    return typeof source === 'string' ? loadInventory(source, { env: this.#options.env }) : source;
  }

  #applySync(result: InventorySyncResult): void {
    this.#inventoryActions = new Map(result.scheduled.map((a) => [a.id, a.actions]));
    // Jobs whose association changed are scheduled again with what the store now says.
    for (const id of result.reschedule) this.#planned.delete(jobKey(id));
    this.emit('synced', result);
  }

  #makeScheduler(): Scheduler {
    const scheduler = createScheduler(this.#options.scheduler ?? {});
    scheduler.on('runStarted', (event) => {
      const job = this.#planned.get(event.key);
      if (!job) return;
      this.#tally.started(event.key, {
        associationId: job.schedule.id,
        name: job.name,
        driverId: job.schedule.customDriverId,
        deviceId: job.schedule.deviceId,
        dueAt: event.dueAt,
        startedAt: event.startedAt,
        latenessMs: event.latenessMs,
      });
    });
    scheduler.on('runFinished', (event) => {
      this.#tally.ended(event.key);
      if (event.outcome === 'failed' && event.error && !(this.#state === 'stopping' && isClosedError(event.error))) {
        this.#report(new Error(`agent: the run of ${this.#planned.get(event.key)?.name ?? event.key} failed: ${event.error.message}`));
      }
    });
    scheduler.on('runSkipped', (event) => {
      const job = this.#planned.get(event.key);
      for (let i = 0; i < event.count; i += 1) this.metrics.recordSkipped();
      if (!job) return;
      this.emit('runSkipped', { associationId: job.schedule.id, name: job.name, dueAt: event.dueAt, reason: event.reason, count: event.count });
    });
    scheduler.on('error', (error) => this.#report(error));
    return scheduler;
  }

  async #startExecutor(): Promise<void> {
    if (this.#options.executor) {
      this.#executor = this.#options.executor;
      return;
    }
    const maxConcurrent = this.#options.scheduler?.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
    this.#sandbox = await startAgentSandbox(this.#options.sandbox ?? {}, maxConcurrent, this.metrics, (error) => this.#report(error));
    this.#executor = this.#sandbox;
  }

  /** The status probes of the agent's own modules (the server adds the store's and its own). */
  #probes(): AgentServeParts['probes'] {
    return {
      sandbox: () => {
        const state = this.#sandbox?.stats().state;
        if (state !== undefined && state !== 'ready') throw new Error(`the sandbox process is ${state}`);
        if (!this.#executor) throw new Error('no sandbox is running');
      },
      scheduler: async () => {
        if (this.#queue) {
          // Scale-out: the schedule lives in Redis; the worker must reach it.
          await this.#queue.ping().catch((error) => {
            throw new Error(`the queue (Redis) does not answer: ${toError(error).message}`);
          });
          return;
        }
        if (!this.#scheduler || this.#scheduler.stopped) throw new Error(`the scheduler is not running (agent ${this.#state})`);
      },
    };
  }

  /** Scale-out mode: the queue's slots run as this agent's jobs would (counted, told, backing off alike). */
  #makeQueue(options: AgentQueueOptions): QueueRuns {
    return queueMode(options, {
      store: this.#options.store,
      agentId: this.#agentId!,
      executor: this.#executor!,
      timeoutMs: this.#options.limits?.timeoutMs ?? defaultLimits.timeoutMs,
      maxConcurrent: this.#options.scheduler?.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
      maxPerDevice: this.#options.scheduler?.maxPerDevice ?? DEFAULT_MAX_PER_DEVICE,
      actionsOf: (id) => this.#inventoryActions.get(id) ?? [...DEFAULT_ACTIONS],
      runContext: (executor) => this.#runContext(executor),
      tally: this.#tally,
      backoffs: this.#backoffs,
      metrics: this.metrics,
      skipped: (event) => this.emit('runSkipped', event),
      report: (error) => this.#report(error),
    });
  }

  /** What runAssociation needs of the agent for one run. */
  #runContext(executor: RunExecutor): AssociationRunContext {
    return {
      store: this.#options.store,
      executor,
      agentId: this.#agentId!,
      limits: this.#options.limits,
      externalHosts: this.#externalHosts,
      write: { activity: this.#options.activityLog ?? false },
      runPruner: this.#runPruner ?? undefined,
    };
  }

  async #runJob(key: string, signal: AbortSignal): Promise<number> {
    const job = this.#planned.get(key);
    const executor = this.#executor;
    if (!job || !executor || this.#agentId === null) return 0;
    // The scheduler told its start (runStarted) before calling the job: its lateness goes with each result.
    const context = this.#runContext(executor);
    context.write = { ...context.write, latenessMs: this.#tally.latenessOf(key) };
    const runs = await runAssociation(context, job.schedule.id, job.actions, signal, this.#tally.hooks(key, job));
    await this.#backoffs.noteRun(this.#scheduler, backoffJob(key, job), runs);
    return runs.length;
  }

  /** An 'error' event when someone listens; otherwise stderr, so an embedding app is never thrown at. */
  #report(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else process.stderr.write(`${terminalOutput(error.message)}\n`);
  }
}

function isClosedError(error: Error): boolean {
  return error instanceof DriverboxError && error.code === 'HOST_CLOSED';
}
