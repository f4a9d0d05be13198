// The record of every reported run, failed ones included, with its log, warnings and HTTP
// exchanges: what a run said is kept even when it wrote no variables.
import { parseJsonColumn } from '../db/json-column.js';
import { jsonIntegers } from '../db/sql-json.js';
import type { Store } from '../store.js';
import type { HttpExchange, LimitName, LogMessage, RunResult } from '../../contract/run-result.js';

export interface RunRow {
  id: number;
  agentId: number;
  deviceId: number | null;
  customDriverId: number | null;
  associationId: number | null;
  driverName: string | null;
  action: string;
  started: number;
  elapsedMs: number;
  outcome: 'success' | 'failure';
  errorType: string | null;
  errorMessage: string | null;
  limitExceeded: LimitName | null;
  log: LogMessage[];
  warnings: string[];
  http: HttpExchange[];
  variableCount: number;
  tableCount: number;
}

export interface RunDbRow {
  id: number;
  agent_id: number;
  device_id: number | null;
  custom_driver_id: number | null;
  association_id: number | null;
  driver_name: string | null;
  action: string;
  started: number;
  elapsed_ms: number;
  outcome: 'success' | 'failure';
  error_type: string | null;
  error_message: string | null;
  limit_exceeded: LimitName | null;
  log: string;
  warnings: string;
  http: string;
  variable_count: number;
  table_count: number;
}

export function runFromDb(row: RunDbRow): RunRow {
  return {
    id: row.id,
    agentId: row.agent_id,
    deviceId: row.device_id,
    customDriverId: row.custom_driver_id,
    associationId: row.association_id,
    driverName: row.driver_name,
    action: row.action,
    started: row.started,
    elapsedMs: row.elapsed_ms,
    outcome: row.outcome,
    errorType: row.error_type,
    errorMessage: row.error_message,
    limitExceeded: row.limit_exceeded,
    log: parseJsonColumn(row.log, []),
    warnings: parseJsonColumn(row.warnings, []),
    http: parseJsonColumn(row.http, []),
    variableCount: row.variable_count,
    tableCount: row.table_count,
  };
}

export interface NewRun {
  agentId: number;
  deviceId: number | null;
  customDriverId?: number | null;
  associationId?: number | null;
  driverName?: string | null;
  /** When the run ended (the store's now when reported); started is this minus its duration. */
  ended: number;
  result: RunResult;
  /** The result's warnings plus any the store added while writing it. */
  warnings: string[];
  variableCount: number;
  tableCount: number;
}

export const RUN_FIELDS = `agent_id, device_id, custom_driver_id, association_id, driver_name, action, started, elapsed_ms,
  outcome, error_type, error_message, limit_exceeded, log, warnings, http, variable_count, table_count`;

/** Characters of an exchange's URL (or error message) a run's record keeps. */
export const STORED_EXCHANGE_TEXT_CHARS = 2048;

/**
 * A run's exchanges as its record keeps them: a URL or error message past
 * STORED_EXCHANGE_TEXT_CHARS is cut (a driver's 1,000 requests of 1 MB paths would otherwise be
 * a 1 GB record); answers the warning that says so, or null.
 */
export function storedExchanges(http: readonly HttpExchange[]): { http: HttpExchange[]; warning: string | null } {
  let cut = 0;
  const text = (value: string): string => {
    if (value.length <= STORED_EXCHANGE_TEXT_CHARS) return value;
    cut += 1;
    return `${value.slice(0, STORED_EXCHANGE_TEXT_CHARS)}…(${value.length - STORED_EXCHANGE_TEXT_CHARS} more characters not stored)`;
  };
  const kept = http.map((exchange) => {
    const url = text(exchange.url);
    const errorMessage = exchange.errorMessage === null ? null : text(exchange.errorMessage);
    return url === exchange.url && errorMessage === exchange.errorMessage ? exchange : { ...exchange, url, errorMessage };
  });
  const warning = cut === 0 ? null : `${cut} HTTP exchange URL(s) or error message(s) longer than ${STORED_EXCHANGE_TEXT_CHARS} characters were cut in the stored run record`;
  return { http: kept, warning };
}

export function runValues(run: NewRun): unknown[] {
  const { result } = run;
  const elapsed = Math.max(0, Math.round(result.durationMs));
  const exchanges = storedExchanges(result.http ?? []);
  const warnings = exchanges.warning ? [...run.warnings, exchanges.warning] : run.warnings;
  return [
    run.agentId,
    run.deviceId,
    run.customDriverId ?? null,
    run.associationId ?? null,
    run.driverName ?? null,
    result.action,
    Math.round(run.ended - elapsed),
    elapsed,
    result.status,
    result.errorType,
    result.message,
    result.limitExceeded,
    JSON.stringify(result.logs),
    JSON.stringify(warnings),
    JSON.stringify(exchanges.http),
    run.variableCount,
    run.tableCount,
  ];
}

