// Versioned schema migrations, one set for both databases. Each migration's DDL is written once
// in the SQL SQLite reads; postgres-ddl.ts turns it into PostgreSQL's (types, identity ids,
// quoted reserved words), and the few places the two must differ are decided by `dialect` inside
// the migration. SQLite keeps the version in user_version and runs each migration in its own
// transaction; PostgreSQL keeps it in driverbox_schema and migrates in one transaction under an
// advisory lock, so several processes opening one database at once migrate it once. A store
// written by a newer driverbox is refused rather than guessed at.
import { sql } from 'kysely';
import type { SqlDialect, StoreKysely } from './database.js';
import { postgresDdl, splitStatements } from './postgres-ddl.js';
import { accountSchema } from './schema/account.js';
import { configurationsSchema } from './schema/configurations.js';
import { coreSchema } from './schema/core.js';
import { deviceAdditionsSchema } from './schema/device-additions.js';
import { driversSchema } from './schema/drivers.js';
import { marketplaceSchema } from './schema/marketplace.js';
import { monitoringSchema } from './schema/monitoring.js';
import { networkingSchema } from './schema/networking.js';
import { resultsSchema } from './schema/results.js';
import { scaleOutSchema } from './schema/scale-out.js';
import { associationBackoffSchema } from './schema/association-backoff.js';
import { tableCellMetadataSchema } from './schema/table-cell-metadata.js';
import { associationHealthSchema } from './schema/association-health.js';
import { StoreError } from '../../contract/errors.js';

/** What a migration may do: run DDL (written for SQLite, translated for Postgres) on either database. */
export interface MigrationContext {
  dialect: SqlDialect;
  exec(ddl: string): Promise<void>;
}

export interface Migration {
  version: number;
  name: string;
  up(ctx: MigrationContext): Promise<void>;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    async up(ctx) {
      await ctx.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
      await ctx.exec(coreSchema);
      await ctx.exec(driversSchema);
      await ctx.exec(resultsSchema);
      await ctx.exec(monitoringSchema);
    },
  },
  { version: 2, name: 'marketplace accounts', up: (ctx) => ctx.exec(marketplaceSchema) },
  { version: 3, name: 'configuration backups', up: (ctx) => ctx.exec(configurationsSchema) },
  { version: 4, name: 'inventory, company and alert profiles', up: (ctx) => ctx.exec(accountSchema) },
  { version: 5, name: 'device additions of 1.14.0', up: (ctx) => ctx.exec(deviceAdditionsSchema) },
  { version: 6, name: 'agent networking, camera snapshots, API usage', up: (ctx) => ctx.exec(networkingSchema) },
  { version: 7, name: 'scale-out: run slots, shared device state', up: (ctx) => ctx.exec(scaleOutSchema) },
  { version: 8, name: 'association backoff after limit hits', up: (ctx) => ctx.exec(associationBackoffSchema) },
  { version: 9, name: 'table cell metadata (addMetrics)', up: (ctx) => ctx.exec(tableCellMetadataSchema) },
  { version: 10, name: 'association health and its success counts', up: (ctx) => ctx.exec(associationHealthSchema) },
];

export const SCHEMA_VERSION = migrations[migrations.length - 1]!.version;

function context(db: StoreKysely, dialect: SqlDialect): MigrationContext {
  return {
    dialect,
    async exec(ddl) {
      const text = dialect === 'postgres' ? postgresDdl(ddl) : ddl;
      for (const statement of splitStatements(text)) await sql.raw(statement).execute(db);
    },
  };
}

function tooNew(location: string, current: number): StoreError {
  return new StoreError(
    'STORE_TOO_NEW',
    `${location} has schema version ${current}, newer than this driverbox understands (${SCHEMA_VERSION}); upgrade driverbox`,
  );
}

export async function schemaVersion(db: StoreKysely, dialect: SqlDialect): Promise<number> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ user_version: number }>`PRAGMA user_version`.execute(db);
    return rows[0]?.user_version ?? 0;
  }
  await sql`CREATE TABLE IF NOT EXISTS driverbox_schema (version INTEGER NOT NULL)`.execute(db);
  const { rows } = await sql<{ version: number }>`SELECT version FROM driverbox_schema`.execute(db);
  return rows[0]?.version ?? 0;
}

/**
 * Rows a migration inserted with their ids (the built-in alert profiles) did not move their
 * table's identity sequence, as SQLite's rowid moves: set each past the highest id, so the
 * next row the database numbers does not collide.
 */
async function syncIdentitySequences(db: StoreKysely): Promise<void> {
  const { rows } = await sql<{ table_name: string }>`
    SELECT table_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'id' AND is_identity = 'YES'`.execute(db);
  for (const { table_name: table } of rows) {
    await sql
      .raw(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce((SELECT max(id) FROM ${table}), 0) + 1, false)`)
      .execute(db);
  }
}

/** An arbitrary constant: the advisory lock every driverbox process migrates under. */
const MIGRATION_LOCK = 0x64627378;

/** Brings the store up to SCHEMA_VERSION; answers the versions applied. */
export async function migrate(db: StoreKysely, dialect: SqlDialect, location: string): Promise<number[]> {
  const applied: number[] = [];
  if (dialect === 'postgres') {
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
      const current = await schemaVersion(trx, dialect);
      if (current > SCHEMA_VERSION) throw tooNew(location, current);
      for (const migration of migrations) {
        if (migration.version <= current) continue;
        await migration.up(context(trx, dialect));
        applied.push(migration.version);
      }
      if (applied.length) {
        await syncIdentitySequences(trx);
        await sql`DELETE FROM driverbox_schema`.execute(trx);
        await sql`INSERT INTO driverbox_schema (version) VALUES (${SCHEMA_VERSION})`.execute(trx);
      }
    });
    return applied;
  }
  const current = await schemaVersion(db, dialect);
  if (current > SCHEMA_VERSION) throw tooNew(location, current);
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    await db.transaction().execute(async (trx) => {
      await migration.up(context(trx, dialect));
      await sql.raw(`PRAGMA user_version = ${migration.version}`).execute(trx);
    });
    applied.push(migration.version);
  }
  return applied;
}
