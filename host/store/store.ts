// The embedded store: one SQLite database (better-sqlite3) holding agents, devices, custom
// drivers, associations, variables and their history, tables, runs and the activity log.
// Modules beside this one (agents.ts, devices.ts, variables.ts…) read and write it through
// a Store; none keeps state of its own.
import { dirname, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { loadBetterSqlite3, openDatabase } from './better-sqlite3.js';
import { defaultDataDir, resolveStorePath } from './data-dir.js';
import { createPrivateFile, ensurePrivateDir, tightenStoreFiles } from './file-modes.js';
import { migrate } from './migrations.js';
import { deriveKey, keyMatchesCheck, lockedSecretBox, makeCheck, makeSecretBox, type SecretBox } from './secret-box.js';
import { StoreError } from './store-error.js';

export interface StoreOptions {
  /** A file path, or ':memory:'. Default: $DRIVERBOX_STORE, else driverbox.db in the user's data folder. */
  path?: string;
  /**
   * The secret that device credentials are encrypted with. Without one the store works, but
   * storing or reading credentials fails with SECRET_KEY_MISSING.
   */
  secretKey?: string | null;
  /** The store's clock (ms since the epoch); tests pass a fixed one. */
  clock?: () => number;
}

export class Store {
  readonly db: Database.Database;
  readonly path: string;
  readonly secrets: SecretBox;
  readonly now: () => number;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database, path: string, secrets: SecretBox, clock: () => number) {
    this.db = db;
    this.path = path;
    this.secrets = secrets;
    this.now = clock;
  }

  /** A prepared statement, prepared once per store. */
  statement<P extends unknown[] | {} = unknown[], R = unknown>(sql: string): Database.Statement<P, R> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement as unknown as Database.Statement<P, R>;
  }

  /** Runs fn in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  get open(): boolean {
    return this.db.open;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

export function openStore(options: StoreOptions = {}): Store {
  const path = options.path ?? resolveStorePath();
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
    migrate(db, path);
    const secrets = options.secretKey ? unlockSecrets(db, options.secretKey) : lockedSecretBox;
    return new Store(db, path, secrets, options.clock ?? Date.now);
  } catch (error) {
    db.close();
    if (error instanceof StoreError) throw error;
    throw new StoreError('STORE_UNOPENABLE', `cannot open the store at ${path}: ${(error as Error).message}`);
  }
}

function readMeta(db: Database.Database, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row?.value;
}

function unlockSecrets(db: Database.Database, secretKey: string): SecretBox {
  let salt = readMeta(db, 'secret_salt');
  if (salt === undefined) {
    salt = randomBytes(16).toString('base64');
    const key = deriveKey(secretKey, Buffer.from(salt, 'base64'));
    const insert = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    db.transaction(() => {
      insert.run('secret_salt', salt);
      insert.run('secret_check', makeCheck(key));
    })();
    return makeSecretBox(key);
  }
  const key = deriveKey(secretKey, Buffer.from(salt, 'base64'));
  const check = readMeta(db, 'secret_check');
  if (check !== undefined && !keyMatchesCheck(key, check)) {
    throw new StoreError('SECRET_KEY_MISMATCH', 'the secret key does not match the one this store was first used with');
  }
  return makeSecretBox(key);
}
