// The latest finished run of each of some associations, with the agent process that ran it: the
// schedule page's "last run" in scale-out mode, where any agent of the cluster may have run it.
// Only the few columns the page shows are read (not the log or the exchanges).
import type { Store } from '../store.js';

export interface LastRun {
  id: number;
  associationId: number;
  action: string;
  started: number;
  elapsedMs: number;
  outcome: 'success' | 'failure';
  errorType: string | null;
  /** The scale-out run's agent process (RunWorker name); null for a run of the embedded scheduler. */
  runner: string | null;
}

/** By association id; one without a finished run is absent. A slot still running (pending) is not a last run. */
export async function lastRunsOf(store: Store, agentId: number, associationIds: readonly number[]): Promise<Map<number, LastRun>> {
  const out = new Map<number, LastRun>();
  if (associationIds.length === 0) return out;
  const marks = associationIds.map(() => '?').join(', ');
  const rows = await store
    .statement<unknown[], { id: number; association_id: number; action: string; started: number; elapsed_ms: number; outcome: 'success' | 'failure'; error_type: string | null; runner: string | null }>(
      `SELECT id, association_id, action, started, elapsed_ms, outcome, error_type, runner FROM runs
        WHERE id IN (SELECT MAX(id) FROM runs WHERE agent_id = ? AND association_id IN (${marks}) AND outcome <> 'pending' GROUP BY association_id)`,
    )
    .all(agentId, ...associationIds);
  for (const r of rows) {
    out.set(Number(r.association_id), { id: Number(r.id), associationId: Number(r.association_id), action: r.action, started: Number(r.started), elapsedMs: Number(r.elapsed_ms), outcome: r.outcome, errorType: r.error_type, runner: r.runner });
  }
  return out;
}
