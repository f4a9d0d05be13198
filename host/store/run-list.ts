// Listing the run records of an agent, filtered and paged, for the driverbox extension API's
// runs (host/api/driverbox/).
import { runFromDb, type RunDbRow, type RunRow } from './runs.js';
import type { Store } from './store.js';

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
  const { sql, args } = where(query);
  const order = `${query.failuresFirst ? "CASE WHEN outcome = 'failure' THEN 0 ELSE 1 END, " : ''}started DESC, id DESC`;
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
