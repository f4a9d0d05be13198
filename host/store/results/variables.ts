// Variables: a device's (written by driver runs) or an agent's own (device_id NULL). A variable
// is identified by its path within its device or agent, so its id stays the same across runs;
// every write keeps the value it replaces as previous_value and, when the variable has
// history, adds a sample to variable_history.
import { ensureHistoryPartitions } from '../db/history-partitions.js';
import { StoreError } from '../../contract/errors.js';
import { roomFor } from './variable-bound.js';
import { postgresText } from '../db/sql-statement.js';
import type { Store } from '../store.js';
import { writeRetentionMs } from './variable-history.js';

export interface VariableRow {
  id: number;
  agentId: number;
  /** null: an agent variable. */
  deviceId: number | null;
  associationId: number | null;
  path: string;
  label: string | null;
  unit: string | null;
  value: string | null;
  previousValue: string | null;
  /** The driver's D.valueType (STRING, NUMBER…); null for agent variables set without one. */
  valueType: string | null;
  metric: string | null;
  hasHistory: boolean;
  creationTime: number;
  valueUpdateTime: number | null;
}

interface VariableDbRow {
  id: number;
  agent_id: number;
  device_id: number | null;
  association_id: number | null;
  path: string;
  label: string | null;
  unit: string | null;
  value: string | null;
  previous_value: string | null;
  value_type: string | null;
  metric: string | null;
  has_history: number;
  creation_time: number;
  value_update_time: number | null;
}

function variableFromDb(row: VariableDbRow): VariableRow {
  return {
    id: row.id,
    agentId: row.agent_id,
    deviceId: row.device_id,
    associationId: row.association_id,
    path: row.path,
    label: row.label,
    unit: row.unit,
    value: row.value,
    previousValue: row.previous_value,
    valueType: row.value_type,
    metric: row.metric,
    hasHistory: row.has_history === 1,
    creationTime: row.creation_time,
    valueUpdateTime: row.value_update_time,
  };
}

/** What one write of a variable says. */
export interface VariableWrite {
  path: string;
  label?: string | null;
  unit?: string | null;
  value: string | null;
  valueType?: string | null;
  metric?: string | null;
  /** Default true: a sample is kept per write. */
  hasHistory?: boolean;
}

/** Whose variable it is: a device's (with the association whose run wrote it) or the agent's. */
export interface VariableOwner {
  agentId: number;
  deviceId: number | null;
  associationId?: number | null;
}

/**
 * Creates or updates one variable and records its history sample, at time `at`. Callers that
 * write several use writeVariables (one statement per kind for them all, not per variable).
 */
export async function writeVariable(
  store: Store,
  owner: VariableOwner,
  write: VariableWrite,
  at: number = store.now(),
  retention?: number | null,
): Promise<number> {
  return (await writeVariables(store, owner, [write], at, retention))[0]!;
}

/** Variables per statement: a batch of 100 has at most 12 × 100 parameters (both databases take far more). */
const BATCH = 100;

/**
 * A bound on the device's variables for writeVariables: new paths past `max` are not written
 * (no row, no sample), their paths pushed to `refused`; existing ones are always written.
 */
export interface VariableBound {
  max: number | null;
  refused: string[];
}

/**
 * Creates or updates the owner's variables and records their history samples, at time `at`;
 * answers their ids in the order given. The same as writeVariable for each in turn, in a few
 * statements per batch of variables instead of three per variable: on PostgreSQL each
 * statement is a round trip, which made a 50-variable result ~150 of them. A path given twice
 * is written twice, in order (its second write in a later batch). Callers wrap this in a
 * transaction and read the retention bound once (writeRunResult does). With a bound, the ids
 * are those of the writes made (refused ones have none).
 */
