// Which store entities the inventory made, kept in the store's meta table (no schema change):
// a reload removes those the inventory no longer lists and leaves alone the ones made through
// the API. Ids whose entity has since been deleted (through the API) are forgotten on read.
import type { Store } from '../../store/store.js';

const META_KEY = 'agent_inventory_entities';
/**
 * The inventory's driver ids alone, written beside the whole record: every run reads them (its
 * external-host policy), and the whole record grows with the devices (~70 bytes each).
 */
const DRIVERS_META_KEY = 'agent_inventory_driver_ids';

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

export async function writeOwnership(store: Store, ownership: InventoryOwnership): Promise<void> {
  const upsert = store.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  await upsert.run(META_KEY, JSON.stringify(ownership));
  await upsert.run(DRIVERS_META_KEY, JSON.stringify(Object.values(ownership.drivers)));
}

let lastDriverIds: { raw: string; ids: ReadonlySet<number> } | null = null;

/**
 * Ids of the drivers the inventory made (the operator's own code), read per run to choose a
 * run's external-host policy: the short record of driver ids (a store synced before it existed:
 * the whole record), cached on the stored text, so an unchanged inventory is parsed once.
 */
export async function inventoryDriverIds(store: Store): Promise<ReadonlySet<number>> {
  // Both keys in one statement: a run pays one read whether or not the short record exists.
  const rows = await store.statement<[string, string], { key: string; value: string }>('SELECT key, value FROM meta WHERE key IN (?, ?)').all(DRIVERS_META_KEY, META_KEY);
  const row = rows.find((r) => r.key === DRIVERS_META_KEY) ?? rows.find((r) => r.key === META_KEY);
  return row ? driverIdsOf(row.value) : new Set();
}

/**
 * Columns for a statement a run reads anyway (its target row): the short record of driver ids,
 * and whether the whole record is there, so the run reads no meta row of its own.
 */
export const INVENTORY_DRIVER_COLUMNS = `(SELECT value FROM meta WHERE key = '${DRIVERS_META_KEY}') AS inventory_driver_ids,
  (SELECT 1 FROM meta WHERE key = '${META_KEY}') AS inventory_record`;

export interface InventoryDriverColumns {
  inventory_driver_ids: string | null;
  inventory_record: unknown;
}

/** inventoryDriverIds from the INVENTORY_DRIVER_COLUMNS of a row: a statement only for a store synced before the short record. */
export async function inventoryDriverIdsFrom(store: Store, row: InventoryDriverColumns): Promise<ReadonlySet<number>> {
  if (row.inventory_driver_ids !== null) return driverIdsOf(row.inventory_driver_ids);
  return row.inventory_record === null || row.inventory_record === undefined ? new Set() : await inventoryDriverIds(store);
}

function driverIdsOf(raw: string): ReadonlySet<number> {
  if (lastDriverIds?.raw !== raw) {
    const parsed = JSON.parse(raw) as unknown;
    const ids = Array.isArray(parsed) ? parsed : Object.values((parsed as Partial<InventoryOwnership>).drivers ?? {});
    lastDriverIds = { raw, ids: new Set(ids.filter((id): id is number => Number.isInteger(id))) };
  }
  return lastDriverIds.ids;
}

/** Is this entity one the inventory made? (The API may use it to explain a refusal.) */
export async function isInventoryOwned(store: Store, kind: 'device' | 'driver' | 'association', id: number): Promise<boolean> {
  const o = await readOwnership(store);
  if (kind === 'device') return Object.values(o.devices).some((d) => d.id === id);
  return Object.values(kind === 'driver' ? o.drivers : o.associations).includes(id);
}
