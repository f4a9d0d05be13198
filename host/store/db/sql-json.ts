// JSON kept as text, read in SQL: the one place where SQLite's JSON functions and PostgreSQL's
// jsonb operators differ in the store's queries. Both answer text (or NULL when the path is absent).
import type { SqlDialect } from './database.js';

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The text at keys inside the JSON text in column (keys are fixed names, never user input). */
export function jsonText(dialect: SqlDialect, column: string, keys: readonly string[]): string {
  for (const key of keys) if (!KEY.test(key)) throw new Error(`jsonText: not a plain key: ${key}`);
  // The store writes these columns itself, always as JSON objects: Postgres reads them as they are.
  if (dialect === 'postgres') return `(${column}::jsonb #>> '{${keys.join(',')}}')`;
  return `(CASE WHEN json_valid(${column}) THEN CAST(json_extract(${column}, '$.${keys.join('.')}') AS TEXT) END)`;
}

/**
 * One column holding a JSON array of an object per row of `from` (its FROM … WHERE …, which may
 * name the outer query's tables), with the fields given (key → SQL expression): rows that would
 * be a statement of their own come with the outer row. Read it with jsonRowsOf.
 */
export function jsonRows(dialect: SqlDialect, fields: Readonly<Record<string, string>>, from: string): string {
  const pairs = Object.entries(fields).map(([key, expression]) => {
    if (!KEY.test(key)) throw new Error(`jsonRows: not a plain key: ${key}`);
    return `'${key}', ${expression}`;
  });
  if (dialect === 'postgres') return `(SELECT json_agg(json_build_object(${pairs.join(', ')})) ${from})`;
  return `(SELECT json_group_array(json_object(${pairs.join(', ')})) ${from})`;
}

/** A jsonRows column's rows: SQLite gives the text ('[]' for none), PostgreSQL the parsed array (NULL for none). */
export function jsonRowsOf<T>(value: unknown): T[] {
  if (value === null || value === undefined) return [];
  return (typeof value === 'string' ? JSON.parse(value) : value) as T[];
}

/** A subquery of the integers in one parameter given as JSON text ('[1,2]'): one statement for a list of any length. */
export function jsonIntegers(dialect: SqlDialect): string {
  if (dialect === 'postgres') return '(SELECT jsonb_array_elements_text(?::jsonb)::bigint)';
  return '(SELECT value FROM json_each(?))';
}
