// The store: agents, devices, custom drivers, associations, variables and their history, tables,
// runs and the activity log. Embedded: one SQLite file (better-sqlite3). Scale-out: one PostgreSQL
// database that many agents and API servers share. Both through Kysely (db/database.ts), with one
// SQL text and one migration set. The folders beside this one read and write it through a Store,
// none keeping state of its own: db/ (connection, SQL, schema, migrations, files, sealing), fleet/
// (agents, devices), drivers/ (the library, associations), runs/ (run records, writing a result),
// results/ (variables, tables, configurations), monitoring/, account/, marketplace/.
import { AsyncLocalStorage } from 'node:async_hooks';
import { dirname, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { loadBetterSqlite3, openDatabase } from './db/better-sqlite3.js';
import { isPostgresUrl, postgresKysely, redactUrl, sqliteKysely, type PostgresPoolOptions, type SqlDialect, type StoreKysely } from './db/database.js';
import { defaultDataDir, resolveStorePath } from './db/data-dir.js';
import { createPrivateFile, ensurePrivateDir, tightenStoreFiles } from './db/file-modes.js';
import { DAY_MS, ensureHistoryPartitions } from './db/history-partitions.js';
import { migrate } from './db/migrations.js';
import { deriveKey, keyMatchesCheck, lockedSecretBox, makeCheck, makeSecretBox, type SecretBox } from './db/secret-box.js';
import { SqlStatement, type SqlExecutor, type StatementOptions } from './db/sql-statement.js';
import { StoreError } from '../contract/errors.js';

export type { SqlDialect } from './db/database.js';
export type { RunInfo } from './db/sql-statement.js';

export interface StoreOptions {
  /**
   * A file path, ':memory:', or a postgres:// URL. Default: $DRIVERBOX_STORE, else driverbox.db in
   * the user's data folder.
   */
  path?: string;
  /** PostgreSQL only: the connection pool's bounds. */
  pool?: PostgresPoolOptions;
  /**
   * The secret that device credentials are encrypted with. Without one the store works, but
   * storing or reading credentials fails with SECRET_KEY_MISSING.
   */
  secretKey?: string | null;
  /** The store's clock (ms since the epoch); tests pass a fixed one. */
  clock?: () => number;
  /** What a device's results may grow to in this store (defaults: DEFAULT_STORE_BOUNDS). */
  bounds?: Partial<StoreBounds>;
}

/**
 * What a device's runs may grow the store to over time, whatever its driver reports. Each is
 * kept by every writer of results (runs/report-run.ts), with a warning in the run's record when it
 * bites. null: unbounded.
 */
export interface StoreBounds {
  /**
   * Variables one device may have. A run's variables the device has already are always
   * updated; new ones past the bound are refused (not stored, no history), named in a warning.
   */
  variablesPerDevice: number | null;
  /**
   * Run records kept per device by a write that prunes as it goes (writeRunResult: API
   * executions, `run --report`, demo). The agent's scheduled runs are pruned in batches by its
   * own keepRunsPerDevice (device-run-pruner.ts).
   */
  runsPerDevice: number | null;
  /** Tables one device may have: as variables, the ones it has are replaced, new labels past it refused. */
  tablesPerDevice: number | null;
}

export const DEFAULT_STORE_BOUNDS: Readonly<StoreBounds> = Object.freeze({ variablesPerDevice: 2000, runsPerDevice: 100, tablesPerDevice: 100 });

function checkBounds(bounds: Partial<StoreBounds> | undefined): StoreBounds {
  const merged = { ...DEFAULT_STORE_BOUNDS, ...bounds };
  for (const [name, value] of Object.entries(merged)) {
    if (value !== null && (!Number.isInteger(value) || value < 1)) {
      throw new StoreError('INVALID', `store bounds: ${name} must be an integer ≥ 1 or null (got ${String(value)})`);
    }
  }
  return merged;
}

interface Transaction {
  kysely: StoreKysely;
  done: boolean;
}

export class Store implements SqlExecutor {
  readonly kysely: StoreKysely;
  readonly dialect: SqlDialect;
  /** The file, ':memory:', or the postgres:// URL with its password hidden. */
  readonly path: string;
  readonly now: () => number;
  /** What a device's results may grow the store to (StoreOptions.bounds). */
  bounds: Readonly<StoreBounds> = DEFAULT_STORE_BOUNDS;
  #secrets: SecretBox;
  readonly #transactions = new AsyncLocalStorage<Transaction>();
  readonly #statements = new Map<string, SqlStatement<never, unknown>>();
  #open = true;

  constructor(kysely: StoreKysely, dialect: SqlDialect, path: string, secrets: SecretBox, clock: () => number) {
    this.kysely = kysely;
    this.dialect = dialect;
    this.path = path;
    this.#secrets = secrets;
    this.now = clock;
  }

  /** What device credentials are sealed with (locked: storing or reading them fails). */
  get secrets(): SecretBox {
    return this.#secrets;
  }

  /** @internal Set once by openStore, after the key was checked against the store's. */
  withSecrets(secrets: SecretBox): this {
    this.#secrets = secrets;
    return this;
  }

  /** Where a statement runs now: inside a transaction this async call chain opened, or the store. */
  executor(): StoreKysely {
    if (!this.#open) throw new StoreError('STORE_CLOSED', `the store ${this.path} is not open (it was closed)`);
    const transaction = this.#transactions.getStore();
    return transaction && !transaction.done ? transaction.kysely : this.kysely;
  }

  /** A statement of one SQL text (? placeholders), made once per store (its options are the first call's). */
  statement<P extends unknown[] = unknown[], R = unknown>(sql: string, options?: StatementOptions): SqlStatement<P, R> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = new SqlStatement(this, sql, options) as SqlStatement<never, unknown>;
      this.#statements.set(sql, statement);
    }
    return statement as unknown as SqlStatement<P, R>;
  }

  /**
   * Runs fn in one transaction; every statement fn's async calls make goes into it (nested calls
   * join the outer one). On SQLite a transaction holds the one connection, so others wait for it.
   */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    const current = this.#transactions.getStore();
    if (current && !current.done) return fn();
    return this.kysely.transaction().execute(async (trx) => {
      const transaction: Transaction = { kysely: trx, done: false };
      try {
        return await this.#transactions.run(transaction, fn);
      } finally {
        // Work fn left running past its end goes to the store, not to a closed transaction.
        transaction.done = true;
      }
    });
  }

  /**
   * Inside a transaction: waits until no other process's transaction holds the lock of this name,
   * and holds it until this transaction ends (PostgreSQL's advisory lock). On SQLite a
   * transaction is alone already, so this does nothing.
   */
  async lock(name: string): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await this.statement('SELECT pg_advisory_xact_lock(hashtext(?))').get(`driverbox:${name}`);
  }

  get open(): boolean {
    return this.#open;
  }

  async close(): Promise<void> {
    if (!this.#open) return;
    this.#open = false;
    await this.kysely.destroy();
  }
}

