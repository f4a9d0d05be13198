// The custom inventory: fields defined once for the account (a key and a label), and each
// device's values of them. Deleting a field, or the device, deletes its values.
import { OWNER_USER_ID } from './company.js';
import type { Store } from './store.js';

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
export function listInventoryFields(store: Store): InventoryFieldRow[] {
  return store.statement<[], FieldDbRow>('SELECT * FROM inventory_fields ORDER BY creation_time, rowid').all().map(field);
}

export function getInventoryField(store: Store, key: string): InventoryFieldRow | undefined {
  const row = store.statement<[string], FieldDbRow>('SELECT * FROM inventory_fields WHERE key = ?').get(key);
  return row ? field(row) : undefined;
}

/** Defines a field; false when one with that key exists (nothing changed). */
export function createInventoryField(store: Store, key: string, label: string, definedByUser = OWNER_USER_ID): boolean {
  const info = store
    .statement('INSERT OR IGNORE INTO inventory_fields (key, label, creation_time, defined_by_user) VALUES (?, ?, ?, ?)')
    .run(key, label, store.now(), definedByUser);
  return info.changes === 1;
}

/** Changes a field's label; false when there is no such field. */
export function updateInventoryField(store: Store, key: string, label: string): boolean {
  return store.statement('UPDATE inventory_fields SET label = ? WHERE key = ?').run(label, key).changes === 1;
}

/** Deletes a field and every device's value of it; false when there is no such field. */
export function deleteInventoryField(store: Store, key: string): boolean {
  return store.statement('DELETE FROM inventory_fields WHERE key = ?').run(key).changes === 1;
}

/** Deletes the fields a user defined, with their values; answers how many there were. */
export function clearInventory(store: Store, definedByUser = OWNER_USER_ID): number {
  return store.statement('DELETE FROM inventory_fields WHERE defined_by_user = ?').run(definedByUser).changes;
}

/** The device's values, by key (alphabetically, as the reference lists them). */
export function listDeviceInventory(store: Store, deviceId: number): DeviceInventoryValue[] {
  return store
    .statement<[number], { key: string; value: string; creation_time: number }>(
      'SELECT key, value, creation_time FROM device_inventory_values WHERE device_id = ? ORDER BY key',
    )
    .all(deviceId)
    .map((row) => ({ key: row.key, value: row.value, creationTime: row.creation_time }));
}

/** Sets the device's value of a defined field (the caller checks that it is). */
export function setDeviceInventoryValue(store: Store, deviceId: number, key: string, value: string): void {
  store
    .statement(
      `INSERT INTO device_inventory_values (device_id, key, value, creation_time) VALUES (?, ?, ?, ?)
       ON CONFLICT (device_id, key) DO UPDATE SET value = excluded.value`,
    )
    .run(deviceId, key, value, store.now());
}

/** Removes the device's value of a field; false when it had none. */
export function deleteDeviceInventoryValue(store: Store, deviceId: number, key: string): boolean {
  return store.statement('DELETE FROM device_inventory_values WHERE device_id = ? AND key = ?').run(deviceId, key).changes === 1;
}
