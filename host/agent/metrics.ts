// Agent metrics for Prometheus. Each agent owns its own Registry (never prom-client's global
// one) so that two agents embedded in one process, or many tests, do not share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LimitName } from '../run-result.js';

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
    render: () => registry.metrics(),
  };
}
