// Writing a run's result into the store, in one transaction: the device's variables and their
// history samples, its tables, the run's record and an activity-log entry. A failed run
// changes no variable or table, but its record and log entry are kept like any other.
import { backupBounds } from '../../../runtime/constants.js';
import type { RunResult, VariableRecord } from '../../contract/run-result.js';
import { addActivity } from '../fleet/activity-log.js';
import { markAssociationRun } from '../drivers/associations.js';
import { saveConfiguration } from '../results/configurations.js';
import { getDevice } from '../fleet/devices.js';
import { deviceSecrets, maskFor } from './run-secrets.js';
import { insertRun, insertSlotRun, pruneDeviceRuns, appendRunWarnings } from './runs.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';
import { writeDeviceTable, type TableBound } from '../results/tables.js';
import { duplicateUidWarning } from '../../../runtime/duplicate-uids.js';
import { ensureHistoryPartitions } from '../db/history-partitions.js';
import { writeVariables, type VariableBound } from '../results/variables.js';
import { writeRetentionMs } from '../results/variable-history.js';
import { refusedTablesWarning, refusedVariablesWarning } from '../results/variable-bound.js';
import { distinctStoredPaths, SLOT_STATEMENT_MAX_VARIABLES, writeSlotResultStatement, type SlotVariable } from './slot-result-statement.js';
import { healthWriteOf, recordAssociationHealth } from './association-health.js';

export interface ReportTarget {
  agentId: number;
  deviceId: number;
  customDriverId?: number | null;
  associationId?: number | null;
  /** The driver's name or file, for the activity log. */
  driverName?: string | null;
  /** Who ran it, for the activity log (default "driverbox"). */
  user?: string;
}

export interface WriteRunOptions {
  /** Add a custom_driver_execute entry to the activity log (default true; the agent's scheduled runs skip it). */
  activity?: boolean;
  /**
   * Keep only the device's newest N runs afterwards; null keeps all. Default: the store's
   * bounds.runsPerDevice (100), except for a scheduled run, whose agent prunes in batches.
   */
  keepRunsPerDevice?: number | null;
  /**
   * Secrets the run used besides the device's stored credentials (which are always masked),
   * e.g. credentials given on the command line: masked as *** in everything written.
   */
  secrets?: ReadonlyArray<string | null | undefined>;
  /**
   * The device's stored secrets (deviceSecrets) as the caller read them for the run
   * (readRunDevice): given, they are not read again in the write's transaction.
   */
  deviceSecrets?: readonly string[];
  /**
   * The scheduled slot this result is for (scale-out): at most one result per association and
   * slot is stored; a second one throws DUPLICATE_RUN and writes nothing.
   */
  slot?: { slotMs: number; runner?: string | null };
  /**
   * Scale-out: the write commits only while this signal is not aborted (the run's deadline D,
   * its lost job lock). Checked before the transaction and again just before it commits (on
   * PostgreSQL a slot's result is often one statement: just before it is sent); an aborted one
   * rolls everything back and throws RUN_TOO_LATE. An agent cut off from the store
   * would otherwise land its result long after its job could have gone to another agent.
   */
  until?: AbortSignal;
  /**
   * How late the scheduler started the run after its due time (or its slot), ms: kept in the
   * association's health (association-health.ts) with the result. Left out: null there.
   */
  latenessMs?: number | null;
}

function tooLate(signal: AbortSignal | undefined, what: string): void {
  if (!signal?.aborted) return;
  const reason = signal.reason instanceof Error ? `: ${signal.reason.message}` : '';
  throw new StoreError('RUN_TOO_LATE', `${what} not written: its run ended before the write could commit${reason}`);
}

export interface ReportedRun {
  runId: number;
  /** Ids of the variables the run wrote, in the order reported. */
  variableIds: number[];
  /**
   * Warnings the store added to the run's record (also in it), e.g. new variables refused by
   * the device's bound (StoreBounds.variablesPerDevice): the caller shows them with the run's own.
   */
  warnings: string[];
  /** The configuration the run's backup was stored as (a successful run that reported one). */
  configuration?: { id: number; timestamp: number; changed: boolean };
}

export async function writeRunResult(store: Store, target: ReportTarget, unmasked: RunResult, options: WriteRunOptions = {}): Promise<ReportedRun> {
  return (await writeResult(store, target, unmasked, options, false))!;
}

