// Triggers of SNMP sensors: a condition (a function of the fixed catalogue below applied to
// the sensor's value with operands) and the alert media switched on for it. Triggers are
// stored and listed; driverbox does not evaluate them or send alerts.
import { parseJsonColumn } from '../db/json-column.js';
import type { SnmpValueType } from './sensors.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export interface SnmpTriggerFunction {
  id: number;
  name: string;
  /** How many operands a trigger of this function takes. */
  cardinality: number;
  /** The value type of the sensors it applies to, and of its operands. */
  valueTypes: SnmpValueType;
}

/** The catalogue of trigger functions (id 2, "is greater than" with one operand, as the spec shows). */
export const SNMP_TRIGGER_FUNCTIONS: readonly SnmpTriggerFunction[] = [
  { id: 1, name: 'is equal to', cardinality: 1, valueTypes: 'NUMERIC' },
  { id: 2, name: 'is greater than', cardinality: 1, valueTypes: 'NUMERIC' },
  { id: 3, name: 'is less than', cardinality: 1, valueTypes: 'NUMERIC' },
  { id: 4, name: 'is between', cardinality: 2, valueTypes: 'NUMERIC' },
  { id: 5, name: 'is not between', cardinality: 2, valueTypes: 'NUMERIC' },
  { id: 6, name: 'is equal to', cardinality: 1, valueTypes: 'STRING' },
  { id: 7, name: 'is not equal to', cardinality: 1, valueTypes: 'STRING' },
  { id: 8, name: 'contains', cardinality: 1, valueTypes: 'STRING' },
  { id: 9, name: 'changes', cardinality: 0, valueTypes: 'STRING' },
  { id: 10, name: 'is equal to', cardinality: 1, valueTypes: 'ENUM' },
  { id: 11, name: 'is not equal to', cardinality: 1, valueTypes: 'ENUM' },
  { id: 12, name: 'changes', cardinality: 0, valueTypes: 'ENUM' },
];

/** The functions a sensor of this value type can use. */
export function triggerFunctionsFor(valueType: SnmpValueType): SnmpTriggerFunction[] {
  return SNMP_TRIGGER_FUNCTIONS.filter((f) => f.valueTypes === valueType);
}

export type AlertMedium = 'email' | 'mobile';

export interface SnmpTriggerRow {
  id: number;
  sensorId: number;
  name: string;
  functionId: number;
  operands: string[];
  creationTime: number;
  alert: { email: boolean; mobile: boolean };
}

interface TriggerDbRow {
  id: number;
  sensor_id: number;
  name: string;
  function_id: number;
  operands: string;
  creation_time: number;
  alert_email: number;
  alert_mobile: number;
}

function triggerFromDb(row: TriggerDbRow): SnmpTriggerRow {
  return {
    id: row.id,
    sensorId: row.sensor_id,
    name: row.name,
    functionId: row.function_id,
    operands: parseJsonColumn<string[]>(row.operands, []),
    creationTime: row.creation_time,
    alert: { email: row.alert_email === 1, mobile: row.alert_mobile === 1 },
  };
}

/**
 * Adds a trigger to a sensor. The function must be in the catalogue for the sensor's value
 * type, the operand count must equal its cardinality, and NUMERIC operands must be numbers.
 * Errors are StoreError INVALID naming the field (function_id or operands).
 */
export async function createSnmpTrigger(store: Store, sensorId: number, input: { name: string; functionId: number; operands: string[] }): Promise<SnmpTriggerRow> {
  const sensor = await store.statement<[number], { value_type: SnmpValueType }>('SELECT value_type FROM snmp_sensors WHERE id = ?').get(sensorId);
  if (!sensor) throw new StoreError('NOT_FOUND', `SNMP sensor ${sensorId} not found`);
  const fn = SNMP_TRIGGER_FUNCTIONS.find((f) => f.id === input.functionId);
  if (!fn) {
    throw new StoreError('INVALID', `function_id: ${input.functionId} is not a trigger function; listEyesSNMPTriggerFunction lists them`);
  }
  if (fn.valueTypes !== sensor.value_type) {
    throw new StoreError('INVALID', `function_id: function ${fn.id} ("${fn.name}") applies to ${fn.valueTypes} sensors; sensor ${sensorId} is ${sensor.value_type}`);
  }
  if (input.operands.length !== fn.cardinality) {
    throw new StoreError('INVALID', `operands: function ${fn.id} ("${fn.name}") takes ${fn.cardinality} operand(s), ${input.operands.length} given`);
  }
  if (fn.valueTypes === 'NUMERIC') {
    const bad = input.operands.findIndex((o) => o.trim() === '' || !Number.isFinite(Number(o)));
    if (bad >= 0) throw new StoreError('INVALID', `operands.${bad}: "${input.operands[bad]}" is not a number, and function ${fn.id} compares numbers`);
  }
  const info = await store
    .statement('INSERT INTO snmp_triggers (sensor_id, name, function_id, operands, creation_time) VALUES (?, ?, ?, ?, ?)')
    .insert(sensorId, input.name, fn.id, JSON.stringify(input.operands), store.now());
  return (await getSnmpTrigger(store, sensorId, info))!;
}

export async function getSnmpTrigger(store: Store, sensorId: number, triggerId: number): Promise<SnmpTriggerRow | undefined> {
  const row = await store.statement<[number, number], TriggerDbRow>('SELECT * FROM snmp_triggers WHERE sensor_id = ? AND id = ?').get(sensorId, triggerId);
  return row ? triggerFromDb(row) : undefined;
}

export async function listSnmpTriggers(store: Store, sensorId: number): Promise<SnmpTriggerRow[]> {
  return (await store.statement<[number], TriggerDbRow>('SELECT * FROM snmp_triggers WHERE sensor_id = ? ORDER BY id').all(sensorId)).map(triggerFromDb);
}

export async function deleteSnmpTrigger(store: Store, sensorId: number, triggerId: number): Promise<boolean> {
  return (await store.statement('DELETE FROM snmp_triggers WHERE sensor_id = ? AND id = ?').run(sensorId, triggerId)).changes > 0;
}

/**
 * Switches a trigger's alert on one medium on or off. Answers false when it already was in
 * that state (the route turns that into 409 / 404).
 */
export async function setSnmpTriggerAlert(store: Store, triggerId: number, medium: AlertMedium, active: boolean): Promise<boolean> {
  const column = medium === 'email' ? 'alert_email' : 'alert_mobile';
  return (await store.statement(`UPDATE snmp_triggers SET ${column} = ? WHERE id = ? AND ${column} = ?`).run(active ? 1 : 0, triggerId, active ? 0 : 1)).changes > 0;
}
