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

/** Texts to send as named statements, each with its name (the same text, the same name, in every pool). */
const namedTexts = new Map<string, string>();

/**
 * Marks a PostgreSQL text (with $n placeholders) to be sent as a named statement: each
 * connection parses and plans it once, then runs it with new values only. For the few
 * statements of every run, whose planning cost PostgreSQL more than running them (the rig's
 * statement counts: ~0.45 ms of planning each, per run). Not for texts made with a varying list.
 */
export function nameTextOnEveryConnection(text: string): void {
  if (!namedTexts.has(text)) namedTexts.set(text, `driverbox_${namedTexts.size + 1}`);
}

let renamed = 0;

/** pg's client, sending the texts marked by nameTextOnEveryConnection as named statements (Kysely sends text and values). */
class NamingClient extends pg.Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    const name = typeof config === 'string' && callback === undefined ? namedTexts.get(config) : undefined;
    return name ? this.#named(name, config, values) : super.query(config, values, callback);
  }

  async #named(name: string, text: string, values: unknown[] | undefined): Promise<pg.QueryResult> {
    try {
      return await super.query({ name, text, values });
    } catch (error) {
      // A table of a `*` changed since this connection planned it (a migration by another
      // process): PostgreSQL refuses the old plan. The text gets a new name, parsed afresh.
      if ((error as { code?: string }).code !== '0A000' || !/cached plan must not change result type/.test(String((error as Error).message))) throw error;
      const fresh = `${name}_r${++renamed}`;
      namedTexts.set(text, fresh);
      return await super.query({ name: fresh, text, values });
    }
  }
}

/** A pg pool behind Kysely. The pool's types are its own: the process-wide pg.types stay untouched. */
export function postgresKysely(url: string, options: PostgresPoolOptions = {}): { kysely: StoreKysely; pool: pg.Pool } {
  const pool = new pg.Pool({
    Client: NamingClient,
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