/**
 * writeRunResult for an association's scheduled run: in the same transaction, marks the
 * association run (last_inspection_time) and writes nothing, answering null, when it is gone
 * (deleted during the run, or with its device). That update locks the association's row, which
 * stands for the device check: a device is deleted only with its associations.
 */
export async function writeScheduledRunResult(store: Store, target: ReportTarget, unmasked: RunResult, options: WriteRunOptions = {}): Promise<ReportedRun | null> {
  return await writeResult(store, target, unmasked, options, true);
}

async function writeResult(store: Store, target: ReportTarget, unmasked: RunResult, options: WriteRunOptions, scheduled: boolean): Promise<ReportedRun | null> {
  checkResult(unmasked);
  if (scheduled && target.associationId == null) throw new StoreError('INVALID', 'a scheduled run\'s result needs its association');
  // A scheduled run's records are pruned by its agent, in batches (device-run-pruner.ts); any
  // other write keeps the store's bound as it goes (API executions, run --report, demo).
  const keepRuns = options.keepRunsPerDevice !== undefined ? options.keepRunsPerDevice : scheduled ? null : store.bounds.runsPerDevice;
  const what = options.slot ? `the result for the slot of ${new Date(options.slot.slotMs).toISOString()}` : 'the result';
  tooLate(options.until, what);
  // Before the transaction: a new day's history partition is made on a connection of its own.
  await ensureHistoryPartitions(store, store.now());
  if (scheduled && options.slot && options.deviceSecrets && store.dialect === 'postgres') {
    const plan = planWrite(target, unmasked, options, options.deviceSecrets, store.now());
    const atOnce = oneStatementShape(plan, options, keepRuns);
    if (atOnce) {
      // One statement is its own transaction: this is the last check before it commits.
      tooLate(options.until, what);
      const max = store.bounds.variablesPerDevice;
      const health = healthWriteOf(plan.result, plan.now, options.latenessMs);
      const outcome = await writeSlotResultStatement(store, { ...plan.record, associationId: target.associationId!, deviceId: target.deviceId }, options.slot, atOnce, plan.now, max, health);
      if (outcome === 'gone') return null;
      if (outcome === 'duplicate') throw duplicateRun(target.associationId!, options.slot.slotMs);
      const refused = refusedVariablesWarning(outcome.refused, max ?? 0);
      if (!refused) return { runId: outcome.runId, variableIds: outcome.variableIds, warnings: [] };
      // Rare (the bound bit): the record, written by the statement, gets its warning after it.
      await appendRunWarnings(store, outcome.runId, [refused], { variableCount: outcome.variableIds.length, tableCount: plan.record.tableCount });
      return { runId: outcome.runId, variableIds: outcome.variableIds, warnings: [refused] };
    }
  }
  return await store.transaction(async () => {
    // One reading of the clock: the association's mark, the run's end and its variables' samples
    // bear the same time, as the one-statement write above gives them.
    const at = store.now();
    // An association's run marks it run (last_inspection_time) and writes its health below, both
    // in this transaction: the Public API's association and the health agree with the runs.
    let associationLive = false;
    if (scheduled) {
      if (!await markAssociationRun(store, target.associationId!, at)) return null;
      associationLive = true;
    } else if (!await getDevice(store, target.agentId, target.deviceId)) {
      throw new StoreError('NOT_FOUND', `device ${target.deviceId} of agent ${target.agentId} not found`);
    } else if (target.associationId != null) {
      // An API execution: its association may have been deleted while it ran; its run is kept.
      associationLive = await markAssociationRun(store, target.associationId, at);
    }
    const stored = options.deviceSecrets ?? await deviceSecrets(store, target.deviceId);
    const { result, now, associationId, writes, tableCount, record } = planWrite(target, unmasked, options, stored, at);
    /** Warnings the store adds to the run's own (a bound that bit). */
    const added: string[] = [];
    let slotRunId: number | null = null;
    if (options.slot) {
      // The slot's record, whole, in one statement (it was a claim, then an update at the end),
      // before the variables: a second writer of the slot waits for the first here, then is
      // refused (DUPLICATE_RUN) with nothing written.
      slotRunId = await insertSlotRun(store, { ...record, associationId: associationId! }, options.slot);
      if (slotRunId === null) {
        throw duplicateRun(associationId!, options.slot.slotMs);
      }
    }
    let variableIds: number[] = [];
    if (result.status === 'success') {
      const owner = { agentId: target.agentId, deviceId: target.deviceId, associationId };
      const bound: VariableBound = { max: store.bounds.variablesPerDevice, refused: [] };
      variableIds = await writeVariables(store, owner, writes, now, await writeRetentionMs(store), bound);
      const refused = refusedVariablesWarning(bound.refused, bound.max ?? 0);
      if (refused) {
        record.warnings.push(refused);
        added.push(refused);
        record.variableCount = variableIds.length;
        // The slot's record was written before its variables.
        if (slotRunId !== null) await appendRunWarnings(store, slotRunId, [refused], record);
      }
      const tables: TableBound = { max: store.bounds.tablesPerDevice, refused: [] };
      for (const table of result.tables) await writeDeviceTable(store, target.deviceId, associationId, table, now, tables);
      const refusedTables = refusedTablesWarning(tables.refused, tables.max ?? 0);
      if (refusedTables) {
        record.warnings.push(refusedTables);
        added.push(refusedTables);
        record.tableCount -= tables.refused.length;
        if (slotRunId !== null) await appendRunWarnings(store, slotRunId, [refusedTables], record);
      }
    }
    const runId = slotRunId ?? await insertRun(store, record);
    if (associationLive) await recordAssociationHealth(store, associationId!, runId, healthWriteOf(result, now, options.latenessMs));
    // The device's configuration history (backup() drivers); its text masked like everything else.
    const configuration =
      result.status === 'success' && result.backup
        ? await saveConfiguration(store, target.deviceId, result.backup, now, { runId, source: 'driver' })
        : undefined;
    if (keepRuns !== null) await pruneDeviceRuns(store, target.deviceId, keepRuns);
    if (options.activity ?? true) {
      await addActivity(store, {
        agentId: target.agentId,
        deviceId: target.deviceId,
        type: 'custom_driver_execute',
        user: target.user ?? 'driverbox',
        description: describeRun(target.driverName ?? null, result, variableIds.length),
        details: {
          run_id: runId,
          custom_driver_id: target.customDriverId ?? null,
          association_id: associationId,
          driver: target.driverName ?? null,
          action: result.action,
          outcome: result.status,
          error_type: result.errorType,
          message: result.message,
          limit_exceeded: result.limitExceeded,
          variable_count: variableIds.length,
          table_count: record.tableCount,
          elapsed_ms: Math.round(result.durationMs),
        },
        timestamp: now,
      });
    }
    // The last moment before COMMIT: a run that ran out of time meanwhile writes nothing.
    tooLate(options.until, what);
    return configuration ? { runId, variableIds, warnings: added, configuration } : { runId, variableIds, warnings: added };
  });
}

