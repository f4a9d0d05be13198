// Assertions on a RunResult for driver tests. They throw node's AssertionError, so any test
// runner (vitest, node:test, mocha) reports them, and their messages say what the run did
// instead: its outcome, the uids it reported, the rows a table holds, then the run's device
// exchanges (method, URL, status or error code), its logs and warnings.
import { AssertionError } from 'node:assert';
import type { RunResult, TableRecord, VariableRecord } from '../contract/run-result.js';

/** What a variable should be: its value (compared as text, as the run reports it), or some of its fields. */
export type ExpectedVariable = string | number | boolean | null | Partial<Pick<VariableRecord, 'value' | 'label' | 'unit' | 'valueType'>>;

/** A table row as an object: `id` (the record id) and one entry per column label. */
export type TableRow = { id: string } & Record<string, string | null>;

export interface MatchOptions {
  /** Also fail when the run reported variables (or rows) that are not in the expectation. */
  only?: boolean;
}

function outcome(result: RunResult): string {
  if (result.status === 'success') return 'the run succeeded';
  return `the run failed with ${result.errorType}${result.message ? `: ${result.message}` : ''}`;
}

/** Lines shown per list (exchanges, logs, warnings); the rest are counted. */
const SHOWN = 25;
/** Characters shown per log line or error message. */
const LINE_CHARS = 300;

const clip = (text: string) => {
  const one = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return one.length > LINE_CHARS ? `${one.slice(0, LINE_CHARS - 1)}…` : one;
};

function listed<T>(title: string, items: readonly T[], line: (item: T) => string): string[] {
  if (!items.length) return [`${title}: none`];
  const lines = [`${title} (${items.length}):`, ...items.slice(0, SHOWN).map((item) => `  ${clip(line(item))}`)];
  if (items.length > SHOWN) lines.push(`  … ${items.length - SHOWN} more`);
  return lines;
}

/** What the run did, for a failing assertion: its exchanges with the device, its logs and warnings. */
export function describeRun(result: RunResult): string {
  const lines = [
    ...listed('exchanges', result.http ?? [], (h) => {
      // Protocol calls (SSH, SNMP…) have no status: "done" when they got their answer.
      const outcome = h.error ? `${h.error}${h.errorMessage ? ` (${h.errorMessage})` : ''}` : h.method === 'TLS' ? 'certificate read' : h.status === null ? 'done' : String(h.status);
      return `${h.method} ${h.url} → ${outcome}${h.redirectedTo ? ` ↪ ${h.redirectedTo}` : ''}`;
    }),
    ...listed('logs', result.logs ?? [], (l) => `${l.level}: ${l.message}`),
  ];
  if (result.warnings?.length) lines.push(...listed('warnings', result.warnings, (w) => w));
  return lines.join('\n');
}

function fail(result: RunResult, message: string, actual?: unknown, expected?: unknown): never {
  throw new AssertionError({ message: `${message}\n${describeRun(result)}`, actual, expected, operator: 'driverbox' });
}

/** Expected values are compared as the text a run reports: 12.5 matches "12.5", true matches "true". */
function asReported(value: string | number | boolean | null | undefined): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** Throws unless the run succeeded; the message carries its error, exchanges, logs and warnings. */
export function assertSuccess(result: RunResult): void {
  if (result.status === 'success') return;
  fail(result, `expected the run of ${result.action}() to succeed, but ${outcome(result)}`);
}

/** Of duplicate uids the last: the one the store keeps (docs/reference/compatibility.md). */
function lastWithUid(result: RunResult, uid: string): VariableRecord | undefined {
  for (let i = result.variables.length - 1; i >= 0; i--) if (result.variables[i]!.uid === uid) return result.variables[i];
  return undefined;
}

/**
 * The variable with this uid (of duplicates, the last: the one the store keeps); throws, listing
 * the uids the run did report, when there is none.
 */
