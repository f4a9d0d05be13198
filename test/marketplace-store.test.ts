// The store's marketplace part: migration 2 over a version 1 store, and the functions an
// embedding program calls (usage, status, quantities) with their errors.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../host/store/better-sqlite3.js';
import { describe, expect, it } from 'vitest';
import { migrate, migrations } from '../host/store/migrations.js';
import {
  createMarketplaceAccount,
  getMarketplaceAccount,
  getMarketplaceHistory,
  setMarketplaceQuantities,
  setMarketplaceStatus,
  setMarketplaceUsage,
} from '../host/store/marketplace.js';
import { openStore, SCHEMA_VERSION, StoreError } from '../host/store/index.js';
import { getAgent } from '../host/store/agents.js';

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
  it('upgrades a version 1 store in place, keeping its data', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'driverbox-market-')), 'v1.db');
    // A store as driverbox wrote it before migration 2 existed.
    const raw = openDatabase(path);
    raw.transaction(() => {
      migrations.find((m) => m.version === 1)!.up(raw);
      raw.pragma('user_version = 1');
    })();
    raw.prepare("INSERT INTO agents (display_name, creation_time, status_last_change) VALUES ('old site', 1000, 1000)").run();
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'marketplace%'").all()).toEqual([]);
    raw.close();

    const store = openStore({ path });
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2); // later migrations apply on top
    expect(store.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(getAgent(store, 1)?.displayName).toBe('old site');
    const tables = (store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'marketplace%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
    expect(tables).toEqual(['marketplace_accounts', 'marketplace_products', 'marketplace_quantity_changes', 'marketplace_status_changes']);
    createMarketplaceAccount(store, newAccount('after@example.com'));
    store.close();
    // Reopened: nothing left to apply, the account is there.
    const again = openDatabase(path);
    expect(migrate(again, path)).toEqual([]);
    again.close();
    const reopened = openStore({ path });
    expect(getMarketplaceAccount(reopened, 'after@example.com')?.products.MANAGED_DEVICES).toEqual({ quantity: 5, used: 0 });
    reopened.close();
  });

  it('applies version 2 (and the later ones) to a version 1 database', () => {
    const db = openDatabase(':memory:');
    migrations[0]!.up(db);
    db.pragma('user_version = 1');
    expect(migrate(db, ':memory:')).toEqual(migrations.filter((m) => m.version >= 2).map((m) => m.version));
    db.close();
  });
});

describe('store functions', () => {
  it('setMarketplaceUsage sets `used` of a product of the model, refusing others and bad numbers', () => {
    const store = openStore({ path: ':memory:' });
    createMarketplaceAccount(store, newAccount('u@example.com'));
    setMarketplaceUsage(store, 'u@example.com', 'MANAGED_DEVICES', 3);
    expect(getMarketplaceAccount(store, 'u@example.com')?.products).toEqual({
      TEAM_MEMBERS: { quantity: 0, used: 0 },
      MANAGED_DEVICES: { quantity: 5, used: 3 },
    });
    expect(() => setMarketplaceUsage(store, 'u@example.com', 'AGENTS', 1)).toThrow('AGENTS is not a product of the DEVICE model (its products: TEAM_MEMBERS, MANAGED_DEVICES)');
    expect(() => setMarketplaceUsage(store, 'u@example.com', 'MANAGED_DEVICES', -1)).toThrow('MANAGED_DEVICES used must be an integer from 0 to 2147483647, not -1');
    expect(() => setMarketplaceUsage(store, 'nobody@example.com', 'MANAGED_DEVICES', 1)).toThrow(StoreError);
    store.close();
  });

  it('writes history only for real changes, at the store clock', () => {
    let now = 1_000;
    const store = openStore({ path: ':memory:', clock: () => now });
    const account = createMarketplaceAccount(store, newAccount('h@example.com'));
    now = 2_000;
    expect(setMarketplaceQuantities(store, 'h@example.com', { MANAGED_DEVICES: 5, TEAM_MEMBERS: 2 })).toEqual(['TEAM_MEMBERS']);
    expect(setMarketplaceStatus(store, 'h@example.com', 'ACTIVE')).toBe(false);
    now = 3_000;
    expect(setMarketplaceStatus(store, 'h@example.com', 'SUSPENDED')).toBe(true);
    expect(getMarketplaceHistory(store, account.id)).toEqual({
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
    expect(() => setMarketplaceQuantities(store, 'h@example.com', { AGENTS: 1 })).toThrow(/AGENTS is not a product of the DEVICE model/);
    store.close();
  });
});