/**
 * Opens the store named by options.path (a SQLite file, ':memory:' or a postgres:// URL) and brings
 * its schema up to date.
 */
export async function openStore(options: StoreOptions = {}): Promise<Store> {
  checkBounds(options.bounds);
  const path = options.path ?? resolveStorePath();
  if (isPostgresUrl(path)) return openPostgresStore(path, options);
  return openSqliteStore(path, options);
}

async function openSqliteStore(path: string, options: StoreOptions): Promise<Store> {
  // Outside the try: no better-sqlite3 for this Node is SQLITE_MISSING, not an unopenable store.
  loadBetterSqlite3();
  let db: Database.Database;
  try {
    if (path !== ':memory:') {
      // A folder made here is 0700; the data folder itself is tightened, any other existing one left alone.
      ensurePrivateDir(dirname(path), resolve(dirname(path)) === resolve(defaultDataDir()));
      createPrivateFile(path);
    }
    db = openDatabase(path);
  } catch (error) {
    throw new StoreError('STORE_UNOPENABLE', `cannot open the store at ${path}: ${(error as Error).message}`);
  }
  const kysely = sqliteKysely(db);
  try {
    // WAL lets API readers go on while a run's result is written; foreign keys enforce the
    // cascades (deleting a device deletes its variables, credentials, sensors…).
    // In WAL mode, synchronous NORMAL cannot corrupt the file; a power cut may lose the last
    // transactions, not a consistent store, and each write saves an fsync.
    if (path !== ':memory:') {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // After the pragma, so the -wal and -shm files exist: those of an older version were 0644.
      tightenStoreFiles(path);
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    await migrate(kysely, 'sqlite', path);
    return await unlocked(new Store(kysely, 'sqlite', path, lockedSecretBox, options.clock ?? Date.now), options);
  } catch (error) {
    await kysely.destroy();
    if (error instanceof StoreError) throw error;
    throw new StoreError('STORE_UNOPENABLE', `cannot open the store at ${path}: ${(error as Error).message}`);
  }
}

async function openPostgresStore(url: string, options: StoreOptions): Promise<Store> {
  const shown = redactUrl(url);
  let kysely: StoreKysely;
  let pool: pg.Pool;
  try {
    ({ kysely, pool } = postgresKysely(url, options.pool));
  } catch (error) {
    throw new StoreError('STORE_UNOPENABLE', `cannot open the store at ${shown}: ${(error as Error).message}`);
  }
  try {
    // One round trip first, so an unreachable server or a wrong password is said as such.
    const client = await pool.connect();
    client.release();
    await migrate(kysely, 'postgres', shown);
    const store = await unlocked(new Store(kysely, 'postgres', shown, lockedSecretBox, options.clock ?? Date.now), options);
    await ensureHistoryPartitions(store, store.now() - DAY_MS, store.now() + 2 * DAY_MS);
    return store;
  } catch (error) {
    await kysely.destroy().catch(() => {});
    if (error instanceof StoreError) throw error;
    throw new StoreError('STORE_UNOPENABLE', `cannot open the store at ${shown}: ${(error as Error).message}`);
  }
}

async function unlocked(store: Store, options: StoreOptions): Promise<Store> {
  store.bounds = Object.freeze(checkBounds(options.bounds));
  if (!options.secretKey) return store;
  return store.withSecrets(await unlockSecrets(store, options.secretKey));
}

async function readMeta(store: Store, key: string): Promise<string | undefined> {
  const row = await store.statement<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key);
  return row?.value;
}

async function unlockSecrets(store: Store, secretKey: string): Promise<SecretBox> {
  let salt = await readMeta(store, 'secret_salt');
  if (salt === undefined) {
    const fresh = randomBytes(16).toString('base64');
    const key = deriveKey(secretKey, Buffer.from(fresh, 'base64'));
    // Two processes opening a new shared store at once: the first salt wins, the other reads it back.
    const insert = store.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');
    await store.transaction(async () => {
      await insert.run('secret_salt', fresh);
      await insert.run('secret_check', makeCheck(key));
    });
    salt = (await readMeta(store, 'secret_salt'))!;
    if (salt === fresh) return makeSecretBox(key);
  }
  const key = deriveKey(secretKey, Buffer.from(salt, 'base64'));
  const check = await readMeta(store, 'secret_check');
  if (check !== undefined && !keyMatchesCheck(key, check)) {
    throw new StoreError('SECRET_KEY_MISMATCH', 'the secret key does not match the one this store was first used with');
  }
  return makeSecretBox(key);
}
