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
