// Which store entities the inventory made, kept in the store's meta table (no schema change):
// a reload removes those the inventory no longer lists and leaves alone the ones made through
// the API. Ids whose entity has since been deleted (through the API) are forgotten on read.
import type { Store } from '../../store/store.js';

const META_KEY = 'agent_inventory_entities';
/**
 * The inventory's drivers as code: driver id → SHA-256 of the file the inventory loaded for it
 * (driverCodeHash). Every run reads it (its external-host policy: the operator's policy only for
 * the operator's code, byte for byte), so it is a short record of its own beside the whole one.
 */
const DRIVER_CODE_META_KEY = 'agent_inventory_driver_code';
/** Before code hashes: the inventory's driver ids alone. A privilege by id, so removed on write and never read. */
const OLD_DRIVER_IDS_META_KEY = 'agent_inventory_driver_ids';

/** Driver id → SHA-256 (hex) of the operator's file for it. */
export type InventoryDriverCode = ReadonlyMap<number, string>;

export interface InventoryOwnership {
  /** Device name → id, and whether the inventory set its credentials (so it may remove them). */
  devices: Record<string, { id: number; credentials: boolean }>;
  drivers: Record<string, number>;
  /** `driver@device` → association id. */
  associations: Record<string, number>;
}

export async function readOwnership(store: Store): Promise<InventoryOwnership> {
  const row = await store.statement<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(META_KEY);
  const saved = row ? (JSON.parse(row.value) as Partial<InventoryOwnership>) : {};
  // One statement per table, not one per entity: the record lists every device of the inventory.
  const keep = async <T>(entries: Record<string, T> | undefined, table: string, idOf: (v: T) => number): Promise<Record<string, T>> => {
    const kept: Record<string, T> = {};
    const listed = Object.entries(entries ?? {});
    if (listed.length === 0) return kept;
    const ids = new Set((await store.statement<[], { id: number }>(`SELECT id FROM ${table}`).all()).map((r) => Number(r.id)));
    for (const [key, v] of listed) if (ids.has(idOf(v))) kept[key] = v;
    return kept;
  };
  return {
    devices: await keep(saved.devices, 'devices', (v) => v.id),
    drivers: await keep(saved.drivers, 'custom_drivers', (v) => v),
    associations: await keep(saved.associations, 'custom_driver_associations', (v) => v),
  };
}

/** Writes the record and the hashes of the inventory's driver files (driver id → driverCodeHash of the file as loaded). */
export async function writeOwnership(store: Store, ownership: InventoryOwnership, driverCode: Readonly<Record<number, string>>): Promise<void> {
  const upsert = store.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  await upsert.run(META_KEY, JSON.stringify(ownership));
  await upsert.run(DRIVER_CODE_META_KEY, JSON.stringify(driverCode));
  await store.statement('DELETE FROM meta WHERE key = ?').run(OLD_DRIVER_IDS_META_KEY);
}

let lastDriverCode: { raw: string; code: InventoryDriverCode } | null = null;

/**
 * The hashes of the inventory's driver files by driver id, read per run to choose a run's
 * external-host policy; cached on the stored text, so an unchanged inventory is parsed once.
 * A store synced before the hashes existed has none: its inventory drivers get the uploaded
 * drivers' policy until the agent syncs its inventory again (it does at every start).
 */
export async function inventoryDriverCode(store: Store): Promise<InventoryDriverCode> {
  const row = await store.statement<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(DRIVER_CODE_META_KEY);
  return driverCodeOf(row?.value ?? null);
}

/** A column for a statement a run reads anyway (its target row): the record of driver hashes, so the run reads no meta row of its own. */
export const INVENTORY_DRIVER_COLUMNS = `(SELECT value FROM meta WHERE key = '${DRIVER_CODE_META_KEY}') AS inventory_driver_code`;

export interface InventoryDriverColumns {
  inventory_driver_code: string | null;
}

/** inventoryDriverCode from the INVENTORY_DRIVER_COLUMNS of a row. */
export function inventoryDriverCodeFrom(row: InventoryDriverColumns): InventoryDriverCode {
  return driverCodeOf(row.inventory_driver_code);
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function driverCodeOf(raw: string | null): InventoryDriverCode {
  if (raw === null) return new Map();
  if (lastDriverCode?.raw !== raw) {
    const parsed = JSON.parse(raw) as unknown;
    const code = new Map<number, string>();
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      for (const [id, hash] of Object.entries(parsed)) {
        if (/^[1-9][0-9]{0,9}$/.test(id) && typeof hash === 'string' && SHA256_HEX.test(hash)) code.set(Number(id), hash);
      }
    }
    lastDriverCode = { raw, code };
  }
  return lastDriverCode.code;
}

/** Is this entity one the inventory made? (The API may use it to explain a refusal.) */
export async function isInventoryOwned(store: Store, kind: 'device' | 'driver' | 'association', id: number): Promise<boolean> {
  const o = await readOwnership(store);
  if (kind === 'device') return Object.values(o.devices).some((d) => d.id === id);
  return Object.values(kind === 'driver' ? o.drivers : o.associations).includes(id);
}
