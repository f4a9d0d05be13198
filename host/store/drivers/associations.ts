// Associations: a library driver applied to one device, with its parameter values and sample
// period. Variables a run of the association writes carry its id, so deleting the association
// deletes them (ON DELETE CASCADE on variables.association_id).
import { DRIVER_CREDENTIAL_SCOPES, setDeviceCredentials, type DeviceCredentials } from '../fleet/credentials.js';
import { getCustomDriverDefinition, type CustomDriverDefinition } from './custom-drivers.js';
import { isBackingOff } from './association-backoff.js';
import { isDeviceMonitored } from '../fleet/device-monitoring.js';
import type { MonitoringState } from '../fleet/devices.js';
import { parameterValueProblem, refuseProblems, samplePeriodProblem, type InputProblem, type ParameterValueType } from './driver-input.js';
import { parseJsonColumn } from '../db/json-column.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

/** The scope credentials given with an association are stored under. */
export const ASSOCIATION_CREDENTIAL_SCOPE = 'CUSTOM_DRIVER_MANAGEMENT';

export interface ParameterValueInput {
  parameterId: number;
  /** null or absent: the driver's default applies. */
  value?: unknown;
}

export interface AssociationParameter {
  parameterId: number;
  name: string;
  description: string | null;
  valueType: ParameterValueType;
  /** The association's value, else the driver's default, else null. */
  value: unknown;
}

export interface AssociationRow {
  id: number;
  customDriverId: number;
  agentId: number;
  deviceId: number;
  samplePeriod: number;
  status: 'ENABLED' | 'DISABLED';
  creationTime: number;
  lastInspectionTime: number;
  parameters: AssociationParameter[];
  usedVariables: number;
}

export interface NewAssociation {
  customDriverId: number;
  agentId: number;
  deviceId: number;
  /** Default: the driver's minimal_sample_period. */
  samplePeriod?: number;
  parameters?: ParameterValueInput[];
  /** Stored sealed for the device under CUSTOM_DRIVER_MANAGEMENT. */
  credentials?: DeviceCredentials;
}

export interface AssociationDbRow {
  id: number;
  custom_driver_id: number;
  agent_id: number;
  device_id: number;
  sample_period: number;
  status: 'ENABLED' | 'DISABLED';
  creation_time: number;
  last_inspection_time: number;
}

/** Problems of parameter values given for a driver: unknown ids, ids given twice, values of the wrong type. */
export function parameterValueProblems(driver: CustomDriverDefinition, values: readonly ParameterValueInput[], where: Array<string | number>): InputProblem[] {
  const problems: InputProblem[] = [];
  const seen = new Set<number>();
  values.forEach((v, i) => {
    const parameter = driver.parameters.find((p) => p.id === v.parameterId);
    if (!parameter) {
      const known = driver.parameters.map((p) => `${p.id} (${p.name})`).join(', ') || 'none';
      problems.push({ loc: [...where, i, 'custom_driver_parameter_id'], msg: `custom driver ${driver.id} has no parameter ${v.parameterId}; its parameters: ${known}` });
      return;
    }
    if (seen.has(v.parameterId)) problems.push({ loc: [...where, i, 'custom_driver_parameter_id'], msg: `parameter ${v.parameterId} is given twice` });
    seen.add(v.parameterId);
    if (v.value === undefined || v.value === null) return;
    const msg = parameterValueProblem(parameter.valueType, v.value);
    if (msg) problems.push({ loc: [...where, i, 'value'], msg: `${parameter.name}: ${msg}` });
  });
  return problems;
}

/** Parameters that would have no value at all: no default on the driver, none given. */
export function missingParameterProblems(driver: CustomDriverDefinition, values: readonly ParameterValueInput[], where: Array<string | number>): InputProblem[] {
  const given = new Set(values.filter((v) => v.value !== undefined && v.value !== null).map((v) => v.parameterId));
  return driver.parameters
    .filter((p) => p.defaultValue === null && !given.has(p.id))
    .map((p) => ({ loc: where, msg: `parameter ${p.id} (${p.name}) has no default value: give it a value` }));
}