export async function writeVariables(
  store: Store,
  owner: VariableOwner,
  writes: readonly VariableWrite[],
  at: number = store.now(),
  retention?: number | null,
  bound?: VariableBound,
): Promise<number[]> {
  if (retention === undefined) retention = await writeRetentionMs(store);
  if (writes.some((w) => w.hasHistory !== false)) await ensureHistoryPartitions(store, at);
  const ids: number[] = [];
  let batch: VariableWrite[] = [];
  let paths = new Set<string>();
  for (const write of writes) {
    const key = pathKey(store, write.path);
    if (batch.length === BATCH || paths.has(key)) {
      ids.push(...await writeBatch(store, owner, batch, at, retention, bound));
      batch = [];
      paths = new Set();
    }
    batch.push(write);
    paths.add(key);
  }
  if (batch.length) ids.push(...await writeBatch(store, owner, batch, at, retention, bound));
  return ids;
}

/**
 * The new paths of a batch the bound admits: all when unbounded or an agent's; else as many, in
 * order, as the device has room for, the others pushed to bound.refused. The device's count is
 * read only when the batch has new paths (a steady device's runs have none).
 */
async function admitNew(store: Store, owner: VariableOwner, fresh: VariableWrite[], bound?: VariableBound): Promise<VariableWrite[]> {
  if (!bound || bound.max === null || owner.deviceId === null || fresh.length === 0) return fresh;
  const has = (await store.statement<[number], { n: number }>('SELECT count(*) AS n FROM variables WHERE device_id = ?').get(owner.deviceId))!.n;
  const room = roomFor(bound.max, Number(has), fresh.length);
  for (const w of fresh.slice(room)) bound.refused.push(w.path);
  return fresh.slice(0, room);
}

const list = (n: number, item: string) => Array.from({ length: n }, () => item).join(', ');

/** A path as the database gives it back: PostgreSQL keeps a NUL as U+FFFD (sql-statement.ts). */
function pathKey(store: Store, path: string): string {
  return store.dialect === 'postgres' ? postgresText(path) : path;
}

/** One batch of writeVariables: its paths are distinct. */
async function writeBatch(store: Store, owner: VariableOwner, given: VariableWrite[], at: number, retention: number | null, bound?: VariableBound): Promise<number[]> {
  const paths = given.map((w) => w.path);
  const existing =
    owner.deviceId === null
      ? await store
          .statement<unknown[], { id: number; path: string }>(
            `SELECT id, path FROM variables WHERE agent_id = ? AND device_id IS NULL AND path IN (${list(paths.length, '?')})`,
          )
          .all(owner.agentId, ...paths)
      : await store
          .statement<unknown[], { id: number; path: string }>(`SELECT id, path FROM variables WHERE device_id = ? AND path IN (${list(paths.length, '?')})`)
          .all(owner.deviceId, ...paths);
  const idOf = new Map(existing.map((row) => [row.path, Number(row.id)]));
  const has = (w: VariableWrite) => idOf.has(pathKey(store, w.path));
  const fresh = given.filter((w) => !has(w));
  const admitted = await admitNew(store, owner, fresh, bound);
  const refused = new Set(fresh.slice(admitted.length));
  const writes = refused.size ? given.filter((w) => !refused.has(w)) : given;
  const associationId = owner.associationId ?? null;
  const hasHistory = (w: VariableWrite) => (w.hasHistory === false ? 0 : 1);
  const updates = writes.filter(has);
  if (updates.length) {
    // The value replaced becomes previous_value (both databases read the row as it was before
    // the UPDATE on the right of SET). The association that wrote last owns the variable:
    // deleting it deletes what it reports. VALUES columns are column1… on both databases; the
    // casts give PostgreSQL the types its parameters would otherwise lack.
    const params: unknown[] = [associationId, at];
    for (const w of updates) params.push(idOf.get(pathKey(store, w.path))!, w.label ?? null, w.unit ?? null, w.value, w.valueType ?? null, w.metric ?? null, hasHistory(w));
    await store
      .statement(
        `UPDATE variables SET association_id = ?, value_update_time = ?, previous_value = variables.value,
           label = v.column2, unit = v.column3, value = v.column4, value_type = v.column5, metric = v.column6, has_history = v.column7
         FROM (VALUES ${list(updates.length, '(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT))')}) AS v
         WHERE variables.id = v.column1`,
      )
      .run(...params);
  }
  const inserts = writes.filter((w) => !has(w));
  if (inserts.length) {
    const params: unknown[] = [];
    for (const w of inserts) {
      params.push(owner.agentId, owner.deviceId, associationId, w.path, w.label ?? null, w.unit ?? null, w.value, w.valueType ?? null, w.metric ?? null, hasHistory(w), at, at);
    }
    const rows = await store
      .statement<unknown[], { id: number; path: string }>(
        `INSERT INTO variables (agent_id, device_id, association_id, path, label, unit, value, previous_value, value_type,
           metric, has_history, creation_time, value_update_time)
         VALUES ${list(inserts.length, '(?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)')} RETURNING id, path`,
      )
      .all(...params);
    for (const row of rows) idOf.set(row.path, Number(row.id));
  }
  const ids = writes.map((w) => idOf.get(pathKey(store, w.path))!);
  const sampled = writes.flatMap((w, i) => (hasHistory(w) ? [[ids[i]!, w.value] as const] : []));
  if (sampled.length) {
    await store
      .statement(`INSERT INTO variable_history (variable_id, timestamp, value) VALUES ${list(sampled.length, '(?, ?, ?)')}`)
      .run(...sampled.flatMap(([id, value]) => [id, at, value]));
    // Postgres drops whole days instead (history-partitions.ts): no delete per write.
    if (retention !== null && store.dialect === 'sqlite') {
      await store
        .statement(`DELETE FROM variable_history WHERE timestamp < ? AND variable_id IN (${list(sampled.length, '?')})`)
        .run(at - retention, ...sampled.map(([id]) => id));
    }
  }
  return ids;
}

