// D.createVariable / D.device.createVariable. Invalid identity (uid, value type) throws,
// as on the public collector; text past its documented length is cut with a warning,
// because the public collector accepts it and drivers in the wild rely on that.
import { bounds, reservedPathWords, valueType } from './constants';
import { raise } from './error-text';
import type { VariableRecord } from './protocol';
import type { Warn } from './warnings';
import { duplicateUidWarning } from './duplicate-uids';
import { SavedString, append, hasOwn, mapGet, mapSet, stringIncludes, stringSlice } from './intrinsics';

export class Variable {
  uid: string;
  label: string;
  value: string | null;
  unit: string | null;
  valueType: string;
  constructor(record: VariableRecord) {
    this.uid = record.uid;
    this.label = record.label;
    this.value = record.value;
    this.unit = record.unit;
    this.valueType = record.valueType;
  }
}

export function fitText(text: string, max: number, what: string, warn: Warn): string {
  if (text.length <= max) return text;
  warn(`${what} is ${text.length} characters long; cut to the limit of ${max}`);
  return stringSlice(text, 0, max);
}

export function checkValueType(type: unknown, what: string): string {
  if (type === undefined || type === null || type === '') return valueType.STRING;
  if (typeof type !== 'string' || !hasOwn(valueType, type)) {
    throw raise(new TypeError(`${what}: invalid value type ${JSON.stringify(type)}; use one of D.valueType (${Object.keys(valueType).join(', ')})`));
  }
  return type;
}

export function stringifyValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return SavedString(value);
}

/** The first segment of a/b/c that is a reserved word, without String.prototype.split. */
function reservedSegment(text: string): string | undefined {
  for (let i = 0; i < reservedPathWords.length; i++) {
    const word = reservedPathWords[i]!;
    if (text === word || stringIncludes(`/${text}/`, `/${word}/`)) return word;
  }
  return undefined;
}

function checkUid(uid: unknown): string {
  if (uid === null || uid === undefined || (typeof uid !== 'string' && typeof uid !== 'number')) {
    throw raise(new TypeError(`Invalid variable uid: ${String(uid)} (a string of 1 to ${bounds.uid} characters is required)`));
  }
  const text = SavedString(uid);
  if (text.length < 1 || text.length > bounds.uid) {
    throw raise(new RangeError(`Invalid variable uid: "${text}" is ${text.length} characters long (1 to ${bounds.uid} allowed)`));
  }
  const reserved = reservedSegment(text);
  if (reserved) {
    throw raise(new RangeError(`Invalid variable uid: "${text}" uses the reserved word "${reserved}" (table, column and history are reserved)`));
  }
  return text;
}

function fitVariable(uid: string, label: unknown, value: unknown, unit: unknown, type: unknown, warn: Warn): VariableRecord {
  const where = `variable "${uid}"`;
  const labelText = label === undefined || label === null ? uid : SavedString(label);
  const unitText = unit === undefined || unit === null || unit === '' ? null : SavedString(unit);
  const valueText = stringifyValue(value);
  return {
    uid,
    label: fitText(labelText, bounds.variableLabel, `label of ${where}`, warn),
    value: valueText === null ? null : fitText(valueText, bounds.value, `value of ${where}`, warn),
    unit: unitText === null ? null : fitText(unitText, bounds.unit, `unit of ${where}`, warn),
    valueType: checkValueType(type, where),
  };
}

export function createVariableFactory(warn: Warn) {
  return function createVariable(uid: unknown, label: unknown, value: unknown, unit?: unknown, type?: unknown): Variable {
    return new Variable(fitVariable(checkUid(uid), label, value, unit, type, warn));
  };
}

/**
 * Turns what the driver passed to D.success into records. Drivers may edit a variable's
 * fields after creating it, so every field is checked again, by the same rules. A uid given
 * more than once is reported every time, with one warning (runtime/duplicate-uids.ts).
 */
export function collectVariables(list: unknown[], warn: Warn): VariableRecord[] {
  const byUid = new Map<string, Array<string | null>>(); // through the saved Map methods only
  const repeated: string[] = [];
  const out: VariableRecord[] = [];
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!item || typeof item !== 'object') {
      warn(`D.success received something that is not a variable (${describe(item)}); it was left out`);
      continue;
    }
    const v = item as Record<string, unknown>;
    const record = fitVariable(checkUid(v.uid), v.label, v.value, v.unit, v.valueType, warn);
    append(out, record);
    const values = mapGet(byUid, record.uid);
    if (values === undefined) mapSet(byUid, record.uid, [record.value]);
    else {
      if (values.length === 1) append(repeated, record.uid);
      append(values, record.value);
    }
  }
  for (let i = 0; i < repeated.length; i++) warn(duplicateUidWarning(repeated[i]!, mapGet(byUid, repeated[i]!)!));
  return out;
}

export function describe(item: unknown): string {
  if (item === null) return 'null';
  if (Array.isArray(item)) return 'an array';
  return typeof item;
}