/** What a run's result writes, known before anything is written: the result masked, its variables, its record. */
function planWrite(target: ReportTarget, unmasked: RunResult, options: WriteRunOptions, stored: readonly string[], now: number) {
  // Nothing of the run's secrets is written: logs, message, warnings, exchanges, values.
  const result = maskFor([...stored, ...(options.secrets ?? [])]).result(unmasked);
  const associationId = target.associationId ?? null;
  if (options.slot && associationId === null) throw new StoreError('INVALID', 'a result for a slot needs its association');
  const warnings = [...result.warnings];
  const writes =
    result.status === 'success'
      ? lastOfEachUid(result.variables, warnings).map((variable) => ({
          path: variable.uid,
          label: variable.label,
          unit: variable.unit,
          value: variable.value,
          valueType: variable.valueType,
          metric: null,
          hasHistory: true,
        }))
      : [];
  const tableCount = result.status === 'success' ? result.tables.length : 0;
  const record = {
    agentId: target.agentId,
    deviceId: target.deviceId,
    customDriverId: target.customDriverId,
    associationId,
    driverName: target.driverName,
    ended: now,
    result,
    warnings,
    // writeVariables answers one id per write.
    variableCount: writes.length,
    tableCount,
  };
  return { result, now, associationId, writes, tableCount, record };
}

/**
 * The variables to write when the plan fits the one-statement write of a slot's result
 * (slot-result-statement.ts): nothing but the record and at most one batch of distinct
 * variables. Anything else (tables, a backup, an activity entry, a prune) takes the transaction.
 */
function oneStatementShape(plan: ReturnType<typeof planWrite>, options: WriteRunOptions, keepRuns: number | null): SlotVariable[] | null {
  if ((options.activity ?? true) || keepRuns !== null) return null;
  if (plan.result.status === 'success' && (plan.result.tables.length || plan.result.backup)) return null;
  if (plan.writes.length > SLOT_STATEMENT_MAX_VARIABLES) return null;
  return distinctStoredPaths(plan.writes) ? plan.writes : null;
}

