// Agent metrics for Prometheus. Each agent owns its own Registry (never prom-client's global
// one) so that two agents embedded in one process, or many tests, do not share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LimitName } from '../contract/run-result.js';
import type { QueueFiguresSnapshot, RunCounters } from '../scale-out/queue-figures.js';

/** What the agent tells the metrics about one finished run (a RunResult has every field). */
export interface RunFinishedEvent {
  action: string;
  outcome: 'success' | 'failure';
  /** The failure's errorType; null for a success (a failure without one is counted as "unknown"). */
  errorType: string | null;
  durationMs: number;
  limitExceeded: LimitName | null;
}

export interface AgentMetricsOptions {
  /** Also collect prom-client's process and Node.js metrics (CPU, memory, event loop, GC). Default true. */
  defaultMetrics?: boolean;
  /** Labels put on every series, e.g. { agent: 'site-a' }. */
  defaultLabels?: Record<string, string>;
}

export interface AgentMetrics {
  readonly registry: Registry;
  recordRunStarted(): void;
  recordRunFinished(event: RunFinishedEvent): void;
  /** A run that was due while the previous run of its association was still going. */
  recordSkipped(): void;
  setPoolSize(size: number): void;
  /** The sandbox child process died and was started again. */
  recordRestart(): void;
  /** The sandbox child process was killed because a run overstayed its deadline plus the margin. */
  recordOverstayKill(): void;
  /** Where driverbox_sandbox_resident_memory_bytes is read at each scrape; null: left out. */
  observeSandboxMemory(read: () => { pid: number; bytes: number } | null): void;
  /** Scale-out mode: where the queue figures (driverbox_queue_*) are read at each scrape. */
  observeQueue(read: () => Promise<QueueFiguresSnapshot>): void;
  /** The text exposition, for GET /metrics. */
  render(): Promise<string>;
  /** The Content-Type that goes with render()'s text. */
  readonly contentType: string;
}

/** Driver runs last from a few ms (a cached reply) to the 60 s ceiling of a slow device. */
export const RUN_DURATION_BUCKETS_SECONDS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60];

