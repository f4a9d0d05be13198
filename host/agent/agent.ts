// createAgent: the long-running collector. It brings the store in line with the inventory,
// turns every enabled association of the local agent (from the inventory or made through the
// API) into a scheduler job, runs those jobs in the supervised sandbox process, writes each
// result to the store, and optionally serves the Monitoring API with /metrics and the
// application status beside it. docs/agent/agent.md tells how to embed it.
import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import { marketplaceRoutes, type MarketplaceSettings } from '../api/marketplace/marketplace-routes.js';
import { consoleRoutes } from '../api/console/console-routes.js';
import { driverboxApiRoutes } from '../api/driverbox/runs-routes.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../api/monitoring/server.js';
import { DriverboxError } from '../contract/errors.js';
import type { RunLimits } from '../contract/limits.js';
import type { RunResult } from '../contract/run-result.js';
import { ensureLocalAgent } from '../store/agents.js';
import { listAssociationSchedules, type AssociationSchedule } from '../store/associations.js';
import type { StoreDeviceStates } from '../store/device-states.js';
import type { Store } from '../store/store.js';
import { agentRoutes } from '../api/driverbox/agent-routes.js';
import { runAssociation, type ActionRun } from './association-run.js';
import { loadInventory, syncInventory, type Inventory, type InventorySyncResult } from './inventory/index.js';
import { DEFAULT_ACTIONS } from './inventory/types.js';
import { createAgentMetrics, type AgentMetrics, type AgentMetricsOptions } from './metrics.js';
import { externalHostList } from './external-hosts.js';
import type { RunExecutor } from '../contract/run-executor.js';
import { startSandboxProcess, type SandboxProcess, type SandboxProcessOptions, type SandboxProcessStats, type SandboxProcessMemory } from '../executor/sandbox-process/index.js';
import { createScheduler, DEFAULT_MAX_CONCURRENT, DEFAULT_MAX_PER_DEVICE, systemClock, type Scheduler, type SchedulerOptions, type SchedulerStats, type SkipReason } from './scheduler.js';
import { QueueRuns, type AgentQueueOptions } from './queue-runs.js';
import type { RunCounters } from '../scale-out/queue-figures.js';
import { defaultLimits } from '../contract/limits.js';
import { createStatusSource, type HealthProbe } from '../api/driverbox/status.js';
import { createScheduleView, type ScheduledAssociation, type ScheduleFigures } from '../api/driverbox/schedule-view.js';
import type { ScheduleReader } from '../scale-out/schedule-reader.js';
import { DeviceRunPruner } from './device-run-pruner.js';
import { terminalOutput } from '../terminal-text.js';
import { backoffRuleOf, backoffVerdict, nextBackoff, type BackoffRule } from './association-backoff.js';
import { listAssociationBackoffs, readAssociationBackoff, readSamplePeriodS, saveAssociationBackoff, type StoredBackoff } from '../store/association-backoff.js';
import type { LimitName } from '../contract/run-result.js';

/** How long stop() lets runs in flight finish by default. */
export const DEFAULT_GRACE_MS = 30_000;
/** Runs kept per device in the store by default (older records are pruned as new ones come). */
export const DEFAULT_KEEP_RUNS_PER_DEVICE = 100;
/**
 * Isolates the agent's sandbox child keeps warm at most. Runs at once beyond it first wait for one
 * (host/sandbox/pool.ts): 4 served bench:agent's 10,000 devices / 60 s with 8's lateness and
 * ~50 MB less (each holds its runs' garbage, ~12 MB).
 */
export const AGENT_WARM_ISOLATES = 4;
/**
 * How long the child keeps an isolate nobody used, ms: the warm set follows the runs at once of
 * the last seconds, not the largest burst since start (~12 MB each at bench:agent's load; making
 * one again costs ~5-10 ms of CPU).
 */
export const AGENT_WARM_IDLE_MS = 5_000;
/** How often the agent re-reads its associations by default (to see changes other processes made). */
export const DEFAULT_STORE_REFRESH_MS = 30_000;

export interface AgentApiOptions {
  /** Accepted X-Api-Key values (at least one). */
  apiKeys: readonly string[];
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Told of every answered request. */
  onRequestDone?: (request: { method: string; url: string; status: number; ms: number }) => void;
  /** Ask for a key on GET /metrics too (default false: scrapers rarely send one). */
  metricsNeedKey?: boolean;
  /** The Marketplace API emulator's settings (name, agreements, access URL base, trial days). */
  marketplace?: MarketplaceSettings;
  /** Browser origins allowed to call the API (CORS); default none. */
  corsOrigins?: readonly string[];
}

