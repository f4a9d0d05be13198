// Device credentials, sealed with the store's secret box. A scope names what they are for;
// a driver run uses CUSTOM_DRIVER_MANAGEMENT when set, else DEVICE_MANAGEMENT.
import type { Store } from '../store.js';

export interface DeviceCredentials {
  username: string;
  password: string;
}

export const DRIVER_CREDENTIAL_SCOPES = ['CUSTOM_DRIVER_MANAGEMENT', 'DEVICE_MANAGEMENT'] as const;

export async function setDeviceCredentials(store: Store, deviceId: number, scope: string, credentials: DeviceCredentials): Promise<void> {
  await store
    .statement(
      `INSERT INTO device_credentials (device_id, scope, username, password_sealed, update_time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (device_id, scope) DO UPDATE SET username = excluded.username,
         password_sealed = excluded.password_sealed, update_time = excluded.update_time`,
    )
    .run(deviceId, scope, credentials.username, store.secrets.encrypt(credentials.password), store.now());
}

/** The first credentials found among the scopes, in the order given. */
export async function getDeviceCredentials(
  store: Store,
  deviceId: number,
  scopes: readonly string[] = DRIVER_CREDENTIAL_SCOPES,
): Promise<(DeviceCredentials & { scope: string }) | undefined> {
  if (scopes.length === 0) return undefined;
  // One statement for all the scopes (a run reads them per action); the first scope given wins.
  const rows = await store
    .statement<[number, ...string[]], SealedCredentials>(
      `SELECT scope, username, password_sealed FROM device_credentials WHERE device_id = ? AND scope IN (${scopes.map(() => '?').join(', ')})`,
    )
    .all(deviceId, ...scopes);
  return firstCredentials(store, rows, scopes);
}

/** A device_credentials row as stored: the password sealed. */
export interface SealedCredentials {
  scope: string;
  username: string;
  password_sealed: string;
}

/** Every scope's credentials of a device, sealed (a run reads them once: its own, and the secrets to mask). */
export async function listSealedCredentials(store: Store, deviceId: number): Promise<SealedCredentials[]> {
  return await store.statement<[number], SealedCredentials>('SELECT scope, username, password_sealed FROM device_credentials WHERE device_id = ?').all(deviceId);
}

/** The first of the scopes given that has credentials among the rows, opened. */
export function firstCredentials(
  store: Store,
  rows: readonly SealedCredentials[],
  scopes: readonly string[] = DRIVER_CREDENTIAL_SCOPES,
): (DeviceCredentials & { scope: string }) | undefined {
  for (const scope of scopes) {
    const row = rows.find((r) => r.scope === scope);
    if (row) return { scope, username: row.username, password: store.secrets.decrypt(row.password_sealed) };
  }
  return undefined;
}