export function getVariable(result: RunResult, uid: string): VariableRecord {
  const found = lastWithUid(result, uid);
  if (!found) {
    const uids = result.variables.map((v) => v.uid);
    fail(result, `no variable "${uid}": ${outcome(result)} and reported ${uids.length ? uids.map((u) => `"${u}"`).join(', ') : 'no variables'}`);
  }
  return found;
}

/** Checks variables by uid; every mismatch is listed in one error. */
export function assertVariables(result: RunResult, expected: Record<string, ExpectedVariable>, options: MatchOptions = {}): void {
  const problems: string[] = [];
  for (const [uid, want] of Object.entries(expected)) {
    const got = lastWithUid(result, uid);
    if (!got) {
      problems.push(`"${uid}": missing`);
      continue;
    }
    const fields: Partial<VariableRecord> = want !== null && typeof want === 'object' ? want : { value: asReported(want) };
    for (const [field, value] of Object.entries(fields) as Array<[keyof VariableRecord, unknown]>) {
      const wanted = field === 'value' ? asReported(value as string | null) : value;
      if (got[field] !== wanted) problems.push(`"${uid}".${field}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(got[field])}`);
    }
  }
  if (options.only) {
    for (const v of result.variables) if (!(v.uid in expected)) problems.push(`"${v.uid}": not expected (value ${JSON.stringify(v.value)})`);
  }
  if (problems.length) {
    const actual = Object.fromEntries(result.variables.map((v) => [v.uid, v.value]));
    fail(result, `variables differ (${outcome(result)}):\n  ${problems.join('\n  ')}`, actual, expected);
  }
}

/** The table with this label; throws, listing the tables the run reported, when there is none. */
export function getTable(result: RunResult, label: string): TableRecord {
  const found = result.tables.find((t) => t.label === label);
  if (!found) {
    const labels = result.tables.map((t) => `"${t.label}"`);
    fail(result, `no table "${label}": ${outcome(result)} and reported ${labels.length ? labels.join(', ') : 'no tables'}`);
  }
  return found;
}

/** The table's rows as objects: `{ id, <column label>: value, … }`. */
export function getTableRows(result: RunResult, label: string): TableRow[] {
  const table = getTable(result, label);
  return table.rows.map(([id, ...values]) => {
    const row: TableRow = { id: id ?? '' };
    table.columnHeaders.forEach((column, i) => (row[column.label] = values[i] ?? null));
    return row;
  });
}

/**
 * Checks a table's rows by record id: each expected row names its `id` and the columns to check
 * (values compared as reported text). With `only`, the table must hold no other rows.
 */
export function assertTableRows(
  result: RunResult,
  label: string,
  expected: Array<{ id: string } & Record<string, string | number | boolean | null>>,
  options: MatchOptions = {},
): void {
  const rows = getTableRows(result, label);
  const columns = new Set(getTable(result, label).columnHeaders.map((c) => c.label));
  const problems: string[] = [];
  for (const want of expected) {
    const got = rows.find((r) => r.id === want.id);
    if (!got) {
      problems.push(`row "${want.id}": missing (rows: ${rows.map((r) => `"${r.id}"`).join(', ') || 'none'})`);
      continue;
    }
    for (const [column, value] of Object.entries(want)) {
      if (column === 'id') continue;
      if (!columns.has(column)) {
        problems.push(`row "${want.id}": the table has no column "${column}" (columns: ${[...columns].map((c) => `"${c}"`).join(', ')})`);
      } else if (got[column] !== asReported(value)) {
        problems.push(`row "${want.id}".${column}: expected ${JSON.stringify(asReported(value))}, got ${JSON.stringify(got[column])}`);
      }
    }
  }
  if (options.only) {
    for (const row of rows) if (!expected.some((w) => w.id === row.id)) problems.push(`row "${row.id}": not expected`);
  }
  if (problems.length) fail(result, `table "${label}" differs (${outcome(result)}):\n  ${problems.join('\n  ')}`, rows, expected);
}
