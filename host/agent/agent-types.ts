// The agent's types and defaults: what it takes (AgentCoreOptions), what it tells (its events),
// what it answers (stats, stop result, its schedule's figures). Apart from agent.ts so that its
// readers (the CLI, the API's schedule view, the server) need not import the class.
import type { Inventory, InventorySyncResult } from './inventory/index.js';
import type { AgentMetricsOptions } from './metrics.js';
import type { AgentQueueOptions } from './queue-runs.js';
import type { BackoffRule } from './association-backoff.js';
import type { SampleSummary } from '../sample-window.js';
import type { SchedulerOptions, SchedulerStats, SkipReason } from './scheduler/types.js';
import type { RunLimits } from '../contract/limits.js';
import type { LimitName, RunResult } from '../contract/run-result.js';
import type { RunExecutor } from '../contract/run-executor.js';
import type { SandboxProcessOptions, SandboxProcessStats } from '../engine/process/index.js';
import type { RunCounters } from '../scale-out/queue-figures.js';
import type { AssociationSchedule } from '../store/drivers/associations.js';
import type { Store } from '../store/store.js';

/** How long stop() lets runs in flight finish by default. */
export const DEFAULT_GRACE_MS = 30_000;
/** Runs kept per device in the store by default (older records are pruned as new ones come). */
export const DEFAULT_KEEP_RUNS_PER_DEVICE = 100;
/** How often the agent re-reads its associations by default (to see changes other processes made). */
export const DEFAULT_STORE_REFRESH_MS = 30_000;

/** What the agent itself takes; AgentOptions (host/server/agent-server.ts) adds the API it may serve. */
export interface AgentCoreOptions {
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
  metrics?: AgentMetricsOptions;
  /** stop() closes the store too (the CLI's case). Default false. */
  closeStore?: boolean;
  /**
   * Scale-out mode (docs/architecture/scale-out.md): runs come from a Redis queue several agents share
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

/** One association the agent's scheduler has (Agent.scheduledAssociations). */
export interface ScheduledAssociation {
  associationId: number;
  /** driver@device */
  name: string;
  deviceId: number;
  driverId: number;
  actions: string[];
}

/** The scheduler's figures of one association (Agent.scheduleFigures). */
export interface ScheduleFigures {
  periodMs: number;
  /** Wall-clock ms of the next due time; null once stopping. */
  nextDueAt: number | null;
  running: boolean;
  waiting: boolean;
  due: number;
  started: number;
  lateness: SampleSummary;
}

/** One association as the agent runs it (internal): its schedule from the store, `driver@device`, its actions. */
export interface PlannedJob {
  schedule: AssociationSchedule;
  name: string;
  actions: string[];
}
