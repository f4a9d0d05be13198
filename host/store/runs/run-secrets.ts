// Masking a run's secrets out of its result before it is stored or answered through the API.
// The secrets are the device's credentials (user name and password): a driver may log them, put
// them in its message or send them in a body, in clear or in the forms a driver or the wire
// gives them (JSON-escaped, URL- or form-encoded, base64 as in a Basic header). The run's
// parameters' secrets and the values it sent under a secret's name were masked by the host
// already (engine/host.ts), in what the run said. This stops a secret leaking by accident; a driver
// written to leak one can still transform it.
import type { Store } from '../store.js';
import { listSealedCredentials, type SealedCredentials } from '../fleet/credentials.js';
import { openSnmpAuthentication, sealedSnmpAuthentication } from '../fleet/devices.js';
import { snmpSecrets, snmpSettingsFromApi, type ApiSnmpAuthentication } from '../../snmp-settings.js';

export { MASK, MIN_SECRET_LENGTH, SecretMask, maskFor, secretForms } from '../../secrets/secret-mask.js';

/** A user name and password as secrets: each, and user:password, so a Basic header's token is masked whole (its base64 straddles both). */
export function credentialSecrets(username: string | null | undefined, password: string | null | undefined): string[] {
  const secrets = [username, password].filter((s): s is string => typeof s === 'string' && s !== '');
  if (username && password) secrets.push(`${username}:${password}`);
  return secrets;
}

/** The secrets of runs against a stored device: its credentials of every scope, those the store can read. */
export async function deviceSecrets(store: Store, deviceId: number): Promise<string[]> {
  const rows = await listSealedCredentials(store, deviceId);
  return secretsOf(store, rows, await sealedSnmpAuthentication(store, deviceId));
}

/** deviceSecrets of rows already read: every scope's credentials and the sealed SNMP column. */
export function secretsOf(store: Store, rows: readonly SealedCredentials[], sealedSnmp: string | null | undefined): string[] {
  const secrets: string[] = [];
  for (const row of rows) {
    try {
      secrets.push(...credentialSecrets(row.username, store.secrets.decrypt(row.password_sealed)));
    } catch {
      secrets.push(row.username);
      // A store without its secret key cannot read it; a run through it could not have used it either.
    }
  }
  try {
    // Its SNMP communities and v3 keys (a driver never sees them, but a device may echo them).
    secrets.push(...snmpSecrets(snmpSettingsFromApi(openSnmpAuthentication<ApiSnmpAuthentication>(store, sealedSnmp))));
  } catch {
    // unreadable without the store's key: not usable by a run either
  }
  return secrets;
}
