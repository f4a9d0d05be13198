// Variable records of the Monitoring API (DeviceVariable, AgentVariable, AgentDeviceVariable,
// VariableHistorySample), as TypeScript types for the client and JSON schemas for the server.
import { dateTime } from '../route-schema.js';

/** DeviceVariable / AgentVariable. An optional field of the reference is left out when unknown (never null). */
export interface Variable {
  id: number;
  path: string;
  label?: string;
  unit?: string;
  value?: string;
  previous_value?: string;
  /** Left out for variables written by drivers (see docs/reference/monitoring-api/variables.md). */
  metric?: string;
  has_history: boolean;
  creation_time?: string;
  value_update_time?: string;
}

/** A variable of the agent-wide device variable list. */
export interface AgentDeviceVariable extends Variable {
  device_id: number;
}

export interface VariableHistorySample {
  timestamp: string;
  /** Null when the driver reported the variable without a value. */
  value: string | null;
}

/** from / to: yyyy-mm-ddThh:mm:ss in UTC; default the week before now. */
export interface VariableHistoryQuery {
  from?: string;
  to?: string;
}

export type VariableSortBy = 'path' | 'id' | 'value' | 'label' | 'value_update_time' | 'creation_time';

/** Filters of the lists and counts: exact, case-sensitive matches. */
export interface VariableFilterQuery {
  value?: string;
  path?: string;
  has_history?: boolean;
  metric?: string;
}

export interface VariableListQuery extends VariableFilterQuery {
  page_size?: number;
  page_number?: number;
  sort_by?: VariableSortBy;
  sorting_direction?: 'asc' | 'desc';
}

export interface AgentDeviceVariableListQuery extends Omit<VariableListQuery, 'sort_by'> {
  sort_by?: VariableSortBy | 'device_id';
}

const nullableString = { type: ['string', 'null'] } as const;
const optionalString = { type: 'string' } as const;

const variableProperties = {
  id: { type: 'integer', description: 'The ID of the variable' },
  path: { type: 'string', description: 'The variable path (the uid the driver gave it)' },
  label: optionalString,
  unit: optionalString,
  value: optionalString,
  previous_value: { type: 'string', description: 'The value this one replaced' },
  metric: optionalString,
  has_history: { type: 'boolean', description: 'If true the history can be read with getVariableHistory' },
  creation_time: dateTime,
  value_update_time: dateTime,
} as const;

export const variableSchema = {
  type: 'object',
  required: ['id', 'path', 'has_history'],
  properties: variableProperties,
} as const;

export const agentDeviceVariableSchema = {
  type: 'object',
  required: ['id', 'path', 'has_history', 'device_id'],
  properties: { ...variableProperties, device_id: { type: 'integer', description: 'The ID of the device' } },
} as const;

export const variableHistorySampleSchema = {
  type: 'object',
  required: ['timestamp', 'value'],
  properties: { timestamp: dateTime, value: nullableString },
} as const;
