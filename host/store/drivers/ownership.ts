// Which store entities the inventory made, kept in the store's meta table (no schema change):
// a reload removes those the inventory no longer lists and leaves alone the ones made through
// the API. Ids whose entity has since been deleted (through the API) are forgotten on read.
import { writeInventoryDriverCode } from './inventory-driver-code.js';
import type { Store } from '../store.js';

const META_KEY = 'agent_inventory_entities';
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
  await writeInventoryDriverCode(store, driverCode);
}

/** Is this entity one the inventory made? (The API may use it to explain a refusal.) */
export async function isInventoryOwned(store: Store, kind: 'device' | 'driver' | 'association', id: number): Promise<boolean> {
  const o = await readOwnership(store);
  if (kind === 'device') return Object.values(o.devices).some((d) => d.id === id);
  return Object.values(kind === 'driver' ? o.drivers : o.associations).includes(id);
}
