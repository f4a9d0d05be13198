// Associations the system disables and the user re-enables (reEnableCustomDriverAssociations).
// A DISABLED association records why: FAILURE (it may recover) or UNRECOVERABLE (it cannot as
// things stand, e.g. missing credentials). One disabled by the inventory (enabled: false) has no
// reason: that is configuration, not failure, and re-enabling leaves it to the inventory.
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export type DisabledReason = 'FAILURE' | 'UNRECOVERABLE';

/** Disables an association because of a failure. */
export async function disableAssociation(store: Store, associationId: number, reason: DisabledReason): Promise<void> {
  const info = await store.statement(`UPDATE custom_driver_associations SET status = 'DISABLED', disabled_reason = ? WHERE id = ?`).run(reason, associationId);
  if (info.changes === 0) throw new StoreError('NOT_FOUND', `association ${associationId} not found`);
}

/** Why an association is disabled: null when enabled or disabled by the inventory. */
export async function disabledReason(store: Store, associationId: number): Promise<DisabledReason | null> {
  const row = await store.statement<[number], { disabled_reason: DisabledReason | null }>('SELECT disabled_reason FROM custom_driver_associations WHERE id = ?').get(associationId);
  return row?.disabled_reason ?? null;
}

/**
 * Re-enables the associations disabled by failure (those backing off after repeated limit hits too) (and, with includeUnrecoverable, those
 * found unable to recover) of every agent the caller may use; answers their ids.
 */
export async function reEnableAssociations(store: Store, options: { includeUnrecoverable?: boolean; agentIds?: readonly number[] } = {}): Promise<number[]> {
  const reasons = options.includeUnrecoverable ? ['FAILURE', 'UNRECOVERABLE'] : ['FAILURE'];
  return await store.transaction(async () => {
    const rows = (await store
      .statement<string[], { id: number; agent_id: number }>(
        `SELECT id, agent_id FROM custom_driver_associations WHERE status = 'DISABLED' AND disabled_reason IN (${reasons.map(() => '?').join(', ')}) ORDER BY id`,
      )
      .all(...reasons))
      .filter((r) => !options.agentIds || options.agentIds.includes(r.agent_id));
    const enable = store.statement(`UPDATE custom_driver_associations SET status = 'ENABLED', disabled_reason = NULL WHERE id = ?`);
    for (const r of rows) await enable.run(r.id);
    // Those backing off after repeated limit hits (host/agent/association-backoff.ts) run at their next due time.
    const backingOff = (await store
      .statement<[], { id: number; agent_id: number }>(
        `SELECT a.id, a.agent_id FROM association_backoff b JOIN custom_driver_associations a ON a.id = b.association_id WHERE b.backoff_until IS NOT NULL ORDER BY a.id`,
      )
      .all())
      .filter((r) => !options.agentIds || options.agentIds.includes(Number(r.agent_id)));
    const restore = store.statement('DELETE FROM association_backoff WHERE association_id = ?');
    for (const r of backingOff) await restore.run(r.id);
    return [...new Set([...rows.map((r) => r.id), ...backingOff.map((r) => Number(r.id))])].sort((a, b) => a - b);
  });
}