/**
 * Sets one of the agent's own variables (device_id NULL), e.g. figures an agent reports
 * about itself. Answers the variable as stored.
 */
export async function setAgentVariable(store: Store, agentId: number, write: VariableWrite): Promise<VariableRow> {
  if (!write.path) throw new StoreError('INVALID', 'an agent variable needs a non-empty path');
  return await store.transaction(async () => {
    const id = await writeVariable(store, { agentId, deviceId: null }, write);
    return (await getVariable(store, id))!;
  });
}

export async function getVariable(store: Store, id: number): Promise<VariableRow | undefined> {
  const row = await store.statement<[number], VariableDbRow>('SELECT * FROM variables WHERE id = ?').get(id);
  return row ? variableFromDb(row) : undefined;
}

// ---- lists and counts ------------------------------------------------------------------

/** The sort_by values of the API, each with the column it orders by. */
export const VARIABLE_SORT_COLUMNS = {
  path: 'path',
  id: 'id',
  value: 'value',
  label: 'label',
  value_update_time: 'value_update_time',
  creation_time: 'creation_time',
  device_id: 'device_id',
} as const;

export type VariableSortBy = keyof typeof VARIABLE_SORT_COLUMNS;

/**
 * Filters of the variable lists and counts. Each is an exact, case-sensitive match: the
 * reference says "Allows filtering by `x`" here, and spells out "containing … (case
 * insensitive)" where it means a substring match (listAgents' display_name).
 */
export interface VariableFilters {
  value?: string;
  path?: string;
  hasHistory?: boolean;
  metric?: string;
}

export interface VariableListQuery extends VariableFilters {
  sortBy?: VariableSortBy;
  direction?: 'asc' | 'desc';
  limit: number;
  offset: number;
  /**
   * Rows only while the scope's agent allows API access (api_enabled) and, for a device scope,
   * the device is the agent's: the Monitoring API's access checks inside the query, so a page it
   * serves is one statement. An empty answer then does not say why (the API looks only then).
   */
  apiVisible?: boolean;
}

