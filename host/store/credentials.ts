// Device credentials, sealed with the store's secret box. A scope names what they are for;
// a driver run uses CUSTOM_DRIVER_MANAGEMENT when set, else DEVICE_MANAGEMENT.
import type { Store } from './store.js';

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
    .statement<[number, ...string[]], { scope: string; username: string; password_sealed: string }>(
      `SELECT scope, username, password_sealed FROM device_credentials WHERE device_id = ? AND scope IN (${scopes.map(() => '?').join(', ')})`,
    )
    .all(deviceId, ...scopes);
  for (const scope of scopes) {
    const row = rows.find((r) => r.scope === scope);
    if (row) return { scope, username: row.username, password: store.secrets.decrypt(row.password_sealed) };
  }
  return undefined;
}
