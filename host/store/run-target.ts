// What a scheduled run of an association reads before it runs, once for the run and its write, in
// three statements: the association with its driver (id, name, source), its device (with the sealed
// SNMP settings) and the device's kept state (the scale-out mode's cookies) in one row; the
// association's parameter values; every scope of the device's credentials. From them come the
// run's request and the secrets its result is masked with; each was read on its own, some twice,
// before (G7, docs/SCALE-OUT.md).
import type { DeviceSpec } from '../device.js';
import { snmpSettingsFromApi, type ApiSnmpAuthentication } from '../snmp-settings.js';
import { runAssociationFromDb, type AssociationDbRow, type RunAssociationRow } from './associations.js';
import { firstCredentials, listSealedCredentials } from './credentials.js';
import type { RunDriverRow } from './custom-drivers.js';
import { deviceFromDb, openSnmpAuthentication, type DeviceDbRow, type DeviceRow } from './devices.js';
import { deviceSpecFrom } from './run-request.js';
import { secretsOf } from './run-secrets.js';
import type { Store } from './store.js';

export interface RunTarget {
  association: RunAssociationRow;
  driver: RunDriverRow;
  device: DeviceRow;
  /** The device as the run's request gives it to the sandbox. */
  spec: DeviceSpec;
  /** What the run's result is masked with: every scope's credentials, the SNMP secrets (deviceSecrets). */
  secrets: string[];
  /** The device's kept state (device_state, what the scale-out mode keeps between runs) as stored, sealed; null when none. */
  sealedState: string | null;
}

/**
 * The association's run target; undefined when the association is gone or its device is not the
 * agent's. A driver or device is deleted only with its associations: the joins lose nothing.
 */
export async function readRunTarget(store: Store, agentId: number, associationId: number): Promise<RunTarget | undefined> {
  // The kept state joined in costs the embedded mode (no rows there) next to nothing.
  const row = await store
    .statement<[number, number], TargetDbRow>(
      `SELECT d.*, a.id AS association_id, a.custom_driver_id, a.sample_period, a.status AS association_status,
         a.creation_time AS association_creation_time, a.last_inspection_time, r.name AS driver_name, r.source AS driver_source,
         s.state AS kept_state
       FROM custom_driver_associations a
       JOIN custom_drivers r ON r.id = a.custom_driver_id
       JOIN devices d ON d.id = a.device_id
       LEFT JOIN device_state s ON s.device_id = d.id
       WHERE a.id = ? AND d.agent_id = ?`,
    )
    .get(associationId, agentId);
  if (!row) return undefined;
  const association = await runAssociationFromDb(store, {
    id: row.association_id,
    custom_driver_id: row.custom_driver_id,
    agent_id: row.agent_id,
    device_id: row.id,
    sample_period: row.sample_period,
    status: row.association_status,
    creation_time: row.association_creation_time,
    last_inspection_time: row.last_inspection_time,
  });
  const device = deviceFromDb(row);
  const credentials = await listSealedCredentials(store, device.id);
  const snmp = snmpSettingsFromApi(openSnmpAuthentication<ApiSnmpAuthentication>(store, row.snmp_authentication));
  return {
    association,
    driver: { id: Number(row.custom_driver_id), name: row.driver_name, source: row.driver_source },
    device,
    spec: deviceSpecFrom(device, firstCredentials(store, credentials), snmp),
    secrets: secretsOf(store, credentials, row.snmp_authentication),
    sealedState: row.kept_state ?? null,
  };
}

interface TargetDbRow extends DeviceDbRow {
  snmp_authentication: string | null;
  association_id: number;
  custom_driver_id: number;
  sample_period: number;
  association_status: AssociationDbRow['status'];
  association_creation_time: number;
  last_inspection_time: number;
  driver_name: string;
  driver_source: string;
  kept_state: string | null;
}
