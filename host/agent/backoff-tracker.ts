// The agent's side of the backoff after repeated limit hits (the rule is association-backoff.ts):
// it reads each association's state from the store, counts a run's hits or success into it,
// writes it back, holds or lets go of the scheduler's job, and tells each change as a backoff
// event. The store holds the state so a restart, and every agent of a scale-out cluster, sees it.
import { listAssociationBackoffs, readAssociationBackoff, readSamplePeriodS, saveAssociationBackoff, type StoredBackoff } from '../store/drivers/association-backoff.js';
import type { Store } from '../store/store.js';
import type { LimitName } from '../contract/run-result.js';
import type { AgentBackoffEvent } from './agent-types.js';
import type { ActionRun } from './association-run.js';
import { backoffVerdict, nextBackoff, type BackoffRule } from './association-backoff.js';
import type { Scheduler } from './scheduler/scheduler.js';

/** What the tracker knows of a scheduled association. */
export interface BackoffJob {
  key: string;
  associationId: number;
  name: string;
  periodMs: number;
}

export interface BackoffTrackerOptions {
  store: Store;
  /** Turned off when null: nothing is read, counted or held. */
  rule: BackoffRule | null;
  /** A wall-clock time on the scheduler's clock (monotonic). */
  clockOf(wallMs: number): number;
  tell(event: AgentBackoffEvent): void;
  report(error: Error): void;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

type BackoffTail = { hits: number; lastLimit: LimitName; backoffUntil: number | null };

export class BackoffTracker {
  readonly #options: BackoffTrackerOptions;
  /** The associations with limit hits counted, as the store has them (read at each refresh, written after each run). */
  #backoffs = new Map<number, StoredBackoff>();
  /** Changes this agent wrote: a read that began before one does not apply its older view. */
  #writes = 0;

  constructor(options: BackoffTrackerOptions) {
    this.#options = options;
  }

  /**
   * The store's backoffs of the agent's associations; null when turned off, unreadable, or when a
   * run's result changed one while they were read (the next refresh applies them).
   */
  async read(agentId: number): Promise<Map<number, StoredBackoff> | null> {
    if (!this.#options.rule) return null;
    const writesBefore = this.#writes;
    const backoffs = await listAssociationBackoffs(this.#options.store, agentId).catch(() => null);
    return backoffs && writesBefore === this.#writes ? backoffs : null;
  }

  /**
   * Holds the jobs of associations backing off, as the store says (after a restart too), and
   * lets go of those restored meanwhile by an operator (reEnableCustomDriverAssociations).
   */
  apply(scheduler: Scheduler, backoffs: Map<number, StoredBackoff>, jobs: readonly BackoffJob[]): void {
    const byId = new Map(jobs.map((job) => [job.associationId, job]));
    for (const [id, before] of this.#backoffs) {
      if (backoffs.has(id) || before.backoffUntil === null) continue;
      const job = byId.get(id);
      if (job) this.#tell(id, job.name, null, 'operator');
    }
    this.#backoffs = backoffs;
    for (const job of jobs) {
      const until = backoffs.get(job.associationId)?.backoffUntil ?? null;
      scheduler.hold(job.key, until === null ? 0 : this.#options.clockOf(until));
    }
  }

  /** After an association's run: its limit hits counted or reset, its backoff stored, its job held or let go. */
  async noteRun(scheduler: Scheduler | null, job: BackoffJob, runs: readonly ActionRun[]): Promise<void> {
    const rule = this.#options.rule;
    if (!rule || runs.length === 0) return;
    const id = job.associationId;
    const previous = this.#backoffs.get(id) ?? null;
    const next = nextBackoff(previous, backoffVerdict(runs.map((r) => r.result)), job.periodMs, Date.now(), rule);
    if (next === previous) return;
    this.#writes++;
    try {
      await saveAssociationBackoff(this.#options.store, id, next);
    } catch (error) {
      this.#options.report(new Error(`agent: the backoff of ${job.name} could not be stored: ${messageOf(error)}`));
    }
    if (next) this.#backoffs.set(id, { associationId: id, ...next });
    else this.#backoffs.delete(id);
    scheduler?.hold(job.key, next?.backoffUntil ? this.#options.clockOf(next.backoffUntil) : 0);
    if (next?.backoffUntil) this.#tell(id, job.name, next, null);
    else if (!next && previous?.backoffUntil) this.#tell(id, job.name, null, 'success');
  }

  /** Scale-out: the association's state in the shared store before a slot runs (null when turned off or unreadable). */
  async readSlot(associationId: number): Promise<StoredBackoff | null> {
    return this.#options.rule ? await readAssociationBackoff(this.#options.store, associationId).catch(() => null) : null;
  }

  /** Scale-out: the rule after a slot's run, on the state in the shared store (the next slot may be another agent's). */
  async noteSlot(associationId: number, name: string, runs: readonly ActionRun[], previous: StoredBackoff | null): Promise<void> {
    const rule = this.#options.rule;
    if (!rule || runs.length === 0) return;
    try {
      const periodMs = (await readSamplePeriodS(this.#options.store, associationId)) * 1000;
      if (!(periodMs > 0)) return; // deleted meanwhile
      const next = nextBackoff(previous, backoffVerdict(runs.map((r) => r.result)), periodMs, Date.now(), rule);
      if (next === previous) return;
      await saveAssociationBackoff(this.#options.store, associationId, next);
      if (next?.backoffUntil) this.#tell(associationId, name, next, null);
      else if (!next && previous?.backoffUntil) this.#tell(associationId, name, null, 'success');
    } catch (error) {
      this.#options.report(new Error(`agent: the backoff of ${name} could not be stored: ${messageOf(error)}`));
    }
  }

  #tell(associationId: number, name: string, state: BackoffTail | null, restoredBy: 'success' | 'operator' | null): void {
    const until = state?.backoffUntil ?? null;
    this.#options.tell({
      associationId,
      name,
      hits: state?.hits ?? 0,
      limit: state?.lastLimit ?? null,
      backoffMs: until === null ? 0 : Math.max(0, until - Date.now()),
      until,
      restoredBy,
    });
  }
}