export interface AgentOptions {
  /** An open store; the agent works under its local agent. Closed by stop() only with closeStore. */
  store: Store;
  /** The inventory, or the path of its file (read again by reload()). None: only associations made through the API run. */
  inventory?: Inventory | string;
  /** Where `{ env: NAME }` credentials of an inventory file are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Runs drivers. Default: a supervised sandbox process made from `sandbox`, closed by stop(). */
  executor?: RunExecutor;
  /** Options of the default sandbox process (`host.threads`: sandbox threads, default AGENT_MIN_SANDBOX_THREADS or cores − 1, the larger). */
  sandbox?: SandboxProcessOptions;
  /**
   * The backoff after repeated limit hits (host/agent/association-backoff.ts): after `threshold`
   * (3) consecutive runs of an association that hit a limit (timeout, cpu, memory), its runs are
   * spaced out (2, 4, 8… periods, at most `maxMs`, 1 h) until one succeeds or an operator
   * re-enables it; the API shows it DISABLED meanwhile. threshold 0 turns it off. Scale-out mode too (from the shared store).
   */
  backoff?: Partial<BackoffRule>;
  /** Bounds and jitter: maxConcurrent (32), maxPerDevice (2), jitterMs (30 s, capped at each period). */
  scheduler?: SchedulerOptions;
  /** Limits given to every scheduled run (the run timeout, CPU, memory…). */
  limits?: Partial<RunLimits>;
  /**
   * Hosts that drivers not made by the inventory (uploaded through the API) may reach with
   * D.createExternalDevice, in scheduled runs and executed through the API: default none;
   * ["*"]: any host. The inventory's driver files, run byte for byte as loaded, keep the host's
   * default (any host); other code under their ids (updated through the API) gets this list.
   */
  externalHosts?: readonly string[];
  /** stop(): how long runs in flight may take to finish, ms (default 30 s). */
  graceMs?: number;
  /** Runs kept per device in the store (default 100; null keeps all). */
  keepRunsPerDevice?: number | null;
  /** Also write each scheduled run into the activity log (default false: it is for people's actions). */
  activityLog?: boolean;
  /** How often associations are re-read from the store, ms (default 30 s; 0: only on API changes and reload). */
  storeRefreshMs?: number;
  /** Serve the Monitoring API, /metrics and /backend-api/v1/status from this process. */
  api?: AgentApiOptions;
  metrics?: AgentMetricsOptions;
  /** stop() closes the store too (the CLI's case). Default false. */
  closeStore?: boolean;
  /**
   * Scale-out mode (docs/SCALE-OUT.md): runs come from a Redis queue several agents share
   * instead of this process's scheduler, and the store should be a PostgreSQL one they share.
   * `scheduler.maxConcurrent` and `maxPerDevice` bound this agent's share; jitter does not apply
   * (each association's slots are spread by a fixed offset).
   */
  queue?: AgentQueueOptions;
}

export interface AgentRunStarted {
  associationId: number;
  /** `driver@device`. */
  name: string;
  driverId: number;
  deviceId: number;
  dueAt: number;
  startedAt: number;
  /** startedAt − dueAt, ms. */
  latenessMs: number;
}

export interface AgentRunFinished extends AgentRunStarted {
  action: string;
  result: RunResult;
  /** The run's record in the store (null when the association went away meanwhile, or writing failed). */
  runId: number | null;
  /** What the store refused of the result, as warnings (a device's bound on variables or tables bit). */
  storeWarnings: string[];
}

export interface AgentRunSkipped {
  associationId: number;
  name: string;
  dueAt: number;
  reason: SkipReason;
  /** Due times skipped at once (more than 1 after a blocked event loop). */
  count: number;
}

/** An association began, went on, or stopped backing off after repeated limit hits. */
export interface AgentBackoffEvent {
  associationId: number;
  name: string;
  /** Consecutive runs that hit a limit (0 once restored). */
  hits: number;
  /** The limit the last of them hit; null once restored. */
  limit: LimitName | null;
  /** How long until its next run may start, ms (0 once restored). */
  backoffMs: number;
  /** Wall-clock ms of that, or null once restored. */
  until: number | null;
  /** Why it was restored: a successful run, or an operator (re-enable); null while backing off. */
  restoredBy: 'success' | 'operator' | null;
}