export async function hasDriverCredentials(store: Store, deviceId: number): Promise<boolean> {
  const marks = DRIVER_CREDENTIAL_SCOPES.map(() => '?').join(', ');
  return !!await store.statement(`SELECT 1 FROM device_credentials WHERE device_id = ? AND scope IN (${marks}) LIMIT 1`).get(deviceId, ...DRIVER_CREDENTIAL_SCOPES);
}

/** An association as a run needs it: everything but its used-variable count (a count over variables, per run). */
export type RunAssociationRow = Omit<AssociationRow, 'usedVariables'>;

async function associationFromDb(store: Store, row: AssociationDbRow): Promise<AssociationRow> {
  const association = await runAssociationFromDb(store, row);
  const used = (await store.statement<[number], { n: number }>('SELECT count(*) AS n FROM variables WHERE association_id = ?').get(row.id))!;
  // One backing off after repeated limit hits is "disabled due to failure" to the API, though the agent still tries it now and then.
  const status = association.status === 'ENABLED' && await isBackingOff(store, row.id) ? 'DISABLED' : association.status;
  return { ...association, status, usedVariables: used.n };
}

/** An association's parameter with its value for the association, as read (ap.value: null when unset). */
export interface AssociationParameterDbRow {
  id: number;
  name: string;
  description: string | null;
  value_type: ParameterValueType;
  default_value: string | null;
  value: string | null;
}

/** The association of a row, with its parameters' values (one statement): all but its used-variable count. */
export async function runAssociationFromDb(store: Store, row: AssociationDbRow): Promise<RunAssociationRow> {
  const parameters = await store
    .statement<[number, number], AssociationParameterDbRow>(
      `SELECT p.id, p.name, p.description, p.value_type, p.default_value, ap.value
       FROM custom_driver_parameters p
       LEFT JOIN custom_driver_association_parameters ap ON ap.parameter_id = p.id AND ap.association_id = ?
       WHERE p.custom_driver_id = ? ORDER BY p.id`,
    )
    .all(row.id, row.custom_driver_id);
  return associationWithParameters(row, parameters);
}

/** The association of a row and its parameters' rows (in the driver's order: by id). */
export function associationWithParameters(row: AssociationDbRow, parameters: readonly AssociationParameterDbRow[]): RunAssociationRow {
  return {
    id: row.id,
    customDriverId: row.custom_driver_id,
    agentId: row.agent_id,
    deviceId: row.device_id,
    samplePeriod: row.sample_period,
    status: row.status,
    creationTime: row.creation_time,
    lastInspectionTime: row.last_inspection_time,
    parameters: parameters.map((p) => ({
      parameterId: p.id,
      name: p.name,
      description: p.description,
      valueType: p.value_type,
      value: parseJsonColumn<unknown>(p.value, null) ?? parseJsonColumn<unknown>(p.default_value, null),
    })),
  };
}

export async function getAssociation(store: Store, id: number): Promise<AssociationRow | undefined> {
  const row = await store.statement<[number], AssociationDbRow>('SELECT * FROM custom_driver_associations WHERE id = ?').get(id);
  return row ? await associationFromDb(store, row) : undefined;
}

export async function findAssociation(store: Store, customDriverId: number, deviceId: number): Promise<AssociationRow | undefined> {
  const row = await store
    .statement<[number, number], AssociationDbRow>('SELECT * FROM custom_driver_associations WHERE custom_driver_id = ? AND device_id = ?')
    .get(customDriverId, deviceId);
  return row ? await associationFromDb(store, row) : undefined;
}

export async function listAssociations(store: Store, agentId: number): Promise<AssociationRow[]> {
  const rows = await store
    .statement<[number], AssociationDbRow>('SELECT * FROM custom_driver_associations WHERE agent_id = ? ORDER BY id')
    .all(agentId);
  return Promise.all(rows.map((row) => associationFromDb(store, row)));
}

