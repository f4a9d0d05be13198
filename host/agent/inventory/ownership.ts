// Which store entities the inventory made, kept in the store's meta table (no schema change):
// a reload removes those the inventory no longer lists and leaves alone the ones made through
// the API. Ids whose entity has since been deleted (through the API) are forgotten on read.
import type { Store } from '../../store/store.js';

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
  const exists = async (table: string, id: number) => !!await store.statement(`SELECT 1 FROM ${table} WHERE id = ?`).get(id);
  const keep = async <T>(entries: Record<string, T> | undefined, table: string, idOf: (v: T) => number): Promise<Record<string, T>> => {
    const kept: Record<string, T> = {};
    for (const [key, v] of Object.entries(entries ?? {})) if (await exists(table, idOf(v))) kept[key] = v;
    return kept;
  };
  return {
    devices: await keep(saved.devices, 'devices', (v) => v.id),
    drivers: await keep(saved.drivers, 'custom_drivers', (v) => v),
    associations: await keep(saved.associations, 'custom_driver_associations', (v) => v),
  };
}

export async function writeOwnership(store: Store, ownership: InventoryOwnership): Promise<void> {
  await store.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(META_KEY, JSON.stringify(ownership));
}

let lastDriverIds: { raw: string; ids: ReadonlySet<number> } | null = null;

/**
 * Ids of the drivers the inventory made (the operator's own code), read per run to choose a
 * run's external-host policy: cached on the stored text, so an unchanged inventory is parsed once.
 */
export async function inventoryDriverIds(store: Store): Promise<ReadonlySet<number>> {
  const row = await store.statement<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(META_KEY);
  if (!row) return new Set();
  if (lastDriverIds?.raw !== row.value) {
    const drivers = (JSON.parse(row.value) as Partial<InventoryOwnership>).drivers ?? {};
    lastDriverIds = { raw: row.value, ids: new Set(Object.values(drivers).filter((id) => Number.isInteger(id))) };
  }
  return lastDriverIds.ids;
}

/** Is this entity one the inventory made? (The API may use it to explain a refusal.) */
export async function isInventoryOwned(store: Store, kind: 'device' | 'driver' | 'association', id: number): Promise<boolean> {
  const o = await readOwnership(store);
  if (kind === 'device') return Object.values(o.devices).some((d) => d.id === id);
  return Object.values(kind === 'driver' ? o.drivers : o.associations).includes(id);
}
