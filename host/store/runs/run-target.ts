// What a scheduled run of an association reads before it runs, once for the run and its write, in
// one statement: the association with its driver (id, name, source), its device (with the sealed
// SNMP settings), the device's kept state (the scale-out mode's cookies), whether the inventory
// recorded of the driver's code (its external-host policy), and as JSON arrays in that row the association's
// parameter values and every scope of the device's credentials. From
// them come the run's request and the secrets its result is masked with; each was read on its
// own, some twice, before (G7, docs/architecture/scale-out.md).
import { INVENTORY_DRIVER_COLUMNS, inventoryDriverCodeFrom, isOperatorCode, type InventoryDriverColumns } from '../drivers/inventory-driver-code.js';
import type { DeviceSpec } from '../../contract/device.js';
import { snmpSettingsFromApi, type ApiSnmpAuthentication } from '../../snmp-settings.js';
import { associationWithParameters, type AssociationDbRow, type AssociationParameterDbRow, type RunAssociationRow } from '../drivers/associations.js';
import { firstCredentials, type SealedCredentials } from '../fleet/credentials.js';
import type { RunDriverRow } from '../drivers/custom-drivers.js';
import { deviceFromDb, openSnmpAuthentication, type DeviceDbRow, type DeviceRow } from '../fleet/devices.js';
import { deviceSpecFrom } from './run-request.js';
import { secretsOf } from './run-secrets.js';
import { jsonRows, jsonRowsOf } from '../db/sql-json.js';
import type { Store } from '../store.js';

export interface RunTarget {
  association: RunAssociationRow;
  driver: RunDriverRow;
  device: DeviceRow;
  /** The device as the run's request gives it to the sandbox. */
  spec: DeviceSpec;
  /** What the run's result is masked with: every scope's credentials, the SNMP secrets (deviceSecrets). */
  secrets: string[];
  /** The driver's stored source is byte for byte the operator's file for it (isOperatorCode): it may reach any host (externalHostsOf). */
  operatorCode: boolean;
  /** The device's kept state (device_state, what the scale-out mode keeps between runs) as stored, sealed; null when none. */
  sealedState: string | null;
}

/**
 * The association's run target; undefined when the association is gone or its device is not the
 * agent's. A driver or device is deleted only with its associations: the joins lose nothing.
 */
export async function readRunTarget(store: Store, agentId: number, associationId: number): Promise<RunTarget | undefined> {
  // The kept state joined in costs the embedded mode (no rows there) next to nothing.
  const row = await store.statement<[number, number], TargetDbRow>(targetSql(store), { named: true }).get(associationId, agentId);
  if (!row) return undefined;
  const parameters = jsonRowsOf<AssociationParameterDbRow>(row.parameters).sort((a, b) => a.id - b.id);
  const association = associationWithParameters(
    {
      id: row.association_id,
      custom_driver_id: row.custom_driver_id,
      agent_id: row.agent_id,
      device_id: row.id,
      sample_period: row.sample_period,
      status: row.association_status,
      creation_time: row.association_creation_time,
      last_inspection_time: row.last_inspection_time,
    },
    parameters,
  );
  const device = deviceFromDb(row);
  const credentials = jsonRowsOf<SealedCredentials>(row.credentials);
  const snmp = snmpSettingsFromApi(openSnmpAuthentication<ApiSnmpAuthentication>(store, row.snmp_authentication));
  return {
    association,
    driver: { id: Number(row.custom_driver_id), name: row.driver_name, source: row.driver_source },
    device,
    spec: deviceSpecFrom(device, firstCredentials(store, credentials), snmp),
    secrets: secretsOf(store, credentials, row.snmp_authentication),
    operatorCode: isOperatorCode(inventoryDriverCodeFrom(row), { driverId: Number(row.custom_driver_id), source: row.driver_source }),
    sealedState: row.kept_state ?? null,
  };
}

/** The target's statement, made once per dialect (every scheduled run reads it). */
const targetSqlByDialect = new Map<Store['dialect'], string>();
function targetSql(store: Store): string {
  let sql = targetSqlByDialect.get(store.dialect);
  if (sql === undefined) targetSqlByDialect.set(store.dialect, (sql = buildTargetSql(store)));
  return sql;
}

/** Its SQL differs by dialect in the JSON functions alone. */
function buildTargetSql(store: Store): string {
  const parameters = jsonRows(
    store.dialect,
    { id: 'p.id', name: 'p.name', description: 'p.description', value_type: 'p.value_type', default_value: 'p.default_value', value: 'ap.value' },
    `FROM custom_driver_parameters p
     LEFT JOIN custom_driver_association_parameters ap ON ap.parameter_id = p.id AND ap.association_id = a.id
     WHERE p.custom_driver_id = a.custom_driver_id`,
  );
  const credentials = jsonRows(
    store.dialect,
    { scope: 'c.scope', username: 'c.username', password_sealed: 'c.password_sealed' },
    'FROM device_credentials c WHERE c.device_id = d.id',
  );
  return `SELECT d.*, a.id AS association_id, a.custom_driver_id, a.sample_period, a.status AS association_status,
      a.creation_time AS association_creation_time, a.last_inspection_time, r.name AS driver_name, r.source AS driver_source,
      s.state AS kept_state, ${parameters} AS parameters, ${credentials} AS credentials, ${INVENTORY_DRIVER_COLUMNS}
    FROM custom_driver_associations a
    JOIN custom_drivers r ON r.id = a.custom_driver_id
    JOIN devices d ON d.id = a.device_id
    LEFT JOIN device_state s ON s.device_id = d.id
    WHERE a.id = ? AND d.agent_id = ?`;
}

interface TargetDbRow extends DeviceDbRow, InventoryDriverColumns {
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
  /** jsonRows: AssociationParameterDbRow[]. */
  parameters: unknown;
  /** jsonRows: SealedCredentials[]. */
  credentials: unknown;
}