export type AgentEvents = {
  /** An association's backoff after repeated limit hits began, grew, or ended. */
  backoff: [AgentBackoffEvent];
  runStarted: [AgentRunStarted];
  /** One per action run (an association with several actions gives several). */
  runFinished: [AgentRunFinished];
  runSkipped: [AgentRunSkipped];
  /** A result that could not be stored, a failed store refresh, a sandbox crash… The agent goes on. */
  error: [Error];
  /** The inventory was synced (start, reload). */
  synced: [InventorySyncResult];
};

export type AgentState = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface AgentStats {
  /** 'embedded': this process's scheduler; 'queue': the scale-out queue. */
  mode: 'embedded' | 'queue';
  state: AgentState;
  agentId: number | null;
  /** Associations scheduled now. */
  associations: number;
  /** Action runs since start by outcome (the scheduler counts jobs; a job with 2 actions is 2 runs here). */
  results: { success: number; failure: number };
  scheduler: SchedulerStats | null;
  /** Scale-out mode: this agent's queue counters (from its own runs; Redis's counts are in /metrics). */
  queue: RunCounters | null;
  /** The default executor's figures; null with an executor of your own. */
  sandbox: SandboxProcessStats | null;
}

export interface AgentStopResult {
  /** Runs in flight at stop that finished within the grace. */
  finished: number;
  /** Runs still going when the grace ran out: ended as failed (their sandbox was stopped). */
  aborted: number;
  /** Due runs still waiting for a slot: never started. */
  dropped: number;
}

interface PlannedJob {
  schedule: AssociationSchedule;
  name: string;
  actions: string[];
}

const jobKey = (associationId: number) => `association-${associationId}`;

/**
 * The least sandbox threads the agent's sandbox process gets, whatever the cores: a driver that
 * spins until its deadline holds one thread (host/sandbox/threads.ts places other runs elsewhere).
 */