/** Which variables a list covers. */
export type VariableScope =
  | { kind: 'device'; agentId: number; deviceId: number }
  | { kind: 'agent-devices'; agentId: number }
  | { kind: 'agent'; agentId: number };

/** The agent allows API access: an uncorrelated EXISTS, evaluated once per statement on both databases. */
const AGENT_API_ENABLED = 'EXISTS (SELECT 1 FROM agents a WHERE a.id = ? AND a.api_enabled = 1)';
const DEVICE_OF_AGENT = 'EXISTS (SELECT 1 FROM devices d WHERE d.id = ? AND d.agent_id = ?)';

function whereOf(scope: VariableScope, filters: VariableFilters, apiVisible = false): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (scope.kind === 'device') {
    clauses.push('agent_id = ?', 'device_id = ?');
    params.push(scope.agentId, scope.deviceId);
  } else if (scope.kind === 'agent-devices') {
    clauses.push('agent_id = ?', 'device_id IS NOT NULL');
    params.push(scope.agentId);
  } else {
    clauses.push('agent_id = ?', 'device_id IS NULL');
    params.push(scope.agentId);
  }
  if (filters.value !== undefined) {
    clauses.push('value = ?');
    params.push(filters.value);
  }
  if (filters.path !== undefined) {
    clauses.push('path = ?');
    params.push(filters.path);
  }
  if (filters.hasHistory !== undefined) {
    clauses.push('has_history = ?');
    params.push(filters.hasHistory ? 1 : 0);
  }
  if (filters.metric !== undefined) {
    clauses.push('metric = ?');
    params.push(filters.metric);
  }
  if (apiVisible) {
    clauses.push(AGENT_API_ENABLED);
    params.push(scope.agentId);
    if (scope.kind === 'device') {
      clauses.push(DEVICE_OF_AGENT);
      params.push(scope.deviceId, scope.agentId);
    }
  }
  return { sql: clauses.join(' AND '), params };
}

/**
 * A page of variables. Ties (and NULLs, which SQLite puts first in ascending order) are
 * broken by id, so pages never overlap or skip. Values are compared as text.
 */
export async function listVariables(store: Store, scope: VariableScope, query: VariableListQuery): Promise<VariableRow[]> {
  const where = whereOf(scope, query, query.apiVisible);
  const column = VARIABLE_SORT_COLUMNS[query.sortBy ?? 'id'];
  if (!column) throw new StoreError('INVALID', `cannot sort variables by "${query.sortBy}"`);
  const direction = query.direction === 'desc' ? 'DESC' : 'ASC';
  const order = column === 'id' ? `id ${direction}` : `${column} ${direction}, id ${direction}`;
  // A deep page in an index's order (id, path) walks the index to its offset and reads only the
  // rows it answers: PostgreSQL otherwise fetches every skipped row (page 4,999 of 500,000
  // variables: 63 → 29 ms; SQLite 25 → 20 ms). Shallow pages and the other sorts, which sort
  // the agent's variables anyway, are read directly (there the subquery costs more than it saves).
  const deferred = query.offset >= DEFERRED_OFFSET && (column === 'id' || column === 'path');
  const sql = deferred
    ? `SELECT * FROM variables WHERE id IN (SELECT id FROM variables WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?) ORDER BY ${order}`
    : `SELECT * FROM variables WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;
  return (await store.statement<unknown[], VariableDbRow>(sql).all(...where.params, query.limit, query.offset)).map(variableFromDb);
}

/** From this offset on, a page in index order is read through its ids first (listVariables). */
const DEFERRED_OFFSET = 1000;

export async function countVariables(store: Store, scope: VariableScope, filters: VariableFilters): Promise<number> {
  const where = whereOf(scope, filters);
  return (await store.statement<unknown[], { n: number }>(`SELECT count(*) AS n FROM variables WHERE ${where.sql}`).get(...where.params))!.n;
}
