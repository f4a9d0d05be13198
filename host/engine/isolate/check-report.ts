// The host's own check of what the runtime reports from inside the isolate. The runtime
// validates D.success, but it runs in the driver's context, where a driver can replace
// JSON.stringify or define Object.prototype.toJSON and so hand the host any text it likes:
// only what passes here becomes a RunResult (and reaches the store). The RunEnd returned is
// rebuilt from the checked fields alone: nothing else the runtime sent (an extra field nested
// deep, an inherited toJSON) can reach the store, structured clone or JSON.stringify.
import { backupBounds, bounds, errorType, reservedPathWords, valueType } from '../../../runtime/constants.js';
import type { BackupRecord, ColumnHeader, LogMessage, RunEnd, TableRecord, VariableRecord } from '../../../runtime/protocol.js';

export interface ReportBounds {
  maxVariables: number;
  maxTableRows: number;
}

/** A report's first problem, thrown by the checks below. */
class BadReport extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, where: string, min: number, max: number): string {
  if (typeof value !== 'string' || value.length < min || value.length > max) {
    throw new BadReport(`${where} must be a string of ${min} to ${max} characters (got ${describe(value)})`);
  }
  return value;
}

function optionalText(value: unknown, where: string, max: number): string | null {
  return value === null ? null : text(value, where, 0, max);
}

function oneOf(value: unknown, names: Record<string, string>, where: string): string {
  if (typeof value !== 'string' || !Object.prototype.hasOwnProperty.call(names, value)) throw new BadReport(`${where} ${describe(value)} is not one of ${Object.keys(names).join(', ')}`);
  return value;
}

function list(value: unknown, where: string, max: number): unknown[] {
  if (!Array.isArray(value)) throw new BadReport(`${where} must be an array (got ${describe(value)})`);
  if (value.length > max) throw new BadReport(`${where} has ${value.length} entries; at most ${max} are allowed`);
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value;
}

function checkVariable(value: unknown, where: string): VariableRecord {
  if (!isRecord(value)) throw new BadReport(`${where} must be an object (got ${describe(value)})`);
  const uid = text(value.uid, `${where}.uid`, 1, bounds.uid);
  if (uid.split('/').some((segment) => reservedPathWords.includes(segment))) throw new BadReport(`${where}.uid "${uid}" uses a reserved word`);
  return {
    uid,
    label: text(value.label, `${where}.label`, 0, bounds.variableLabel),
    value: optionalText(value.value, `${where}.value`, bounds.value),
    unit: optionalText(value.unit, `${where}.unit`, bounds.unit),
    valueType: oneOf(value.valueType, valueType, `${where}.valueType`),
  };
}

function checkTable(value: unknown, where: string, maxRows: number): TableRecord {
  if (!isRecord(value)) throw new BadReport(`${where} must be an object (got ${describe(value)})`);
  const label = text(value.label, `${where}.label`, 1, bounds.tableLabel);
  const columns: ColumnHeader[] = list(value.columnHeaders, `${where}.columnHeaders`, Number.MAX_SAFE_INTEGER).map((column, i) => {
    if (!isRecord(column)) throw new BadReport(`${where}.columnHeaders[${i}] must be an object`);
    return {
      label: text(column.label, `${where}.columnHeaders[${i}].label`, 1, bounds.columnLabel),
      unit: optionalText(column.unit, `${where}.columnHeaders[${i}].unit`, bounds.unit),
      valueType: oneOf(column.valueType, valueType, `${where}.columnHeaders[${i}].valueType`),
    };
  });
  const rows = list(value.rows, `${where}.rows`, maxRows).map((row, r) => {
    const cells = list(row, `${where}.rows[${r}]`, columns.length + 1);
    if (cells.length !== columns.length + 1) throw new BadReport(`${where}.rows[${r}] has ${cells.length} cells; the record id and ${columns.length} values were expected`);
    return cells.map((cell, c) =>
      c === 0
        ? text(cell, `${where}.rows[${r}][0] (the record id)`, 1, bounds.recordId)
        : // A cell is a value like a variable's: the runtime cuts it to the same bound (runtime/tables.ts).
          optionalText(cell, `${where}.rows[${r}][${c}]`, bounds.value),
    );
  });
  const table: TableRecord = { label, columnHeaders: columns, rows };
  if (value.cellMetadata !== undefined) table.cellMetadata = checkCellMetadata(value.cellMetadata, `${where}.cellMetadata`, rows.length, columns.length);
  return table;
}