export const AGENT_MIN_SANDBOX_THREADS = 2;

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
  readonly #options: AgentOptions;
  readonly #graceMs: number;
  readonly #refreshMs: number;
  readonly #keepRuns: number | null;
  readonly #externalHosts: string[];
  #state: AgentState = 'new';
  #agentId: number | null = null;
  #scheduler: Scheduler | null = null;
  #queue: QueueRuns | null = null;
  #executor: RunExecutor | null = null;
  #sandbox: SandboxProcess | null = null;
  #server: RunningMonitoringServer | null = null;
  #refreshTimer: NodeJS.Timeout | null = null;
  /** Actions the inventory gives its associations; others run get_status. */
  #inventoryActions = new Map<number, string[]>();
  readonly #planned = new Map<string, PlannedJob>();
  readonly #started = new Map<string, AgentRunStarted>();
  readonly #results = { success: 0, failure: 0 };
  #stopping: Promise<AgentStopResult> | null = null;
  /** Keeps keepRunsPerDevice runs per device, pruned in batches (null: all kept). */
  #runPruner: DeviceRunPruner | null = null;
  /** The backoff after repeated limit hits; null when turned off. */
  readonly #backoffRule: BackoffRule | null;
  /** The associations with limit hits counted, as the store has them (read at each refresh, written after each run). */
  #backoffs = new Map<number, StoredBackoff>();
  /** Backoff changes this agent wrote: a refresh whose read began before one does not apply its older view. */
  #backoffWrites = 0;

  constructor(options: AgentOptions) {
    super();
    if (!options || typeof options !== 'object' || !options.store) throw new DriverboxError('INVALID_OPTIONS', 'createAgent: a store is required (openStore(...))');
    this.#options = { ...options };
    this.#graceMs = optionalCount(options.graceMs, DEFAULT_GRACE_MS, 'graceMs')!;
    this.#refreshMs = optionalCount(options.storeRefreshMs, DEFAULT_STORE_REFRESH_MS, 'storeRefreshMs')!;
    this.#keepRuns = optionalCount(options.keepRunsPerDevice, DEFAULT_KEEP_RUNS_PER_DEVICE, 'keepRunsPerDevice');
    this.metrics = createAgentMetrics(options.metrics);
    this.#backoffRule = backoffRuleOf(options.backoff, (message) => new DriverboxError('INVALID_OPTIONS', message));
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
      if (this.#options.api) await this.#serve(this.#options.api);
      if (this.#options.queue) await this.#startQueue(this.#options.queue);
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
    const writesBefore = this.#backoffWrites;
    const backoffs = this.#backoffRule ? await listAssociationBackoffs(this.#options.store, this.#agentId).catch(() => null) : null;
    const wanted = new Map<string, PlannedJob>();
    for (const schedule of schedules) {
      // A device that is UNMANAGED or on the excluded list is not monitored: no driver runs on it.
      if (!schedule.enabled || !schedule.deviceMonitored) continue;
      wanted.set(jobKey(schedule.id), {
        schedule,
        name: `${schedule.driverName}@${schedule.deviceName}`,
        actions: this.#inventoryActions.get(schedule.id) ?? [...DEFAULT_ACTIONS],
      });
    }
    for (const key of [...this.#planned.keys()]) {
      if (wanted.has(key)) continue;
      scheduler.remove(key);
      this.#planned.delete(key);
    }
    for (const [key, job] of wanted) {
      const before = this.#planned.get(key);
      if (before && sameJob(before, job)) continue;
      this.#planned.set(key, job);
      scheduler.upsert({
        key,
        deviceKey: `device-${job.schedule.deviceId}`,
        periodMs: job.schedule.samplePeriod * 1000,
        run: (signal) => this.#runJob(key, signal),
      });
    }
    // A run's result changed a backoff while the store was read: the next refresh applies it.
    if (backoffs && writesBefore === this.#backoffWrites) this.#applyBackoffs(scheduler, backoffs, wanted);
  }

  /**
   * Holds the jobs of associations backing off, as the store says (after a restart too), and
   * lets go of those restored meanwhile by an operator (reEnableCustomDriverAssociations).
   */
  #applyBackoffs(scheduler: Scheduler, backoffs: Map<number, StoredBackoff>, wanted: Map<string, PlannedJob>): void {
    for (const [id, before] of this.#backoffs) {
      if (backoffs.has(id) || before.backoffUntil === null) continue;
      const job = wanted.get(jobKey(id));
      if (job) this.#emitBackoff(id, job.name, null, 'operator');
    }
    this.#backoffs = backoffs;
    for (const [key, job] of wanted) {
      const until = backoffs.get(job.schedule.id)?.backoffUntil ?? null;
      scheduler.hold(key, until === null ? 0 : this.#clockOf(until));
    }
  }

  /** A wall-clock time on the scheduler's clock (monotonic). */
  #clockOf(wallMs: number): number {
    return wallMs - Date.now() + (this.#options.scheduler?.clock ?? systemClock).now();
  }

  /** After an association's run: its limit hits counted or reset, its backoff stored, its job held or let go. */
  async #noteBackoff(key: string, job: PlannedJob, runs: readonly ActionRun[]): Promise<void> {
    const rule = this.#backoffRule;
    if (!rule || runs.length === 0) return;
    const id = job.schedule.id;
    const previous = this.#backoffs.get(id) ?? null;
    const verdict = backoffVerdict(runs.map((r) => r.result));
    const periodMs = job.schedule.samplePeriod * 1000;
    const next = nextBackoff(previous, verdict, periodMs, Date.now(), rule);
    if (next === previous) return;
    this.#backoffWrites++;
    try {
      await saveAssociationBackoff(this.#options.store, id, next);
    } catch (error) {
      this.#report(new Error(`agent: the backoff of ${job.name} could not be stored: ${toError(error).message}`));
    }
    if (next) this.#backoffs.set(id, { associationId: id, ...next });
    else this.#backoffs.delete(id);
    this.#scheduler?.hold(key, next?.backoffUntil ? this.#clockOf(next.backoffUntil) : 0);
    if (next?.backoffUntil) this.#emitBackoff(id, job.name, next, null);
    else if (!next && previous?.backoffUntil) this.#emitBackoff(id, job.name, null, 'success');
  }

  #emitBackoff(associationId: number, name: string, state: { hits: number; lastLimit: LimitName; backoffUntil: number | null } | null, restoredBy: 'success' | 'operator' | null): void {
    const until = state?.backoffUntil ?? null;
    this.emit('backoff', {
      associationId,
      name,
      hits: state?.hits ?? 0,
      limit: state?.lastLimit ?? null,
      backoffMs: until === null ? 0 : Math.max(0, until - Date.now()),
      until,
      restoredBy,
    });
  }

  stats(): AgentStats {
    return {
      mode: this.#options.queue ? 'queue' : 'embedded',
      state: this.#state,
      agentId: this.#agentId,
      associations: this.#queue ? this.#queueAssociations : this.#planned.size,
      results: { ...this.#results },
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
      const started: AgentRunStarted = {
        associationId: job.schedule.id,
        name: job.name,
        driverId: job.schedule.customDriverId,
        deviceId: job.schedule.deviceId,
        dueAt: event.dueAt,
        startedAt: event.startedAt,
        latenessMs: event.latenessMs,
      };
      this.#started.set(event.key, started);
      this.emit('runStarted', started);
    });
    scheduler.on('runFinished', (event) => {
      this.#started.delete(event.key);
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
    const sandboxOptions = this.#options.sandbox ?? {};
    const sandbox = await startSandboxProcess({
      ...sandboxOptions,
      // The scheduler already bounds runs; the child gets an isolate for each so none queues there.
      // Up to AGENT_WARM_ISOLATES are kept warm, each until AGENT_WARM_IDLE_MS unused. Not one per
      // slot: an isolate kept warm holds the garbage of its runs, and a run at once past the warm
      // set waits for one to come back before one is made (host/sandbox/pool.ts).
      // At least AGENT_MIN_SANDBOX_THREADS threads, even on 2 cores: a run spinning to its deadline holds one.
      host: {
        maxIsolates: maxConcurrent,
        warmIsolates: Math.min(maxConcurrent, AGENT_WARM_ISOLATES),
        warmIsolateIdleMs: AGENT_WARM_IDLE_MS,
        threads: Math.min(maxConcurrent, Math.max(AGENT_MIN_SANDBOX_THREADS, availableParallelism() - 1)),
        ...sandboxOptions.host,
      },
      // stop() waits for the grace itself: what is left then is ended at once.
      closeGraceMs: sandboxOptions.closeGraceMs ?? 0,
    });
    sandbox.on('restart', () => this.metrics.recordRestart());
    this.metrics.observeSandboxMemory(() => {
      const { pid, rssBytes } = sandbox.stats();
      return pid !== null && rssBytes !== null ? { pid, bytes: rssBytes } : null;
    });
    sandbox.on('exit', (event) => {
      if (event.expected) return;
      if (event.overstay) this.metrics.recordOverstayKill();
      const how = event.killedBecause ? `killed because ${event.killedBecause}` : event.signal ? `signal ${event.signal}` : `exit code ${event.code}`;
      this.#report(new Error(`agent: the sandbox process (pid ${event.pid}) died (${how}); ${event.lostRuns} run(s) in flight ended as failed; it is being restarted`));
    });
    this.#sandbox = sandbox;
    this.#executor = sandbox;
  }

  async #serve(api: AgentApiOptions): Promise<void> {
    const status = createStatusSource({ probes: this.#probes() });
    this.#server = await startMonitoringServer({
      store: this.#options.store,
      host: this.#executor ?? undefined,
      externalHosts: this.#externalHosts,
      apiKeys: api.apiKeys,
      corsOrigins: api.corsOrigins,
      listen: { host: api.host ?? '127.0.0.1', port: api.port ?? 0 },
      user: 'api',
      onRequestDone: api.onRequestDone,
      // An association made or deleted through the API is scheduled or unscheduled at once.
      onStoreChanged: async () => await this.refresh(),
      // Each its own plugin, so each keeps its own error bodies.
      extraRoutes: async (app) => {
        await app.register(agentRoutes, { metrics: this.metrics, status, apiKeys: api.apiKeys, requireApiKey: { metrics: api.metricsNeedKey ?? false } });
        await app.register(marketplaceRoutes, { ...api.marketplace, store: this.#options.store, apiKeys: api.apiKeys });
        await app.register(driverboxApiRoutes, { store: this.#options.store, apiKeys: api.apiKeys, host: this.#executor ?? undefined, externalHosts: this.#externalHosts, schedule: createScheduleView(this, this.#options.store) });
        await app.register(consoleRoutes);
      },
    });
  }

  #probes(): Record<'sandbox' | 'store' | 'scheduler' | 'http', HealthProbe> {
    return {
      sandbox: () => {
        const state = this.#sandbox?.stats().state;
        if (state !== undefined && state !== 'ready') throw new Error(`the sandbox process is ${state}`);
        if (!this.#executor) throw new Error('no sandbox is running');
      },
      store: async () => {
        await this.#options.store.statement('SELECT 1').get();
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
      http: () => {
        if (!this.#server?.app.server.listening) throw new Error('the API server is not listening');
      },
    };
  }

  #queueAssociations = 0;

  async #startQueue(options: AgentQueueOptions): Promise<void> {
    const executor = this.#executor!;
    const agentId = this.#agentId!;
    const timeoutMs = this.#options.limits?.timeoutMs ?? defaultLimits.timeoutMs;
    const queue = new QueueRuns(
      this.#options.store,
      agentId,
      executor,
      {
        ...options,
        deadlineMs: options.deadlineMs ?? Math.max(10_000, 2 * timeoutMs),
        concurrency: this.#options.scheduler?.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
        maxPerDevice: this.#options.scheduler?.maxPerDevice ?? DEFAULT_MAX_PER_DEVICE,
      },
      {
        actionsOf: (id) => this.#inventoryActions.get(id) ?? [...DEFAULT_ACTIONS],
        run: (id, actions, signal, executor, slot, deviceStates) => this.#runSlot(id, actions, signal, executor, slot, deviceStates),
        report: (error) => this.#report(error),
      },
    );
    queue.reconciler.on('reconciled', (result) => {
      for (const refused of result.refused) this.#report(new Error(`agent: association ${refused.associationId ?? '?'} is not scheduled: ${refused.message}`));
    });
    queue.worker.on('runSkipped', (event) => {
      this.metrics.recordSkipped();
      this.emit('runSkipped', { associationId: event.associationId, name: `association ${event.associationId}`, dueAt: event.slotMs, reason: 'missed', count: 1 });
    });
    this.metrics.observeQueue(() => queue.figures());
    this.#queue = queue;
    await queue.start();
  }

  async #runSlot(associationId: number, actions: string[], signal: AbortSignal, executor: RunExecutor, slot: { slotMs: number; runner: string }, deviceStates: StoreDeviceStates): Promise<ActionRun[]> {
    const ctx = {
      store: this.#options.store,
      executor,
      agentId: this.#agentId!,
      limits: this.#options.limits,
      externalHosts: this.#externalHosts,
      write: { activity: this.#options.activityLog ?? false },
      runPruner: this.#runPruner ?? undefined,
      slot,
      deviceStates,
    };
    // Backing off after repeated limit hits (the store says, for every agent of the cluster): this slot is skipped.
    const backoff = this.#backoffRule ? await readAssociationBackoff(this.#options.store, associationId).catch(() => null) : null;
    if (backoff?.backoffUntil && backoff.backoffUntil > slot.slotMs) {
      this.metrics.recordSkipped();
      this.emit('runSkipped', { associationId, name: `association ${associationId}`, dueAt: slot.slotMs, reason: 'backoff', count: 1 });
      return [];
    }
    const startedAt = Date.now();
    const key = `queue-${associationId}-${slot.slotMs}`;
    // A queue job carries only the association's id: its names come from the store as the run
    // reads it, so events and lines name a run as the embedded mode does (driver@device).
    const job: PlannedJob = {
      schedule: { id: associationId } as AssociationSchedule,
      name: `association ${associationId}`,
      actions,
    };
    try {
      const runs = await runAssociation(ctx, associationId, actions, signal, {
        identified: (who) => {
          job.name = `${who.driverName}@${who.deviceName}`;
          job.schedule = { ...job.schedule, customDriverId: who.driverId, deviceId: who.deviceId };
          const started: AgentRunStarted = {
            associationId,
            name: job.name,
            driverId: who.driverId,
            deviceId: who.deviceId,
            dueAt: slot.slotMs,
            startedAt,
            latenessMs: startedAt - slot.slotMs,
          };
          this.#started.set(key, started);
          this.emit('runStarted', started);
        },
        started: () => this.metrics.recordRunStarted(),
        finished: (run) => this.#onActionRun(key, job, run),
        abandoned: (action, error) => {
          this.#results.failure += 1;
          this.metrics.recordRunFinished({ action, outcome: 'failure', errorType: error instanceof DriverboxError ? error.code : null, durationMs: 0, limitExceeded: null });
        },
      });
      await this.#noteSlotBackoff(associationId, job.name, runs, backoff);
      return runs;
    } finally {
      this.#started.delete(key);
    }
  }

  /** Scale-out: the backoff rule after a slot's run, on the state in the shared store (the next slot may be another agent's). */
  async #noteSlotBackoff(associationId: number, name: string, runs: readonly ActionRun[], previous: StoredBackoff | null): Promise<void> {
    const rule = this.#backoffRule;
    if (!rule || runs.length === 0) return;
    try {
      const periodMs = (await readSamplePeriodS(this.#options.store, associationId)) * 1000;
      if (!(periodMs > 0)) return; // deleted meanwhile
      const next = nextBackoff(previous, backoffVerdict(runs.map((r) => r.result)), periodMs, Date.now(), rule);
      if (next === previous) return;
      await saveAssociationBackoff(this.#options.store, associationId, next);
      if (next?.backoffUntil) this.#emitBackoff(associationId, name, next, null);
      else if (!next && previous?.backoffUntil) this.#emitBackoff(associationId, name, null, 'success');
    } catch (error) {
      this.#report(new Error(`agent: the backoff of ${name} could not be stored: ${toError(error).message}`));
    }
  }

  async #runJob(key: string, signal: AbortSignal): Promise<number> {
    const job = this.#planned.get(key);
    const executor = this.#executor;
    if (!job || !executor || this.#agentId === null) return 0;
    const ctx = {
      store: this.#options.store,
      executor,
      agentId: this.#agentId,
      limits: this.#options.limits,
      externalHosts: this.#externalHosts,
      write: { activity: this.#options.activityLog ?? false },
      runPruner: this.#runPruner ?? undefined,
    };
    const runs = await runAssociation(ctx, job.schedule.id, job.actions, signal, {
      // Counted per action, so runs_total and runs_in_flight agree.
      started: () => this.metrics.recordRunStarted(),
      finished: (run) => this.#onActionRun(key, job, run),
      abandoned: (action, error) => {
        this.#results.failure += 1;
        this.metrics.recordRunFinished({
          action,
          outcome: 'failure',
          errorType: error instanceof DriverboxError ? error.code : null,
          durationMs: 0,
          limitExceeded: null,
        });
      },
    });
    await this.#noteBackoff(key, job, runs);
    return runs.length;
  }

  #onActionRun(key: string, job: PlannedJob, run: ActionRun): void {
    const { result } = run;
    this.#results[result.status] += 1;
    this.metrics.recordRunFinished({
      action: run.action,
      outcome: result.status,
      errorType: result.errorType,
      durationMs: Math.max(0, result.durationMs),
      limitExceeded: result.limitExceeded,
    });
    const pool = this.#sandbox?.stats().pool;
    if (pool) this.metrics.setPoolSize(pool.alive);
    if (run.storeError) this.#report(new Error(`agent: the ${run.action} result of ${job.name} could not be stored: ${run.storeError.message}`));
    const started = this.#started.get(key) ?? {
      associationId: job.schedule.id,
      name: job.name,
      driverId: job.schedule.customDriverId,
      deviceId: job.schedule.deviceId,
      dueAt: Number.NaN,
      startedAt: Number.NaN,
      latenessMs: Number.NaN,
    };
    this.emit('runFinished', { ...started, action: run.action, result, runId: run.runId, storeWarnings: run.storeWarnings });
  }

  /** An 'error' event when someone listens; otherwise stderr, so an embedding app is never thrown at. */
  #report(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else process.stderr.write(`${terminalOutput(error.message)}\n`);
  }
}

function sameJob(a: PlannedJob, b: PlannedJob): boolean {
  return (
    a.schedule.samplePeriod === b.schedule.samplePeriod &&
    a.schedule.deviceId === b.schedule.deviceId &&
    a.name === b.name &&
    a.actions.length === b.actions.length &&
    a.actions.every((action, i) => action === b.actions[i])
  );
}

function isClosedError(error: Error): boolean {
  return error instanceof DriverboxError && error.code === 'HOST_CLOSED';
}

/** A new agent; call start() to run it. */
export function createAgent(options: AgentOptions): Agent {
  return new Agent(options);
}
