// The store's marketplace part: migration 2 over a version 1 store, and the functions an
// embedding program calls (usage, status, quantities) with their errors.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../host/store/db/better-sqlite3.js';
import { sqliteKysely } from '../../host/store/db/database.js';
import { describe, expect, it } from 'vitest';
import { migrate, migrations, SCHEMA_VERSION, schemaVersion } from '../../host/store/db/migrations.js';
import {
  createMarketplaceAccount,
  getMarketplaceAccount,
  getMarketplaceHistory,
  setMarketplaceQuantities,
  setMarketplaceStatus,
  setMarketplaceUsage,
} from '../../host/store/marketplace/accounts.js';
import { openStore, StoreError } from '../../host/store/index.js';
import { getAgent } from '../../host/store/fleet/agents.js';
import { openTestStore, rawMigration } from '../helpers/store.js';

const newAccount = (email: string) => ({
  email,
  model: 'DEVICE' as const,
  accountStatus: 'ACTIVE' as const,
  country: 'FR',
  privacyPolicy: '1.0',
  termsAndConditions: '1.0',
  quantities: { MANAGED_DEVICES: 5 },
});

describe('migration 2 (marketplace accounts)', () => {
  it('upgrades a version 1 store in place, keeping its data', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'driverbox-market-')), 'v1.db');
    // A store as driverbox wrote it before migration 2 existed.
    const raw = openDatabase(path);
        await migrations.find((m) => m.version === 1)!.up(rawMigration(raw));
    raw.pragma('user_version = 1');
    raw.prepare("INSERT INTO agents (display_name, creation_time, status_last_change) VALUES ('old site', 1000, 1000)").run();
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'marketplace%'").all()).toEqual([]);
    raw.close();

    const store = await openStore({ path });
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2); // later migrations apply on top
    expect((await schemaVersion(store.kysely, store.dialect))).toBe(SCHEMA_VERSION);
    expect((await getAgent(store, 1))?.displayName).toBe('old site');
    const tables = (await store.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'marketplace%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    expect(tables).toEqual(['marketplace_accounts', 'marketplace_products', 'marketplace_quantity_changes', 'marketplace_status_changes']);
    await createMarketplaceAccount(store, newAccount('after@example.com'));
    await store.close();
    // Reopened: nothing left to apply, the account is there.
    const again = openDatabase(path);
    expect(await migrate(sqliteKysely(again), 'sqlite', path)).toEqual([]);
    again.close();
    const reopened = await openStore({ path });
    expect((await getMarketplaceAccount(reopened, 'after@example.com'))?.products.MANAGED_DEVICES).toEqual({ quantity: 5, used: 0 });
    await reopened.close();
  });

  it('applies version 2 (and the later ones) to a version 1 database', async () => {
    const db = openDatabase(':memory:');
    await migrations[0]!.up(rawMigration(db));
    db.pragma('user_version = 1');
    expect(await migrate(sqliteKysely(db), 'sqlite', ':memory:')).toEqual(migrations.filter((m) => m.version >= 2).map((m) => m.version));
    db.close();
  });
});

describe('store functions', () => {
  it('setMarketplaceUsage sets `used` of a product of the model, refusing others and bad numbers', async () => {
    const store = await openTestStore();
    await createMarketplaceAccount(store, newAccount('u@example.com'));
    await setMarketplaceUsage(store, 'u@example.com', 'MANAGED_DEVICES', 3);
    expect((await getMarketplaceAccount(store, 'u@example.com'))?.products).toEqual({
      TEAM_MEMBERS: { quantity: 0, used: 0 },
      MANAGED_DEVICES: { quantity: 5, used: 3 },
    });
    await expect(async () => await setMarketplaceUsage(store, 'u@example.com', 'AGENTS', 1)).rejects.toThrow('AGENTS is not a product of the DEVICE model (its products: TEAM_MEMBERS, MANAGED_DEVICES)');
    await expect(async () => await setMarketplaceUsage(store, 'u@example.com', 'MANAGED_DEVICES', -1)).rejects.toThrow('MANAGED_DEVICES used must be an integer from 0 to 2147483647, not -1');
    await expect(async () => await setMarketplaceUsage(store, 'nobody@example.com', 'MANAGED_DEVICES', 1)).rejects.toThrow(StoreError);
    await store.close();
  });

  it('writes history only for real changes, at the store clock', async () => {
    let now = 1_000;
    const store = await openTestStore({ clock: () => now });
    const account = await createMarketplaceAccount(store, newAccount('h@example.com'));
    now = 2_000;
    expect(await setMarketplaceQuantities(store, 'h@example.com', { MANAGED_DEVICES: 5, TEAM_MEMBERS: 2 })).toEqual(['TEAM_MEMBERS']);
    expect(await setMarketplaceStatus(store, 'h@example.com', 'ACTIVE')).toBe(false);
    now = 3_000;
    expect(await setMarketplaceStatus(store, 'h@example.com', 'SUSPENDED')).toBe(true);
    expect(await getMarketplaceHistory(store, account.id)).toEqual({
      statuses: [
        { time: 1_000, accountStatus: 'ACTIVE' },
        { time: 3_000, accountStatus: 'SUSPENDED' },
      ],
      quantities: [
        { time: 1_000, product: 'TEAM_MEMBERS', quantity: 0 },
        { time: 1_000, product: 'MANAGED_DEVICES', quantity: 5 },
        { time: 2_000, product: 'TEAM_MEMBERS', quantity: 2 },
      ],
    });
    await expect(async () => await setMarketplaceQuantities(store, 'h@example.com', { AGENTS: 1 })).rejects.toThrow(/AGENTS is not a product of the DEVICE model/);
    await store.close();
  });
});
