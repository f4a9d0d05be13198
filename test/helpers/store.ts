// The store a test opens: SQLite in memory, or, when the suite runs with
// DRIVERBOX_TEST_STORE=postgres, a fresh database of the PostgreSQL server that
// test/global-setup.ts started (copied from a migrated template, dropped on close). One test
// code, both databases: what passes on one must pass on the other.
import type Database from 'better-sqlite3';
import pg from 'pg';
import { openStore, type Store, type StoreOptions } from '../../host/store/store.js';
import type { MigrationContext } from '../../host/store/db/migrations.js';

export type TestDialect = 'sqlite' | 'postgres';

export function testDialect(): TestDialect {
  return process.env.DRIVERBOX_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
}

/** The test server's URL of a database (postgres mode only). */
export function testPostgresUrl(database = 'postgres'): string {
  const base = process.env.DRIVERBOX_TEST_PG_URL;
  if (!base) throw new Error('DRIVERBOX_TEST_STORE=postgres, but no test PostgreSQL server was started (test/global-setup.ts)');
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
}

export const TEMPLATE_DATABASE = 'driverbox_template';
let counter = 0;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty, migrated database (postgres mode); its URL. */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${process.pid}_${++counter}_${Date.now().toString(36)}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`));
  return {
    url: testPostgresUrl(name),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** A new, empty store on the suite's database. */
export async function openTestStore(options: Omit<StoreOptions, 'path'> = {}): Promise<Store> {
  if (testDialect() === 'sqlite') return openStore({ ...options, path: ':memory:' });
  const database = await freshPostgresDatabase();
  const store = await openStore({ ...options, path: database.url });
  const close = store.close.bind(store);
  store.close = async () => {
    const wasOpen = store.open;
    await close();
    if (wasOpen) await database.drop();
  };
  return store;
}

/** Runs a migration's DDL on a bare better-sqlite3 database (tests that build an old store). */
export function rawMigration(raw: Database.Database): MigrationContext {
  return { dialect: 'sqlite', exec: async (ddl) => void raw.exec(ddl) };
}
