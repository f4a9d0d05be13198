// The custom inventory: fields defined once for the account (a key and a label), and each
// device's values of them. Deleting a field, or the device, deletes its values.
import { OWNER_USER_ID } from './company.js';
import type { Store } from '../store.js';

export interface InventoryFieldRow {
  key: string;
  label: string;
  creationTime: number;
  definedByUser: number;
}

export interface DeviceInventoryValue {
  key: string;
  value: string;
  /** When the device's value was first set (ms). */
  creationTime: number;
}

interface FieldDbRow {
  key: string;
  label: string;
  creation_time: number;
  defined_by_user: number;
}

const field = (row: FieldDbRow): InventoryFieldRow => ({
  key: row.key,
  label: row.label,
  creationTime: row.creation_time,
  definedByUser: row.defined_by_user,
});

/** Every field, oldest first. */
export async function listInventoryFields(store: Store): Promise<InventoryFieldRow[]> {
  return (await store.statement<[], FieldDbRow>('SELECT * FROM inventory_fields ORDER BY creation_time, rowid').all()).map(field);
}

export async function getInventoryField(store: Store, key: string): Promise<InventoryFieldRow | undefined> {
  const row = await store.statement<[string], FieldDbRow>('SELECT * FROM inventory_fields WHERE key = ?').get(key);
  return row ? field(row) : undefined;
}

/** Defines a field; false when one with that key exists (nothing changed). */
export async function createInventoryField(store: Store, key: string, label: string, definedByUser = OWNER_USER_ID): Promise<boolean> {
  const info = await store
    .statement('INSERT INTO inventory_fields (key, label, creation_time, defined_by_user) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING')
    .run(key, label, store.now(), definedByUser);
  return info.changes === 1;
}

/** Changes a field's label; false when there is no such field. */
export async function updateInventoryField(store: Store, key: string, label: string): Promise<boolean> {
  return (await store.statement('UPDATE inventory_fields SET label = ? WHERE key = ?').run(label, key)).changes === 1;
}

/** Deletes a field and every device's value of it; false when there is no such field. */
export async function deleteInventoryField(store: Store, key: string): Promise<boolean> {
  return (await store.statement('DELETE FROM inventory_fields WHERE key = ?').run(key)).changes === 1;
}

/** Deletes the fields a user defined, with their values; answers how many there were. */
export async function clearInventory(store: Store, definedByUser = OWNER_USER_ID): Promise<number> {
  return (await store.statement('DELETE FROM inventory_fields WHERE defined_by_user = ?').run(definedByUser)).changes;
}

/** The device's values, by key (alphabetically, as the reference lists them). */
export async function listDeviceInventory(store: Store, deviceId: number): Promise<DeviceInventoryValue[]> {
  return (await store
    .statement<[number], { key: string; value: string; creation_time: number }>(
      'SELECT key, value, creation_time FROM device_inventory_values WHERE device_id = ? ORDER BY key',
    )
    .all(deviceId))
    .map((row) => ({ key: row.key, value: row.value, creationTime: row.creation_time }));
}

/** Sets the device's value of a defined field (the caller checks that it is). */
export async function setDeviceInventoryValue(store: Store, deviceId: number, key: string, value: string): Promise<void> {
  await store
    .statement(
      `INSERT INTO device_inventory_values (device_id, key, value, creation_time) VALUES (?, ?, ?, ?)
       ON CONFLICT (device_id, key) DO UPDATE SET value = excluded.value`,
    )
    .run(deviceId, key, value, store.now());
}

/** Removes the device's value of a field; false when it had none. */
export async function deleteDeviceInventoryValue(store: Store, deviceId: number, key: string): Promise<boolean> {
  return (await store.statement('DELETE FROM device_inventory_values WHERE device_id = ? AND key = ?').run(deviceId, key)).changes === 1;
}