export async function insertRun(store: Store, run: NewRun): Promise<number> {
  return store.statement(`INSERT INTO runs (${RUN_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).insert(...runValues(run));
}

/**
 * Inserts a scheduled slot's run record whole, unless the slot already has a result (UNIQUE
 * (association_id, slot_ms)): answers its id, or null then (the first finisher wins, a second
 * is refused). One statement where a claim of a pending row then its update took two;
 * writeRunResult makes it in the same transaction as the run's variables, so a refused slot
 * rolls them back too. Two racing on PostgreSQL wait for each other, and the second finds the
 * first's row.
 */
export async function insertSlotRun(store: Store, run: NewRun & { associationId: number }, slot: { slotMs: number; runner?: string | null }): Promise<number | null> {
  const row = await store
    .statement<unknown[], { id: number }>(
      `INSERT INTO runs (${RUN_FIELDS}, slot_ms, runner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (association_id, slot_ms) DO NOTHING RETURNING id`,
    )
    .get(...runValues(run), Math.round(slot.slotMs), slot.runner ?? null);
  return row ? Number(row.id) : null;
}

/**
 * A run's record written before its variables or tables (a scheduled slot's), once a bound bit
 * while writing them: its warnings get `added`, its counts what was stored. Rare: two statements.
 */
export async function appendRunWarnings(store: Store, runId: number, added: readonly string[], counts: { variableCount: number; tableCount: number }): Promise<void> {
  const row = await store.statement<[number], { warnings: string }>('SELECT warnings FROM runs WHERE id = ?').get(runId);
  const warnings = [...parseJsonColumn<string[]>(row?.warnings ?? '[]', []), ...added];
  await store
    .statement<[string, number, number, number]>('UPDATE runs SET warnings = ?, variable_count = ?, table_count = ? WHERE id = ?')
    .run(JSON.stringify(warnings), counts.variableCount, counts.tableCount, runId);
}

/** The slot a run was for (scale-out), or null. */
export async function runSlotOf(store: Store, runId: number): Promise<{ slotMs: number | null; runner: string | null } | undefined> {
  const row = await store.statement<[number], { slot_ms: number | null; runner: string | null }>('SELECT slot_ms, runner FROM runs WHERE id = ?').get(runId);
  return row ? { slotMs: row.slot_ms, runner: row.runner } : undefined;
}

export async function getRun(store: Store, id: number): Promise<RunRow | undefined> {
  const row = await store.statement<[number], RunDbRow>('SELECT * FROM runs WHERE id = ?').get(id);
  return row ? runFromDb(row) : undefined;
}

/** A device's runs, newest first. */
export async function listDeviceRuns(store: Store, deviceId: number, limit = 100): Promise<RunRow[]> {
  return (await store
    .statement<[number, number], RunDbRow>('SELECT * FROM runs WHERE device_id = ? ORDER BY started DESC, id DESC LIMIT ?')
    .all(deviceId, limit))
    .map(runFromDb);
}

/**
 * pruneDeviceRuns for many devices in one statement (an agent's batched prune: DeviceRunPruner);
 * answers how many runs went.
 */
export async function pruneRunsOfDevices(store: Store, deviceIds: readonly number[], keep: number): Promise<number> {
  if (deviceIds.length === 0) return 0;
  return (await store
    .statement<[string, number]>(
      `DELETE FROM runs WHERE id IN (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY device_id ORDER BY started DESC, id DESC) AS newer
           FROM runs WHERE device_id IN ${jsonIntegers(store.dialect)}
         ) ranked WHERE newer > ?)`,
    )
    .run(JSON.stringify(deviceIds), keep)).changes;
}

/**
 * Keeps a device's newest `keep` runs and deletes the older ones; answers how many went. An agent
 * polling every few seconds would otherwise grow the table without end.
 */
export async function pruneDeviceRuns(store: Store, deviceId: number, keep: number): Promise<number> {
  return (await store
    .statement<[number, number, number]>(
      `DELETE FROM runs WHERE device_id = ? AND id IN (
         SELECT id FROM runs WHERE device_id = ? ORDER BY started DESC, id DESC LIMIT 9007199254740991 OFFSET ?)`,
    )
    .run(deviceId, deviceId, keep)).changes;
}
