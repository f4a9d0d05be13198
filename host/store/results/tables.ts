// Tables a driver reported for a device (D.createTable): the latest table per device,
// association and label replaces the one before it; tables keep no history. A device has at
// most StoreBounds.tablesPerDevice of them: a driver naming new tables every run would
// otherwise grow its device without end.
import { parseJsonColumn } from '../db/json-column.js';
import type { Store } from '../store.js';
import type { TableRecord } from '../../contract/run-result.js';

export interface DeviceTableRow {
  id: number;
  deviceId: number;
  associationId: number | null;
  label: string;
  columns: TableRecord['columnHeaders'];
  rows: TableRecord['rows'];
  /** Only for a table whose rows carry cell metadata (addMetrics). */
  cellMetadata?: NonNullable<TableRecord['cellMetadata']>;
  updateTime: number;
}

interface DeviceTableDbRow {
  id: number;
  device_id: number;
  association_id: number | null;
  label: string;
  columns: string;
  rows: string;
  cell_metadata: string | null;
  update_time: number;
}

/**
 * A bound on the device's tables (StoreBounds.tablesPerDevice): a new label past `max` is not
 * written, its label pushed to `refused`; a table the device has is always replaced.
 */
export interface TableBound {
  max: number | null;
  refused: string[];
}

/**
 * Writes a table over the one of the same device, association and label (its id is kept);
 * answers its id, or null when the bound refused a new one.
 */
export async function writeDeviceTable(store: Store, deviceId: number, associationId: number | null, table: TableRecord, at: number = store.now(), bound?: TableBound): Promise<number | null> {
  const columns = JSON.stringify(table.columnHeaders);
  const rows = JSON.stringify(table.rows);
  const cellMetadata = table.cellMetadata ? JSON.stringify(table.cellMetadata) : null;
  const existing = await store
    .statement<[number, number, string], { id: number }>(
      'SELECT id FROM device_tables WHERE device_id = ? AND coalesce(association_id, 0) = ? AND label = ?',
    )
    .get(deviceId, associationId ?? 0, table.label);
  if (existing) {
    await store.statement('UPDATE device_tables SET columns = ?, rows = ?, cell_metadata = ?, update_time = ? WHERE id = ?').run(columns, rows, cellMetadata, at, existing.id);
    return existing.id;
  }
  // Counted only for a new label (a steady device reports the same tables every run).
  if (bound && bound.max !== null) {
    const has = (await store.statement<[number], { n: number }>('SELECT count(*) AS n FROM device_tables WHERE device_id = ?').get(deviceId))!.n;
    if (Number(has) >= bound.max) {
      bound.refused.push(table.label);
      return null;
    }
  }
  const info = await store
    .statement('INSERT INTO device_tables (device_id, association_id, label, columns, rows, cell_metadata, update_time) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .insert(deviceId, associationId, table.label, columns, rows, cellMetadata, at);
  return info;
}

/** A device's tables, by label. */
export async function listDeviceTables(store: Store, deviceId: number): Promise<DeviceTableRow[]> {
  return (await store
    .statement<[number], DeviceTableDbRow>('SELECT * FROM device_tables WHERE device_id = ? ORDER BY label, id')
    .all(deviceId))
    .map((row) => {
      const table: DeviceTableRow = {
        id: row.id,
        deviceId: row.device_id,
        associationId: row.association_id,
        label: row.label,
        columns: parseJsonColumn(row.columns, []),
        rows: parseJsonColumn(row.rows, []),
        updateTime: row.update_time,
      };
      if (row.cell_metadata !== null) table.cellMetadata = parseJsonColumn(row.cell_metadata, []);
      return table;
    });
}
