// A variable's history: the samples its writes kept (variable_history), read by time window, and
// how long they are kept (the retention bound in the meta table). Samples are written with the
// variable (variables.ts); on PostgreSQL whole days are dropped (history-partitions.ts).
import { DAY_MS, dropHistoryBefore } from '../db/history-partitions.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export interface VariableSample {
  timestamp: number;
  value: string | null;
}

/** The samples of a variable with from <= timestamp <= to, oldest first. */
export async function variableHistory(store: Store, variableId: number, from: number, to: number): Promise<VariableSample[]> {
  return await store
    .statement<[number, number, number], VariableSample>(
      'SELECT timestamp, value FROM variable_history WHERE variable_id = ? AND timestamp >= ? AND timestamp <= ? ORDER BY timestamp, rowid',
    )
    .all(variableId, from, to);
}

/**
 * variableHistory, with the Monitoring API's checks inside the query: samples only while the
 * variable is this agent's (and, deviceId given, this device's, the device the agent's; null: an
 * agent variable) and the agent allows API access. One statement; an empty answer does not say why.
 */
export async function apiVisibleVariableHistory(
  store: Store,
  owner: { agentId: number; deviceId: number | null },
  variableId: number,
  from: number,
  to: number,
): Promise<VariableSample[]> {
  const owned =
    owner.deviceId === null
      ? `SELECT 1 FROM variables v JOIN agents a ON a.id = v.agent_id
         WHERE v.id = ? AND v.agent_id = ? AND v.device_id IS NULL AND a.api_enabled = 1`
      : `SELECT 1 FROM variables v JOIN agents a ON a.id = v.agent_id JOIN devices d ON d.id = v.device_id AND d.agent_id = v.agent_id
         WHERE v.id = ? AND v.agent_id = ? AND v.device_id = ? AND a.api_enabled = 1`;
  const params = owner.deviceId === null ? [variableId, owner.agentId] : [variableId, owner.agentId, owner.deviceId];
  return await store
    .statement<unknown[], VariableSample>(
      `SELECT timestamp, value FROM variable_history WHERE variable_id = ? AND timestamp >= ? AND timestamp <= ?
       AND EXISTS (${owned}) ORDER BY timestamp, rowid`,
    )
    .all(variableId, from, to, ...params);
}

// ---- retention -------------------------------------------------------------------------

const RETENTION_KEY = 'variable_history_retention_days';

/**
 * Bounds variable history to the last `days` days (null: keep everything, the default).
 * Older samples of a variable are dropped when it is next written; pruneVariableHistory()
 * drops them all at once.
 */
export async function setHistoryRetention(store: Store, days: number | null): Promise<void> {
  if (days === null) {
    await store.statement('DELETE FROM meta WHERE key = ?').run(RETENTION_KEY);
    return;
  }
  if (!Number.isFinite(days) || days <= 0) throw new StoreError('INVALID', `history retention must be a positive number of days (got ${days})`);
  await store.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(RETENTION_KEY, String(days));
}

export async function historyRetentionDays(store: Store): Promise<number | null> {
  const row = await store.statement<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(RETENTION_KEY);
  return row ? Number(row.value) : null;
}

/** The history retention bound in ms, or null for none. */
export async function historyRetentionMs(store: Store): Promise<number | null> {
  const days = await historyRetentionDays(store);
  return days === null ? null : days * DAY_MS;
}

/**
 * The bound writeVariables deletes a variable's older samples by: SQLite's only. PostgreSQL drops
 * whole days instead (history-partitions.ts), so a write there needs no read of the bound.
 */
export async function writeRetentionMs(store: Store): Promise<number | null> {
  return store.dialect === 'sqlite' ? await historyRetentionMs(store) : null;
}

/** Drops every sample older than the retention bound; answers how many. */
export async function pruneVariableHistory(store: Store): Promise<number> {
  const retention = await historyRetentionMs(store);
  if (retention === null) return 0;
  if (store.dialect === 'postgres') return dropHistoryBefore(store, store.now() - retention);
  return (await store.statement('DELETE FROM variable_history WHERE timestamp < ?').run(store.now() - retention)).changes;
}
