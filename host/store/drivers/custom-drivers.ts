// The custom driver library: driver scripts with their parameters, inspected when stored.
// A new version of the code bumps `version` and is inspected again; an invalid driver is
// kept (is_valid false, with its errors) so its author can see why, but never runs.
import { dataSavingFunctions, inspectDriver, type DriverInspection } from './driver-inspection.js';
import {
  CUSTOM_DRIVER_TYPES,
  SAMPLE_PERIODS,
  parameterDefinitionProblems,
  refuseProblems,
  type CustomDriverType,
  type InputProblem,
  type ParameterDefinition,
  type ParameterValueType,
} from './driver-input.js';
import { parseJsonColumn } from '../db/json-column.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const MAX_DRIVER_NAME_CHARS = 255;
/** A driver's source, characters: real drivers are tens of KB; this bounds the inspection's work per upload. */
export const MAX_DRIVER_SOURCE_CHARS = 512 * 1024;

export interface CustomDriverParameter {
  id: number;
  name: string;
  description: string | null;
  valueType: ParameterValueType;
  /** null: no default. */
  defaultValue: unknown;
}

export interface CustomDriverRow {
  id: number;
  name: string;
  description: string | null;
  version: number;
  source: string;
  type: CustomDriverType;
  minimalSamplePeriod: number;
  requiresCredentials: boolean;
  inspection: DriverInspection;
  isValid: boolean;
  parameters: CustomDriverParameter[];
  /** Devices the driver is applied to (by association). */
  deviceIds: number[];
  creationTime: number;
  updateTime: number;
}

/**
 * A driver without the devices it is applied to: what checking or making one association needs
 * (the device list grows with the inventory, and reading it per association is quadratic).
 */
export type CustomDriverDefinition = Omit<CustomDriverRow, 'deviceIds'>;

export interface NewCustomDriver {
  name: string;
  description?: string | null;
  code: string;
  parameters?: ParameterDefinition[];
  /** Default 300 s. */
  minimalSamplePeriod?: number;
  /** Default: whether the code uses the device's credentials (see DriverInspection.uses_credentials). */
  requiresCredentials?: boolean;
  type?: CustomDriverType;
}

/** A new version: fields left out keep their value; `parameters` replaces the list, matched by name. */
export type CustomDriverChange = Partial<NewCustomDriver>;

interface DriverDbRow {
  id: number;
  name: string;
  description: string | null;
  version: number;
  source: string;
  type: CustomDriverType;
  minimal_sample_period: number;
  requires_credentials: number;
  inspection: string;
  creation_time: number;
  update_time: number;
}

interface ParameterDbRow {
  id: number;
  custom_driver_id: number;
  name: string;
  description: string | null;
  value_type: ParameterValueType;
  default_value: string | null;
}

const EMPTY_INSPECTION: DriverInspection = {
  actions: [],
  errors: [{ line: null, message: 'the stored inspection is unreadable', type: 'INSPECTION_ERROR' }],
  code_inspection: { data_saving_functions: [], has_independent_variables: false, has_parameters: false, has_table: false },
  uses_credentials: false,
};

/** Problems of a driver definition (all fields, or only those given for a change). */
export function customDriverProblems(input: CustomDriverChange, where: Array<string | number> = ['body']): InputProblem[] {
  const problems: InputProblem[] = [];
  if (input.name !== undefined && (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > MAX_DRIVER_NAME_CHARS)) {
    problems.push({ loc: [...where, 'name'], msg: `must be 1 to ${MAX_DRIVER_NAME_CHARS} characters, not blank` });
  }
  if (input.code !== undefined && (typeof input.code !== 'string' || input.code.trim() === '')) {
    problems.push({ loc: [...where, 'code'], msg: 'must be the driver source, not empty' });
  } else if (input.code !== undefined && input.code.length > MAX_DRIVER_SOURCE_CHARS) {
    problems.push({ loc: [...where, 'code'], msg: `is at most ${MAX_DRIVER_SOURCE_CHARS} characters (got ${input.code.length})` });
  }
  if (input.minimalSamplePeriod !== undefined && !SAMPLE_PERIODS.includes(input.minimalSamplePeriod)) {
    problems.push({ loc: [...where, 'minimal_sample_period'], msg: `must be one of ${SAMPLE_PERIODS.join(', ')}` });
  }
  if (input.type !== undefined && !CUSTOM_DRIVER_TYPES.includes(input.type)) {
    problems.push({ loc: [...where, 'type'], msg: `must be one of ${CUSTOM_DRIVER_TYPES.join(', ')}` });
  }
  if (input.parameters !== undefined) problems.push(...parameterDefinitionProblems(input.parameters, [...where, 'parameters']));
  return problems;
}