/**
 * Why the association cannot be made in the current state of the library and the device
 * (the API answers these as 201 {error}); null when it can.
 */
export async function associationRefusal(store: Store, driver: CustomDriverDefinition, deviceId: number, credentialsGiven: boolean): Promise<string | null> {
  if (!driver.isValid) {
    const first = driver.inspection.errors[0]!;
    return `custom driver ${driver.id} has invalid code (${first.type}${first.line ? ` at line ${first.line}` : ''}: ${first.message}); fix it before applying it`;
  }
  const existing = await findAssociation(store, driver.id, deviceId);
  if (existing) return `custom driver ${driver.id} is already applied to device ${deviceId} (association ${existing.id})`;
  if (driver.requiresCredentials && !credentialsGiven && !await hasDriverCredentials(store, deviceId)) {
    return `custom driver ${driver.id} requires credentials and device ${deviceId} has none saved: give credentials {username, password}`;
  }
  return null;
}

async function writeParameterValues(store: Store, associationId: number, values: readonly ParameterValueInput[]): Promise<void> {
  for (const v of values) {
    if (v.value === undefined || v.value === null) {
      await store.statement('DELETE FROM custom_driver_association_parameters WHERE association_id = ? AND parameter_id = ?').run(associationId, v.parameterId);
    } else {
      await store
        .statement(
          `INSERT INTO custom_driver_association_parameters (association_id, parameter_id, value) VALUES (?, ?, ?)
           ON CONFLICT (association_id, parameter_id) DO UPDATE SET value = excluded.value`,
        )
        .run(associationId, v.parameterId, JSON.stringify(v.value));
    }
  }
}

/**
 * Applies a driver to a device. Bad input throws StoreError INVALID; a refusal of the current
 * state (see associationRefusal) throws StoreError CONFLICT.
 */
export async function createAssociation(store: Store, input: NewAssociation): Promise<AssociationRow> {
  return await store.transaction(async () => {
    const driver = await getCustomDriverDefinition(store, input.customDriverId);
    if (!driver) throw new StoreError('NOT_FOUND', `custom driver ${input.customDriverId} not found`);
    const device = await store.statement<[number, number], { id: number }>('SELECT id FROM devices WHERE id = ? AND agent_id = ?').get(input.deviceId, input.agentId);
    if (!device) throw new StoreError('NOT_FOUND', `device ${input.deviceId} of agent ${input.agentId} not found`);
    const values = input.parameters ?? [];
    const samplePeriod = input.samplePeriod ?? driver.minimalSamplePeriod;
    const periodProblem = samplePeriodProblem(samplePeriod, driver.minimalSamplePeriod);
    refuseProblems([
      ...(periodProblem ? [{ loc: ['body', 'sample_period'], msg: periodProblem }] : []),
      ...parameterValueProblems(driver, values, ['body', 'parameters']),
      ...missingParameterProblems(driver, values, ['body', 'parameters']),
    ]);
    const refusal = await associationRefusal(store, driver, input.deviceId, !!input.credentials);
    if (refusal) throw new StoreError('CONFLICT', refusal);
    const now = store.now();
    const info = await store
      .statement(
        `INSERT INTO custom_driver_associations (custom_driver_id, agent_id, device_id, sample_period, status, creation_time, last_inspection_time)
         VALUES (?, ?, ?, ?, 'ENABLED', ?, ?)`,
      )
      .insert(driver.id, input.agentId, input.deviceId, samplePeriod, now, now);
    const id = info;
    await writeParameterValues(store, id, values);
    if (input.credentials) await setDeviceCredentials(store, input.deviceId, ASSOCIATION_CREDENTIAL_SCOPE, input.credentials);
    return (await getAssociation(store, id))!;
  });
}

