// The agent's account of its action runs, the same in both modes (its own scheduler, the
// scale-out queue): each counted by outcome and in the metrics, and told as runStarted and
// runFinished events with the association's names and timing.
import { DriverboxError } from '../contract/errors.js';
import type { AgentRunFinished, AgentRunStarted, PlannedJob } from './agent-types.js';
import type { ActionRun, AssociationRunHooks } from './association-run.js';
import type { AgentMetrics } from './metrics.js';

export interface RunTallyOptions {
  metrics: AgentMetrics;
  /** Isolates alive in the sandbox's pool now (undefined without the default sandbox). */
  poolAlive(): number | undefined;
  started(event: AgentRunStarted): void;
  finished(event: AgentRunFinished): void;
  report(error: Error): void;
}

export class RunTally {
  /** Action runs since start by outcome (a job with 2 actions is 2 runs here). */
  readonly results = { success: 0, failure: 0 };
  readonly #options: RunTallyOptions;
  /** Runs going on, by job key: their start event, repeated in their finish events. */
  readonly #started = new Map<string, AgentRunStarted>();

  constructor(options: RunTallyOptions) {
    this.#options = options;
  }

  /** A job's run began (after its wait for a slot). */
  started(key: string, event: AgentRunStarted): void {
    this.#started.set(key, event);
    this.#options.started(event);
  }

  /** How late the scheduler started a job's run going on now (ms), for its results' health. */
  latenessOf(key: string): number | null {
    const started = this.#started.get(key);
    return started && Number.isFinite(started.latenessMs) ? started.latenessMs : null;
  }

  /** A job's run is over: its start is forgotten. */
  ended(key: string): void {
    this.#started.delete(key);
  }

  /** The hooks of runAssociation for one run of `job` (read as each action ends: a queue run names it late). */
  hooks(key: string, job: PlannedJob): Pick<AssociationRunHooks, 'started' | 'finished' | 'abandoned'> {
    const { metrics } = this.#options;
    return {
      // Counted per action, so runs_total and runs_in_flight agree.
      started: () => metrics.recordRunStarted(),
      finished: (run) => this.#finished(key, job, run),
      abandoned: (action, error) => {
        this.results.failure += 1;
        metrics.recordRunFinished({ action, outcome: 'failure', errorType: error instanceof DriverboxError ? error.code : null, durationMs: 0, limitExceeded: null });
      },
    };
  }

  #finished(key: string, job: PlannedJob, run: ActionRun): void {
    const { result } = run;
    const { metrics } = this.#options;
    this.results[result.status] += 1;
    metrics.recordRunFinished({
      action: run.action,
      outcome: result.status,
      errorType: result.errorType,
      durationMs: Math.max(0, result.durationMs),
      limitExceeded: result.limitExceeded,
    });
    const alive = this.#options.poolAlive();
    if (alive !== undefined) metrics.setPoolSize(alive);
    if (run.storeError) this.#options.report(new Error(`agent: the ${run.action} result of ${job.name} could not be stored: ${run.storeError.message}`));
    const started = this.#started.get(key) ?? {
      associationId: job.schedule.id,
      name: job.name,
      driverId: job.schedule.customDriverId,
      deviceId: job.schedule.deviceId,
      dueAt: Number.NaN,
      startedAt: Number.NaN,
      latenessMs: Number.NaN,
    };
    this.#options.finished({ ...started, action: run.action, result, runId: run.runId, storeWarnings: run.storeWarnings });
  }
}
