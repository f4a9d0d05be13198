// Listing the run records of an agent, filtered and paged, for the driverbox extension API's
// runs (host/api/driverbox/).
import { runFromDb, type RunDbRow, type RunRow } from './runs.js';
import type { Store } from '../store.js';

export interface RunFilters {
  agentId: number;
  deviceId?: number;
  outcome?: 'success' | 'failure';
  /** The driver's name as recorded (the custom driver's name, or the file's for CLI reports). */
  driverName?: string;
}

export interface RunListQuery extends RunFilters {
  /** Failed runs before successful ones, each newest first; else newest first. */
  failuresFirst?: boolean;
  limit: number;
  offset: number;
  /**
   * Keyset paging: only the runs after this one in the list's order (its sort key, so a run
   * recorded or pruned meanwhile shifts nothing). `failure` is used with failuresFirst.
   */
  after?: RunListKey;
}

/** Where a run sits in the list's order: its outcome (failures first), started time, id. */
export interface RunListKey {
  failure: boolean;
  started: number;
  id: number;
}

/** The key of a listed run, to page on after it. */
export function runListKey(run: { outcome: string; started: number; id: number }): RunListKey {
  return { failure: run.outcome === 'failure', started: run.started, id: run.id };
}

const FAILURE_RANK = "CASE WHEN outcome = 'failure' THEN 0 ELSE 1 END";

/** The rows after `key` in the order below: newer-first by (started, id), after failures first by rank. */
function afterKey(key: RunListKey, failuresFirst: boolean): { sql: string; args: unknown[] } {
  const newer = '(started < ? OR (started = ? AND id < ?))';
  if (!failuresFirst) return { sql: newer, args: [key.started, key.started, key.id] };
  const rank = key.failure ? 0 : 1;
  return { sql: `(${FAILURE_RANK} > ? OR (${FAILURE_RANK} = ? AND ${newer}))`, args: [rank, rank, key.started, key.started, key.id] };
}

function where(filters: RunFilters): { sql: string; args: unknown[] } {
  const clauses = ['agent_id = ?'];
  const args: unknown[] = [filters.agentId];
  if (filters.deviceId !== undefined) {
    clauses.push('device_id = ?');
    args.push(filters.deviceId);
  }
  if (filters.outcome !== undefined) {
    clauses.push('outcome = ?');
    args.push(filters.outcome);
  }
  if (filters.driverName !== undefined) {
    clauses.push('driver_name = ?');
    args.push(filters.driverName);
  }
  return { sql: clauses.join(' AND '), args };
}

export async function listRuns(store: Store, query: RunListQuery): Promise<RunRow[]> {
  const filters = where(query);
  const after = query.after ? afterKey(query.after, query.failuresFirst === true) : null;
  const sql = after ? `${filters.sql} AND ${after.sql}` : filters.sql;
  const args = after ? [...filters.args, ...after.args] : filters.args;
  const order = `${query.failuresFirst ? `${FAILURE_RANK}, ` : ''}started DESC, id DESC`;
  const rows = await store.statement<unknown[], RunDbRow>(`SELECT * FROM runs WHERE ${sql} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, query.limit, query.offset);
  return rows.map(runFromDb);
}

export async function countRuns(store: Store, filters: RunFilters): Promise<number> {
  const { sql, args } = where(filters);
  const row = await store.statement<unknown[], { n: number | string }>(`SELECT COUNT(*) AS n FROM runs WHERE ${sql}`).get(...args);
  return Number(row?.n ?? 0);
}

/** The names of the drivers with runs of this agent, for a filter. */
export async function runDriverNames(store: Store, agentId: number): Promise<string[]> {
  const rows = await store
    .statement<[number], { driver_name: string }>("SELECT DISTINCT driver_name FROM runs WHERE agent_id = ? AND driver_name IS NOT NULL ORDER BY driver_name")
    .all(agentId);
  return rows.map((r) => r.driver_name);
}