function duplicateRun(associationId: number, slotMs: number): StoreError {
  return new StoreError('DUPLICATE_RUN', `association ${associationId} already has a result for the slot of ${new Date(slotMs).toISOString()}`);
}

/** "driver.js get_status: success, 12 variables" / "driver.js get_status: failure (AUTHENTICATION_ERROR: …)" */
function describeRun(driverName: string | null, result: RunResult, variableCount: number): string {
  const what = `${driverName ? `${driverName} ` : 'custom driver '}${result.action}`;
  if (result.status === 'success') return `${what}: success, ${variableCount} variable${variableCount === 1 ? '' : 's'}`;
  const why = [result.errorType, result.message].filter(Boolean).join(': ');
  return `${what}: failure${why ? ` (${why})` : ''}`;
}

/**
 * One variable per uid, the last one reported (docs/reference/compatibility.md, "Duplicate variable uids"),
 * at the place of its first. The runtime's result says so in its warnings already; a result
 * built elsewhere (an embedder's) gets the same warning here.
 */
function lastOfEachUid(variables: readonly VariableRecord[], warnings: string[]): VariableRecord[] {
  const last = new Map<string, VariableRecord>();
  const values = new Map<string, Array<string | null>>();
  for (const variable of variables) {
    last.set(variable.uid, variable);
    const seen = values.get(variable.uid);
    if (seen) seen.push(variable.value);
    else values.set(variable.uid, [variable.value]);
  }
  for (const [uid, list] of values) {
    const said = `duplicate variable uid "${uid}":`;
    if (list.length > 1 && !warnings.some((w) => w.startsWith(said))) warnings.push(duplicateUidWarning(uid, list));
  }
  return [...last.values()];
}

/** Results reach here from embedders too: refuse one the store cannot hold, naming the field. */
function checkResult(result: RunResult): void {
  const bad = (field: string, why: string) => new StoreError('INVALID', `cannot store the run result: ${field} ${why}`);
  if (result === null || typeof result !== 'object') throw bad('result', 'is not an object');
  if (result.status !== 'success' && result.status !== 'failure') throw bad('status', `must be "success" or "failure" (got ${JSON.stringify(result.status)})`);
  if (typeof result.action !== 'string' || !result.action) throw bad('action', 'must be a non-empty string');
  if (!Array.isArray(result.variables)) throw bad('variables', 'must be an array');
  if (!Array.isArray(result.tables)) throw bad('tables', 'must be an array');
  if (!Array.isArray(result.logs)) throw bad('logs', 'must be an array');
  if (!Array.isArray(result.warnings)) throw bad('warnings', 'must be an array');
  if (typeof result.durationMs !== 'number' || !Number.isFinite(result.durationMs)) throw bad('durationMs', 'must be a number');
  result.variables.forEach((v, i) => {
    if (!v || typeof v.uid !== 'string' || v.uid === '') throw bad(`variables[${i}].uid`, 'must be a non-empty string');
    if (v.value !== null && typeof v.value !== 'string') throw bad(`variables[${i}].value`, 'must be a string or null');
  });
  if (result.backup !== undefined) {
    const b = result.backup as unknown as Record<string, unknown> | null;
    if (!b || typeof b !== 'object') throw bad('backup', 'must be an object');
    if (typeof b.label !== 'string' || b.label === '') throw bad('backup.label', 'must be a non-empty string');
    if (typeof b.running !== 'string') throw bad('backup.running', 'must be a string');
    if (b.startup !== null && typeof b.startup !== 'string') throw bad('backup.startup', 'must be a string or null');
    if (b.running.length > backupBounds.configurationChars || (typeof b.startup === 'string' && b.startup.length > backupBounds.configurationChars)) {
      throw bad('backup', `holds a configuration of more than ${backupBounds.configurationChars} characters`);
    }
  }
  result.tables.forEach((t, i) => {
    if (!t || typeof t.label !== 'string' || t.label === '') throw bad(`tables[${i}].label`, 'must be a non-empty string');
    if (!Array.isArray(t.columnHeaders) || !Array.isArray(t.rows)) throw bad(`tables[${i}]`, 'must have columnHeaders and rows arrays');
  });
}