function parameterFromDb(row: ParameterDbRow): CustomDriverParameter {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    valueType: row.value_type,
    defaultValue: parseJsonColumn<unknown>(row.default_value, null),
  };
}

async function driverFromDb(store: Store, row: DriverDbRow): Promise<CustomDriverRow> {
  const definition = await definitionFromDb(store, row);
  return {
    ...definition,
    deviceIds: (await store
      .statement<[number], { device_id: number }>('SELECT device_id FROM custom_driver_associations WHERE custom_driver_id = ? ORDER BY device_id')
      .all(row.id))
      .map((r) => r.device_id),
  };
}

async function definitionFromDb(store: Store, row: DriverDbRow): Promise<CustomDriverDefinition> {
  const inspection = parseJsonColumn<DriverInspection>(row.inspection, EMPTY_INSPECTION);
  // Inspections stored before data_saving_functions existed (reference 1.14.0) get it from the code.
  inspection.code_inspection.data_saving_functions ??= dataSavingFunctions(row.source);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    version: row.version,
    source: row.source,
    type: row.type,
    minimalSamplePeriod: row.minimal_sample_period,
    requiresCredentials: row.requires_credentials === 1,
    inspection,
    isValid: inspection.errors.length === 0,
    parameters: (await store
      .statement<[number], ParameterDbRow>('SELECT * FROM custom_driver_parameters WHERE custom_driver_id = ? ORDER BY id')
      .all(row.id))
      .map(parameterFromDb),
    creationTime: row.creation_time,
    updateTime: row.update_time,
  };
}

export async function getCustomDriver(store: Store, id: number): Promise<CustomDriverRow | undefined> {
  const row = await store.statement<[number], DriverDbRow>('SELECT * FROM custom_drivers WHERE id = ?').get(id);
  return row ? await driverFromDb(store, row) : undefined;
}

/** The driver without its device list (getCustomDriver reads that too). */
export async function getCustomDriverDefinition(store: Store, id: number): Promise<CustomDriverDefinition | undefined> {
  const row = await store.statement<[number], DriverDbRow>('SELECT * FROM custom_drivers WHERE id = ?').get(id);
  return row ? await definitionFromDb(store, row) : undefined;
}

/** What a scheduled run needs of its driver (getCustomDriver also reads its parameters and the devices of all its associations): readRunTarget reads it. */
export type RunDriverRow = Pick<CustomDriverRow, 'id' | 'name' | 'source'>;

export async function findCustomDriverByName(store: Store, name: string): Promise<CustomDriverRow | undefined> {
  const row = await store.statement<[string], DriverDbRow>('SELECT * FROM custom_drivers WHERE name = ? ORDER BY id LIMIT 1').get(name);
  return row ? await driverFromDb(store, row) : undefined;
}

export async function listCustomDrivers(store: Store): Promise<CustomDriverRow[]> {
  const rows = await store
    .statement<[], DriverDbRow>('SELECT * FROM custom_drivers ORDER BY id')
    .all();
  return Promise.all(rows.map((row) => driverFromDb(store, row)));
}

/** Names identify drivers for people (the CLI, the list): two drivers may not share one. */
async function refuseTakenName(store: Store, name: string, exceptId: number | null): Promise<void> {
  const other = await findCustomDriverByName(store, name);
  if (other && other.id !== exceptId) throw new StoreError('CONFLICT', `a custom driver named "${name}" already exists (id ${other.id})`);
}

