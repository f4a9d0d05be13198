// Where an association's backoff after repeated limit hits is kept (rule: host/agent/association-backoff.ts),
// so that an agent restarted keeps spacing out a driver that keeps hitting its limits.
import type { LimitName } from '../../contract/run-result.js';
import type { Store } from '../store.js';

export interface StoredBackoff {
  associationId: number;
  hits: number;
  lastLimit: LimitName;
  /** Wall-clock ms; null while the hits are below the threshold. */
  backoffUntil: number | null;
}

interface BackoffDbRow {
  association_id: number;
  limit_hits: number;
  last_limit: LimitName;
  backoff_until: number | string | null;
}

const fromRow = (row: BackoffDbRow): StoredBackoff => ({
  associationId: Number(row.association_id),
  hits: Number(row.limit_hits),
  lastLimit: row.last_limit,
  backoffUntil: row.backoff_until === null ? null : Number(row.backoff_until),
});

/** The association's backoff, or null when it has no limit hit counted. */
export async function readAssociationBackoff(store: Store, associationId: number): Promise<StoredBackoff | null> {
  const row = await store
    .statement<[number], BackoffDbRow>('SELECT association_id, limit_hits, last_limit, backoff_until FROM association_backoff WHERE association_id = ?')
    .get(associationId);
  return row ? fromRow(row) : null;
}

/** The backoffs of an agent's associations, by association id. */
export async function listAssociationBackoffs(store: Store, agentId: number): Promise<Map<number, StoredBackoff>> {
  const rows = await store
    .statement<[number], BackoffDbRow>(
      `SELECT b.association_id, b.limit_hits, b.last_limit, b.backoff_until FROM association_backoff b
       JOIN custom_driver_associations a ON a.id = b.association_id WHERE a.agent_id = ?`,
    )
    .all(agentId);
  return new Map(rows.map((row) => [Number(row.association_id), fromRow(row)]));
}

/** Writes the association's state (null: deletes it). Nothing happens for an association deleted meanwhile. */
export async function saveAssociationBackoff(store: Store, associationId: number, state: Omit<StoredBackoff, 'associationId'> | null): Promise<void> {
  if (!state) {
    await store.statement('DELETE FROM association_backoff WHERE association_id = ?').run(associationId);
    return;
  }
  await store.transaction(async () => {
    const exists = await store.statement<[number], { id: number }>('SELECT id FROM custom_driver_associations WHERE id = ?').get(associationId);
    if (!exists) return;
    const now = Date.now();
    const changed = await store
      .statement('UPDATE association_backoff SET limit_hits = ?, last_limit = ?, backoff_until = ?, update_time = ? WHERE association_id = ?')
      .run(state.hits, state.lastLimit, state.backoffUntil, now, associationId);
    if (changed.changes === 0) {
      await store
        .statement('INSERT INTO association_backoff (association_id, limit_hits, last_limit, backoff_until, update_time) VALUES (?, ?, ?, ?, ?)')
        .run(associationId, state.hits, state.lastLimit, state.backoffUntil, now);
    }
  });
}

/** Is the association backing off (the API's DISABLED, "disabled due to failure")? */
export async function isBackingOff(store: Store, associationId: number): Promise<boolean> {
  const row = await store
    .statement<[number], { n: number }>('SELECT 1 AS n FROM association_backoff WHERE association_id = ? AND backoff_until IS NOT NULL')
    .get(associationId);
  return row !== undefined;
}

/** The association's sample period, s; 0 when it is gone. */
export async function readSamplePeriodS(store: Store, associationId: number): Promise<number> {
  const row = await store.statement<[number], { sample_period: number }>('SELECT sample_period FROM custom_driver_associations WHERE id = ?').get(associationId);
  return row ? Number(row.sample_period) : 0;
}
