// Versioned schema migrations. The schema version lives in SQLite's user_version; each
// migration runs in its own transaction, so a store is always at one whole version. A store
// written by a newer driverbox is refused rather than guessed at.
import type Database from 'better-sqlite3';
import { accountSchema } from './schema/account.js';
import { configurationsSchema } from './schema/configurations.js';
import { coreSchema } from './schema/core.js';
import { deviceAdditionsSchema } from './schema/device-additions.js';
import { driversSchema } from './schema/drivers.js';
import { marketplaceSchema } from './schema/marketplace.js';
import { monitoringSchema } from './schema/monitoring.js';
import { networkingSchema } from './schema/networking.js';
import { resultsSchema } from './schema/results.js';
import { StoreError } from './store-error.js';

export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    up(db) {
      db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
      db.exec(coreSchema);
      db.exec(driversSchema);
      db.exec(resultsSchema);
      db.exec(monitoringSchema);
    },
  },
  {
    version: 2,
    name: 'marketplace accounts',
    up(db) {
      db.exec(marketplaceSchema);
    },
  },
  {
    version: 3,
    name: 'configuration backups',
    up(db) {
      db.exec(configurationsSchema);
    },
  },
  {
    version: 4,
    name: 'inventory, company and alert profiles',
    up(db) {
      db.exec(accountSchema);
    },
  },
  { version: 5, name: 'device additions of 1.14.0', up: (db) => db.exec(deviceAdditionsSchema) },
  { version: 6, name: 'agent networking, camera snapshots, API usage', up: (db) => db.exec(networkingSchema) },
];

export const SCHEMA_VERSION = migrations[migrations.length - 1]!.version;

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Brings the store up to SCHEMA_VERSION; answers the versions applied. */
export function migrate(db: Database.Database, path: string): number[] {
  const current = schemaVersion(db);
  if (current > SCHEMA_VERSION) {
    throw new StoreError(
      'STORE_TOO_NEW',
      `${path} has schema version ${current}, newer than this driverbox understands (${SCHEMA_VERSION}); upgrade driverbox`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
    applied.push(migration.version);
  }
  return applied;
}
