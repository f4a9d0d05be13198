// The store's connection, through Kysely: SQLite (better-sqlite3, the embedded default, one file)
// or PostgreSQL (pg, the scale-out mode, one server many processes share). Everything above this
// module speaks one SQL text with `?` placeholders (sql-statement.ts translates it for Postgres),
// and never learns which database it talks to except through `dialect` where the two differ.
import { Kysely, PostgresDialect, SqliteDialect, type DatabaseConnection } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

export type SqlDialect = 'sqlite' | 'postgres';

/** The tables are typed where the query builder is used (runs, device state); the rest is raw SQL. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StoreKysely = Kysely<any>;

/** A postgres:// or postgresql:// URL names a PostgreSQL store; anything else is a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL with its password replaced, for messages and logs. */
export function redactUrl(location: string): string {
  try {
    const url = new URL(location);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return location.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
  }
}

/**
 * better-sqlite3 behind Kysely, with each SQL text prepared once: Kysely's SQLite driver prepares
 * every query anew, which costs more than running the small statements a run's result writes.
 */
export function sqliteKysely(db: BetterSqlite3.Database): StoreKysely {
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const database = {
    close: () => db.close(),
    prepare(sql: string) {
      let statement = prepared.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        prepared.set(sql, statement);
      }
      return statement;
    },
  };
  return new Kysely({ dialect: new SqliteDialect({ database }) });
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** int8 (ids, ms times, counts) and numeric (sums, averages) as JS numbers, as SQLite gives them. */
function numberTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === INT8_OID || oid === NUMERIC_OID) return (text: string) => Number(text);
      return pg.types.getTypeParser(oid, format as 'text');
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

export interface PostgresPoolOptions {
  /** Connections this process keeps at most. Default 10. */
  max?: number;
}

/** A pg pool behind Kysely. The pool's types are its own: the process-wide pg.types stay untouched. */
export function postgresKysely(url: string, options: PostgresPoolOptions = {}): { kysely: StoreKysely; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types: numberTypes(),
    // A store that cannot be reached says so within seconds rather than hanging the caller.
    connectionTimeoutMillis: 10_000,
    application_name: 'driverbox',
  });
  // An idle client losing its server (a Postgres restart) must not crash the process: the next
  // query gets a fresh connection and its own error if the server is still gone.
  pool.on('error', () => {});
  const kysely = new Kysely({ dialect: new PostgresDialect({ pool }) });
  return { kysely, pool };
}

export type { DatabaseConnection };