/** A table's cell metadata (addMetrics), by the runtime's bounds (runtime/metadata.ts), rebuilt. */
function checkCellMetadata(value: unknown, where: string, rowCount: number, columnCount: number): NonNullable<TableRecord['cellMetadata']> {
  let chars = 0;
  const rows = list(value, where, rowCount);
  if (rows.length !== rowCount) throw new BadReport(`${where} has ${rows.length} entries; one per row (${rowCount}) was expected`);
  return rows.map((row, r) => {
    if (row === null) return null;
    const cells = list(row, `${where}[${r}]`, columnCount);
    if (cells.length !== columnCount) throw new BadReport(`${where}[${r}] has ${cells.length} entries; one per column (${columnCount}) was expected`);
    return cells.map((cell, c) => {
      if (cell === null) return null;
      const at = `${where}[${r}][${c}]`;
      if (!isRecord(cell)) throw new BadReport(`${at} must be an object or null (got ${describe(cell)})`);
      const keys = Object.keys(cell);
      if (keys.length > bounds.metadataKeys) throw new BadReport(`${at} has ${keys.length} keys; at most ${bounds.metadataKeys} are allowed`);
      const entries = keys.map((key): [string, string] => {
        text(key, `a key of ${at}`, 0, bounds.metadataKey);
        const kept = text(cell[key], `${at}.${key}`, 0, bounds.metadataText);
        chars += key.length + kept.length;
        return [key, kept];
      });
      if (chars > bounds.tableMetadataChars) throw new BadReport(`${where} holds more than ${bounds.tableMetadataChars} characters`);
      return Object.fromEntries(entries);
    });
  });
}

function checkBackup(value: unknown): BackupRecord {
  if (!isRecord(value)) throw new BadReport(`backup must be an object (got ${describe(value)})`);
  return {
    label: text(value.label, 'backup.label', 1, backupBounds.label),
    running: text(value.running, 'backup.running', 0, backupBounds.configurationChars),
    startup: optionalText(value.startup, 'backup.startup', backupBounds.configurationChars),
  };
}

/** The report rebuilt from its checked fields, or the text of its first problem. */
export function checkRunEnd(payload: unknown, limits: ReportBounds): RunEnd | string {
  try {
    if (!isRecord(payload)) throw new BadReport(`the report must be an object (got ${describe(payload)})`);
    if (payload.status !== 'success' && payload.status !== 'failure') throw new BadReport(`status ${describe(payload.status)} is neither "success" nor "failure"`);
    let type: string | null = null;
    if (payload.status === 'failure') type = oneOf(payload.errorType, errorType, 'errorType');
    else if (payload.errorType !== null) throw new BadReport('a success carries no errorType');
    if (payload.message !== null && typeof payload.message !== 'string') throw new BadReport(`message must be a string or null (got ${describe(payload.message)})`);
    const variables = list(payload.variables, 'variables', limits.maxVariables).map((v, i) => checkVariable(v, `variables[${i}]`));
    // D.success takes at most two arguments, so at most two tables.
    const tables = list(payload.tables, 'tables', 2).map((t, i) => checkTable(t, `tables[${i}]`, limits.maxTableRows));
    const end: RunEnd = { status: payload.status, errorType: type, message: payload.message, variables, tables };
    if (payload.backup !== undefined) {
      if (payload.status !== 'success') throw new BadReport('a failure carries no backup');
      end.backup = checkBackup(payload.backup);
    }
    return end;
  } catch (error) {
    if (error instanceof BadReport) return error.message;
    throw error;
  }
}

/** Longest outcome message kept: a driver's error text goes to the result, the store and the API. */
export const MAX_MESSAGE_CHARS = 10_000;

/** The outcome's message, cut to MAX_MESSAGE_CHARS (a driver may throw an error of any size). */
export function cutMessage(message: string | null): string | null {
  if (message === null || message.length <= MAX_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_MESSAGE_CHARS - 60)}… (cut: the message had ${message.length} characters)`;
}

const levels = new Set(['debug', 'info', 'log', 'warn', 'error']);

/** A log line as the host keeps it: a known level and text, whatever the runtime was made to send. */
export function checkLog(payload: unknown): LogMessage {
  const entry = isRecord(payload) ? payload : {};
  const level = typeof entry.level === 'string' && levels.has(entry.level) ? (entry.level as LogMessage['level']) : 'log';
  const message = typeof entry.message === 'string' ? entry.message : String(JSON.stringify(entry.message ?? null));
  return { level, message };
}