export async function createCustomDriver(store: Store, input: NewCustomDriver): Promise<CustomDriverRow> {
  refuseProblems(customDriverProblems(input));
  const inspection = inspectDriver(input.code);
  const now = store.now();
  return await store.transaction(async () => {
    await refuseTakenName(store, input.name, null);
    const info = await store
      .statement(
        `INSERT INTO custom_drivers (name, description, version, source, type, minimal_sample_period, requires_credentials,
           inspection, creation_time, update_time)
         VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .insert(
        input.name,
        input.description ?? null,
        input.code,
        input.type ?? 'GENERIC',
        input.minimalSamplePeriod ?? SAMPLE_PERIODS[0],
        (input.requiresCredentials ?? inspection.uses_credentials) ? 1 : 0,
        JSON.stringify(inspection),
        now,
        now,
      );
    const id = info;
    for (const parameter of input.parameters ?? []) await insertParameter(store, id, parameter);
    return (await getCustomDriver(store, id))!;
  });
}

async function insertParameter(store: Store, driverId: number, p: ParameterDefinition): Promise<void> {
  await store
    .statement('INSERT INTO custom_driver_parameters (custom_driver_id, name, description, value_type, default_value) VALUES (?, ?, ?, ?, ?)')
    .run(driverId, p.name, p.description ?? null, p.valueType, p.defaultValue === undefined || p.defaultValue === null ? null : JSON.stringify(p.defaultValue));
}

/**
 * Parameters are matched by name so associations keep their values across versions; a
 * parameter whose type changes loses its association values (they were checked against the
 * old type), and one left out is removed with them.
 */
async function replaceParameters(store: Store, driver: CustomDriverRow, next: readonly ParameterDefinition[]): Promise<void> {
  const current = new Map(driver.parameters.map((p) => [p.name, p]));
  for (const p of next) {
    const old = current.get(p.name);
    current.delete(p.name);
    if (!old) {
      await insertParameter(store, driver.id, p);
      continue;
    }
    await store
      .statement('UPDATE custom_driver_parameters SET description = ?, value_type = ?, default_value = ? WHERE id = ?')
      .run(p.description ?? null, p.valueType, p.defaultValue === undefined || p.defaultValue === null ? null : JSON.stringify(p.defaultValue), old.id);
    if (old.valueType !== p.valueType) await store.statement('DELETE FROM custom_driver_association_parameters WHERE parameter_id = ?').run(old.id);
  }
  for (const gone of current.values()) await store.statement('DELETE FROM custom_driver_parameters WHERE id = ?').run(gone.id);
}

export async function updateCustomDriver(store: Store, id: number, change: CustomDriverChange): Promise<CustomDriverRow> {
  refuseProblems(customDriverProblems(change));
  return await store.transaction(async () => {
    const driver = await getCustomDriver(store, id);
    if (!driver) throw new StoreError('NOT_FOUND', `custom driver ${id} not found`);
    if (change.name !== undefined) await refuseTakenName(store, change.name, id);
    const newCode = change.code !== undefined && change.code !== driver.source;
    const source = change.code ?? driver.source;
    const inspection = newCode ? inspectDriver(source) : driver.inspection;
    await store
      .statement(
        `UPDATE custom_drivers SET name = ?, description = ?, version = ?, source = ?, type = ?, minimal_sample_period = ?,
           requires_credentials = ?, inspection = ?, update_time = ? WHERE id = ?`,
      )
      .run(
        change.name ?? driver.name,
        change.description === undefined ? driver.description : change.description,
        newCode ? driver.version + 1 : driver.version,
        source,
        change.type ?? driver.type,
        change.minimalSamplePeriod ?? driver.minimalSamplePeriod,
        (change.requiresCredentials ?? driver.requiresCredentials) ? 1 : 0,
        JSON.stringify(inspection),
        store.now(),
        id,
      );
    if (change.parameters !== undefined) await replaceParameters(store, driver, change.parameters);
    return (await getCustomDriver(store, id))!;
  });
}

/**
 * Deleting a driver that is applied to devices would delete their variables without a word:
 * the associations must be deleted first.
 */
export async function deleteCustomDriver(store: Store, id: number): Promise<void> {
  await store.transaction(async () => {
    const driver = await getCustomDriver(store, id);
    if (!driver) throw new StoreError('NOT_FOUND', `custom driver ${id} not found`);
    if (driver.deviceIds.length > 0) {
      throw new StoreError(
        'CONFLICT',
        `custom driver ${id} is applied to device(s) ${driver.deviceIds.join(', ')}: delete its associations first (deleteCustomDriverAssociation)`,
      );
    }
    await store.statement('DELETE FROM custom_drivers WHERE id = ?').run(id);
  });
}