export function createAgentMetrics(options: AgentMetricsOptions = {}): AgentMetrics {
  const registry = new Registry();
  if (options.defaultLabels) registry.setDefaultLabels(options.defaultLabels);
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  const runs = new Counter({
    name: 'driverbox_runs_total',
    help: 'Driver runs finished, by action and outcome (success or failure).',
    labelNames: ['action', 'outcome'] as const,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'driverbox_run_failures_total',
    help: 'Failed driver runs, by errorType.',
    labelNames: ['error_type'] as const,
    registers: [registry],
  });
  const timeouts = new Counter({
    name: 'driverbox_run_timeouts_total',
    help: 'Driver runs ended by the run timeout.',
    registers: [registry],
  });
  const skipped = new Counter({
    name: 'driverbox_runs_skipped_total',
    help: 'Runs not started because the previous run of the same association was still going.',
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'driverbox_run_duration_seconds',
    help: 'Wall time of finished driver runs, by action.',
    labelNames: ['action'] as const,
    buckets: RUN_DURATION_BUCKETS_SECONDS,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'driverbox_runs_in_flight',
    help: 'Driver runs started and not yet finished.',
    registers: [registry],
  });
  const poolSize = new Gauge({
    name: 'driverbox_isolate_pool_size',
    help: 'Sandbox isolates in the pool.',
    registers: [registry],
  });
  const restarts = new Counter({
    name: 'driverbox_sandbox_restarts_total',
    help: 'Times the sandbox child process died and was restarted.',
    registers: [registry],
  });
  const overstayKills = new Counter({
    name: 'driverbox_sandbox_overstay_kills_total',
    help: 'Times the sandbox child process was killed because a run overstayed its deadline plus the margin (a wedged child).',
    registers: [registry],
  });
  let readSandboxMemory: () => { pid: number; bytes: number } | null = () => null;
  new Gauge({
    name: 'driverbox_sandbox_resident_memory_bytes',
    help: 'Resident memory of the sandbox child process (its isolates and their threads), by pid, read at scrape time.',
    labelNames: ['pid'] as const,
    registers: [registry],
    collect() {
      // Labelled by pid so that, with no child (restarting, or off Linux), no sample is shown at all.
      this.reset();
      const child = readSandboxMemory();
      if (child) this.set({ pid: String(child.pid) }, child.bytes);
    },
  });
  // Scale-out: the runs queue as Redis sees it (cluster-wide) and this agent's share of it. Read
  // once per scrape; the counters are this process's own, so summing over agents gives the cluster's.
  let readQueue: (() => Promise<QueueFiguresSnapshot>) | null = null;
  let queueSnapshot: Promise<QueueFiguresSnapshot | null> | null = null;
  const snapshot = (): Promise<QueueFiguresSnapshot | null> => {
    queueSnapshot ??= (readQueue ? readQueue().catch(() => null) : Promise.resolve(null)).finally(() => {
      setImmediate(() => (queueSnapshot = null));
    });
    return queueSnapshot;
  };
  new Gauge({
    name: 'driverbox_queue_jobs',
    help: 'Run jobs in the scale-out queue by state (waiting, active, delayed, failed), cluster-wide, as Redis says at scrape time.',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const queue = (await snapshot())?.queue;
      if (!queue) return;
      for (const state of ['waiting', 'active', 'delayed', 'failed'] as const) this.set({ state }, queue[state]);
    },
  });
  new Gauge({
    name: 'driverbox_queue_schedulers',
    help: 'Job schedulers in the scale-out queue: one per scheduled association, cluster-wide.',
    registers: [registry],
    async collect() {
      this.reset();
      const queue = (await snapshot())?.queue;
      if (queue) this.set(queue.schedulers);
    },
  });
  const QUEUE_EVENTS: Record<keyof RunCounters, string> = {
    taken: 'taken',
    started: 'started',
    completed: 'completed',
    failed: 'failed',
    aborted: 'aborted',
    skippedLate: 'skipped_late',
    refusedDuplicate: 'refused_duplicate',
    gone: 'gone',
    stalledRequeues: 'stalled_requeue',
    lockRenewalFailures: 'lock_renewal_failure',
  };
  const seen: Partial<Record<keyof RunCounters, number>> = {};
  new Counter({
    name: 'driverbox_queue_runs_total',
    help: 'Run jobs of the scale-out queue this agent handled, by event: taken, started, completed, failed, aborted, skipped_late (too late for its slot), refused_duplicate (the slot had a result), gone, stalled_requeue (a dead agent\'s job it re-queued), lock_renewal_failure.',
    labelNames: ['event'] as const,
    registers: [registry],
    async collect() {
      const figures = await snapshot();
      if (!figures) return;
      for (const [key, event] of Object.entries(QUEUE_EVENTS) as Array<[keyof RunCounters, string]>) {
        const delta = figures[key] - (seen[key] ?? 0);
        seen[key] = figures[key];
        this.inc({ event }, Math.max(0, delta));
      }
    },
  });
  new Gauge({
    name: 'driverbox_queue_start_lateness_seconds',
    help: "Start lateness of this agent's queue runs (start − slot) over its recent runs, by quantile.",
    labelNames: ['quantile'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const lateness = (await snapshot())?.lateness;
      if (!lateness || lateness.count === 0) return;
      this.set({ quantile: '0.5' }, lateness.p50 / 1000);
      this.set({ quantile: '0.99' }, lateness.p99 / 1000);
      this.set({ quantile: '1' }, lateness.max / 1000);
    },
  });
  // Kept beside the gauge so a finish without a matching start cannot drive it negative.
  let running = 0;

  return {
    registry,
    contentType: registry.contentType,
    recordRunStarted() {
      running += 1;
      inFlight.set(running);
    },
    recordRunFinished(event) {
      if (!Number.isFinite(event.durationMs) || event.durationMs < 0) {
        throw new RangeError(`recordRunFinished: durationMs must be a finite number >= 0, got ${event.durationMs}`);
      }
      running = Math.max(0, running - 1);
      inFlight.set(running);
      runs.inc({ action: event.action, outcome: event.outcome });
      if (event.outcome === 'failure') failures.inc({ error_type: event.errorType ?? 'unknown' });
      if (event.limitExceeded === 'timeout') timeouts.inc();
      duration.observe({ action: event.action }, event.durationMs / 1000);
    },
    recordSkipped() {
      skipped.inc();
    },
    setPoolSize(size) {
      if (!Number.isInteger(size) || size < 0) throw new RangeError(`setPoolSize: size must be an integer >= 0, got ${size}`);
      poolSize.set(size);
    },
    recordRestart() {
      restarts.inc();
    },
    recordOverstayKill() {
      overstayKills.inc();
    },
    observeSandboxMemory(read) {
      readSandboxMemory = read;
    },
    observeQueue(read) {
      readQueue = read;
    },
    render: () => registry.metrics(),
  };
}
