// The inventory's drivers as code, kept in the store's meta table: driver id → SHA-256 of the
// file the inventory loaded for it. A run compares the hash of the code it is about to run with
// that record to choose its external-host policy, so the operator's privileges follow the code,
// never the driver's id (host/agent/external-hosts.ts). The inventory sync writes it.
import { createHash } from 'node:crypto';
import type { Store } from '../store.js';

/** SHA-256 of the source's UTF-8 bytes, hex. Linear in the source (bounded by MAX_DRIVER_SOURCE_CHARS). */
export function driverCodeHash(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}

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

/** Writes the hashes of the inventory's driver files (driver id → driverCodeHash of the file as loaded); the old id-only record goes. */
export async function writeInventoryDriverCode(store: Store, driverCode: Readonly<Record<number, string>>): Promise<void> {
  await store.statement('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(DRIVER_CODE_META_KEY, JSON.stringify(driverCode));
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

/** The code a run is about to run, and the stored driver whose id it runs under. */
export interface RunCode {
  driverId: number;
  source: string;
}

/**
 * The last verdict per inventory driver id, with the hash and the exact source it was given for:
 * a scheduled run reads the same source every period, and comparing it with the last one costs
 * ~1 µs for 20 KB where hashing it costs ~85 µs. A verdict is reused only for that same id, hash
 * and source. Bounded: one entry per id of the inventory's drivers, at most VERDICTS_KEPT.
 */
const verdicts = new Map<number, { hash: string; source: string; operator: boolean }>();
const VERDICTS_KEPT = 256;

/** Is `code` the operator's: byte for byte the file the inventory loaded for its driver id? */
export function isOperatorCode(recorded: InventoryDriverCode, code: RunCode): boolean {
  const hash = recorded.get(code.driverId);
  if (hash === undefined) return false;
  const last = verdicts.get(code.driverId);
  if (last !== undefined && last.hash === hash && last.source === code.source) return last.operator;
  const operator = hash === driverCodeHash(code.source);
  if (last === undefined && verdicts.size >= VERDICTS_KEPT) verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(code.driverId, { hash, source: code.source, operator });
  return operator;
}
