// The device of a scheduled run, read once for the whole run: its row (with the sealed SNMP
// settings and, for the scale-out mode, the device's kept state joined in) and every scope of its
// credentials, in two statements. From them come the device as the sandbox reaches it and the
// secrets its result is masked with, which were each read again before (G7, docs/SCALE-OUT.md).
import type { DeviceSpec } from '../device.js';
import { snmpSettingsFromApi, type ApiSnmpAuthentication } from '../snmp-settings.js';
import { firstCredentials, listSealedCredentials } from './credentials.js';
import { deviceFromDb, openSnmpAuthentication, type DeviceDbRow, type DeviceRow } from './devices.js';
import { deviceSpecFrom } from './run-request.js';
import { secretsOf } from './run-secrets.js';
import type { Store } from './store.js';

export interface RunDevice {
  device: DeviceRow;
  /** The device as the run's request gives it to the sandbox. */
  spec: DeviceSpec;
  /** What the run's result is masked with: every scope's credentials, the SNMP secrets (deviceSecrets). */
  secrets: string[];
  /** The device's kept state (device_state, what the scale-out mode keeps between runs) as stored, sealed; null when none. */
  sealedState: string | null;
}

/** The agent's device for a run; undefined when it has no such device. */
export async function readRunDevice(store: Store, agentId: number, deviceId: number): Promise<RunDevice | undefined> {
  // The kept state joined in costs the embedded mode (no rows there) next to nothing, and saves the scale-out mode a statement.
  const row = await store
    .statement<[number, number], RunDeviceDbRow>(
      'SELECT d.*, s.state AS kept_state FROM devices d LEFT JOIN device_state s ON s.device_id = d.id WHERE d.agent_id = ? AND d.id = ?',
    )
    .get(agentId, deviceId);
  if (!row) return undefined;
  const device = deviceFromDb(row);
  const credentials = await listSealedCredentials(store, deviceId);
  const snmp = snmpSettingsFromApi(openSnmpAuthentication<ApiSnmpAuthentication>(store, row.snmp_authentication));
  return {
    device,
    spec: deviceSpecFrom(device, firstCredentials(store, credentials), snmp),
    secrets: secretsOf(store, credentials, row.snmp_authentication),
    sealedState: row.kept_state ?? null,
  };
}

interface RunDeviceDbRow extends DeviceDbRow {
  snmp_authentication: string | null;
  kept_state: string | null;
}