/** The association of that driver, or NOT_FOUND naming both. */
export async function getDriverAssociation(store: Store, customDriverId: number, associationId: number): Promise<AssociationRow> {
  const association = await getAssociation(store, associationId);
  if (!association || association.customDriverId !== customDriverId) {
    throw new StoreError('NOT_FOUND', `association ${associationId} of custom driver ${customDriverId} not found`);
  }
  return association;
}

/** Sets (or, with a null value, resets to the default) the given parameters; others keep theirs. */
export async function updateAssociationParameters(store: Store, customDriverId: number, associationId: number, values: readonly ParameterValueInput[]): Promise<AssociationRow> {
  return await store.transaction(async () => {
    const association = await getDriverAssociation(store, customDriverId, associationId);
    const driver = (await getCustomDriverDefinition(store, customDriverId))!;
    const after = new Map(association.parameters.map((p) => [p.parameterId, p.value]));
    for (const v of values) after.set(v.parameterId, v.value ?? driver.parameters.find((p) => p.id === v.parameterId)?.defaultValue ?? null);
    refuseProblems([
      ...parameterValueProblems(driver, values, ['body', 'parameters']),
      ...missingParameterProblems(
        driver,
        [...after].map(([parameterId, value]) => ({ parameterId, value })),
        ['body', 'parameters'],
      ),
    ]);
    await writeParameterValues(store, associationId, values);
    return (await getAssociation(store, associationId))!;
  });
}

/** Deletes the association and, by cascade, the variables and tables its runs wrote. */
export async function deleteAssociation(store: Store, customDriverId: number, associationId: number): Promise<void> {
  await store.transaction(async () => {
    await getDriverAssociation(store, customDriverId, associationId);
    await store.statement('DELETE FROM custom_driver_associations WHERE id = ?').run(associationId);
  });
}

/** The parameters a run of the association gets: name → value (those with no value are left out). */
export function runParameters(association: Pick<AssociationRow, 'parameters'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of association.parameters) if (p.value !== null) out[p.name] = p.value;
  return out;
}

/**
 * Records that the association's driver ran on the device at `at` (default now); false when there
 * is no such association (deleted).
 */
export async function markAssociationRun(store: Store, associationId: number, at: number = store.now()): Promise<boolean> {
  return (await store.statement('UPDATE custom_driver_associations SET last_inspection_time = ? WHERE id = ?').run(at, associationId)).changes > 0;
}

/** What a scheduler needs of an association, without its parameters: who, how often, and names for messages. */
export interface AssociationSchedule {
  id: number;
  customDriverId: number;
  deviceId: number;
  samplePeriod: number;
  enabled: boolean;
  /** The device is managed and not excluded: an enabled association on it runs only then. */
  deviceMonitored: boolean;
  driverName: string;
  deviceName: string;
}

/** Every association of an agent with its driver's and device's names, oldest first. */
export async function listAssociationSchedules(store: Store, agentId: number): Promise<AssociationSchedule[]> {
  return (await store
    .statement<[number], { id: number; custom_driver_id: number; device_id: number; sample_period: number; status: string; driver_name: string; device_name: string; monitoring_state: MonitoringState; excluded: number }>(
      `SELECT a.id, a.custom_driver_id, a.device_id, a.sample_period, a.status, d.name AS driver_name, v.display_name AS device_name,
              v.monitoring_state, v.excluded
         FROM custom_driver_associations a
         JOIN custom_drivers d ON d.id = a.custom_driver_id
         JOIN devices v ON v.id = a.device_id
        WHERE a.agent_id = ? ORDER BY a.id`,
    )
    .all(agentId))
    .map((r) => ({
      id: r.id,
      customDriverId: r.custom_driver_id,
      deviceId: r.device_id,
      samplePeriod: r.sample_period,
      enabled: r.status === 'ENABLED',
      deviceMonitored: isDeviceMonitored({ monitoringState: r.monitoring_state, excluded: r.excluded === 1 }),
      driverName: r.driver_name,
      deviceName: r.device_name,
    }));
}
