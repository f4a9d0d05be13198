// The rules a custom driver's definition and an association's parameter values must follow
// (the reference's limits), checked in one place for the API, the CLI and the store. A check
// answers the problems it found, each located as [where, field…], instead of throwing, so the
// API can name every bad field at once.
import { StoreError } from '../../contract/errors.js';

export type ParameterValueType = 'STRING' | 'NUMBER' | 'LIST';
export const PARAMETER_VALUE_TYPES: readonly ParameterValueType[] = ['STRING', 'NUMBER', 'LIST'];

export type CustomDriverType = 'GENERIC' | 'CONFIGURATION_MANAGEMENT';
export const CUSTOM_DRIVER_TYPES: readonly CustomDriverType[] = ['GENERIC', 'CONFIGURATION_MANAGEMENT'];

/** Sample periods (s) an association may use, as the reference lists them. */
export const SAMPLE_PERIODS: readonly number[] = [300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400];

export const MAX_STRING_CHARS = 100;
export const MAX_LIST_ITEMS = 50;

export interface InputProblem {
  loc: Array<string | number>;
  msg: string;
}

/** A parameter value against its type; null when it is acceptable. */
export function parameterValueProblem(valueType: ParameterValueType, value: unknown): string | null {
  switch (valueType) {
    case 'STRING':
      if (typeof value !== 'string') return `a STRING parameter takes a string (got ${describe(value)})`;
      if (value.length > MAX_STRING_CHARS) return `a STRING value is at most ${MAX_STRING_CHARS} characters (got ${value.length})`;
      return null;
    case 'NUMBER':
      if (typeof value !== 'number' || !Number.isFinite(value)) return `a NUMBER parameter takes a number (got ${describe(value)})`;
      return null;
    case 'LIST': {
      if (!Array.isArray(value)) return `a LIST parameter takes an array of strings (got ${describe(value)})`;
      if (value.length > MAX_LIST_ITEMS) return `a LIST value has at most ${MAX_LIST_ITEMS} items (got ${value.length})`;
      const bad = value.findIndex((item) => typeof item !== 'string' || item.length > MAX_STRING_CHARS);
      if (bad >= 0) {
        const item: unknown = value[bad];
        return typeof item === 'string'
          ? `LIST item ${bad} is ${item.length} characters; items are at most ${MAX_STRING_CHARS}`
          : `LIST item ${bad} must be a string (got ${describe(item)})`;
      }
      return null;
    }
  }
}

export function samplePeriodProblem(period: number, minimal: number): string | null {
  if (!SAMPLE_PERIODS.includes(period)) return `must be one of ${SAMPLE_PERIODS.join(', ')} (got ${period})`;
  if (period < minimal) return `must be at least the driver's minimal_sample_period ${minimal} (got ${period})`;
  return null;
}

export interface ParameterDefinition {
  name: string;
  description?: string | null;
  valueType: ParameterValueType;
  /** null or absent: none. */
  defaultValue?: unknown;
}

/** Problems of a driver's parameter definitions: names, types and defaults. */
export function parameterDefinitionProblems(parameters: readonly ParameterDefinition[], where: Array<string | number>): InputProblem[] {
  const problems: InputProblem[] = [];
  const seen = new Set<string>();
  parameters.forEach((p, i) => {
    const at = [...where, i];
    if (typeof p.name !== 'string' || p.name.trim() === '' || p.name.length > MAX_STRING_CHARS) {
      problems.push({ loc: [...at, 'name'], msg: `must be 1 to ${MAX_STRING_CHARS} characters` });
    } else if (seen.has(p.name)) {
      problems.push({ loc: [...at, 'name'], msg: `parameter "${p.name}" is defined twice` });
    }
    seen.add(p.name);
    if (!PARAMETER_VALUE_TYPES.includes(p.valueType)) {
      problems.push({ loc: [...at, 'value_type'], msg: `must be one of ${PARAMETER_VALUE_TYPES.join(', ')}` });
      return;
    }
    if (p.defaultValue !== undefined && p.defaultValue !== null) {
      const msg = parameterValueProblem(p.valueType, p.defaultValue);
      if (msg) problems.push({ loc: [...at, 'default_value'], msg });
    }
  });
  return problems;
}

/** The store's guard: refuses input with problems, naming each. */
export function refuseProblems(problems: readonly InputProblem[]): void {
  if (problems.length === 0) return;
  throw new StoreError('INVALID', problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join('; '));
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string "${value.length > 20 ? `${value.slice(0, 20)}…` : value}"`;
  return `${typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`}`;
}
