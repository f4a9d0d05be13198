// One SQL text run on either database. The store's SQL is written once, with `?` placeholders
// and the subset of SQL both SQLite and PostgreSQL read alike; for Postgres the placeholders
// become $1, $2… (outside quoted strings and identifiers), once per text.
import { CompiledQuery } from 'kysely';
import { nameTextOnEveryConnection, type SqlDialect, type StoreKysely } from './database.js';

export interface RunInfo {
  /** Rows the statement changed. */
  changes: number;
}

/** What a statement runs on: the store's connection, or the transaction it is inside. */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  executor(): StoreKysely;
}

const translated = new Map<string, string>();

/** The SQL text with ? placeholders numbered for PostgreSQL. */
export function postgresPlaceholders(sql: string): string {
  let done = translated.get(sql);
  if (done !== undefined) return done;
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      out += c;
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  if (translated.size > 10_000) translated.clear();
  translated.set(sql, out);
  return out;
}

/** Postgres text cannot hold NUL; a driver's value with one is kept with U+FFFD in its place. */
export function postgresText(value: string): string {
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

function postgresParameter(value: unknown): unknown {
  return typeof value === 'string' ? postgresText(value) : value;
}

export interface StatementOptions {
  /**
   * PostgreSQL: parse and plan once per connection (a named statement), for the statements of
   * every run. SQLite prepares every statement once anyway (database.ts).
   */
  named?: boolean;
}

export class SqlStatement<P extends unknown[] = unknown[], R = unknown> {
  readonly #sql: string;
  readonly #on: SqlExecutor;
  readonly #named: boolean;

  constructor(on: SqlExecutor, sql: string, options: StatementOptions = {}) {
    this.#on = on;
    this.#sql = sql;
    this.#named = options.named ?? false;
  }

  async #execute(params: unknown[], suffix = ''): Promise<{ rows: R[]; changes: number }> {
    const postgres = this.#on.dialect === 'postgres';
    const sql = this.#sql + suffix;
    const text = postgres ? postgresPlaceholders(sql) : sql;
    if (postgres && this.#named) nameTextOnEveryConnection(text);
    const values = postgres ? params.map(postgresParameter) : params;
    const result = await this.#on.executor().executeQuery<R>(CompiledQuery.raw(text, values));
    return { rows: result.rows as R[], changes: Number(result.numAffectedRows ?? 0n) };
  }

  /** The first row, or undefined. */
  async get(...params: P): Promise<R | undefined> {
    return (await this.#execute(params)).rows[0];
  }

  async all(...params: P): Promise<R[]> {
    return (await this.#execute(params)).rows;
  }

  async run(...params: P): Promise<RunInfo> {
    return { changes: (await this.#execute(params)).changes };
  }

  /** Runs an INSERT into a table with an id column and answers the new row's id (RETURNING, on both databases). */
  async insert(...params: P): Promise<number> {
    const row = (await this.#execute(params, ' RETURNING id')).rows[0] as { id: number } | undefined;
    if (!row) throw new Error('the INSERT returned no row');
    return Number(row.id);
  }
}
