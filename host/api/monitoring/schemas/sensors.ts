// Records of the SNMP/TCP SENSORS tag: their TypeScript shapes (for the client) and JSON
// schemas (for request validation, response serialization and the OpenAPI document).
import { SNMP_CATEGORIES, SNMP_VALUE_TYPES, type SnmpCategory, type SnmpValueType } from '../../../store/monitoring/sensors.js';
import { dateTime, nullableDateTime } from '../route-schema.js';

export interface SnmpAgentEye {
  id: number;
  device_id: number;
  name: string;
  oid: string;
  category: SnmpCategory;
  value_type: SnmpValueType;
}

export interface SnmpEye extends SnmpAgentEye {
  /** null until the sensor's first sample. */
  last_update: string | null;
  latest_value: string | null;
  /** Left out when the value is not an enum's (never null: reference 1.14.0). */
  latest_enum_value?: string;
}

export interface SnmpEyeCreation {
  name: string;
  oid: string;
  category: SnmpCategory;
  value_type: SnmpValueType;
}

export interface TcpEye {
  id: number;
  device_id: number;
  port: number;
  status: 'UP' | 'DOWN';
  last_update: string;
}

export interface TcpEyeCreation {
  port: number;
}

export interface SnmpTriggerFunction {
  id: number;
  name: string;
  cardinality: number;
  value_types: SnmpValueType;
}

export interface SnmpTrigger {
  id: number;
  name: string;
  function_id: number;
  operands: string[];
  creation_time: string;
  alert: { email: boolean; mobile: boolean };
}

export interface SnmpTriggerCreation {
  name: string;
  function_id: number;
  operands: string[];
}

export interface SnmpHistorySample {
  timestamp: string;
  value: string;
  enum_value?: string;
}

export interface EyesUsageInformation {
  limit: number;
  usage: { snmp: number; tcp: number; total: number };
}

export type AlertMedium = 'email' | 'mobile';

const id = { type: 'integer' } as const;
const category = { type: 'string', enum: [...SNMP_CATEGORIES] } as const;
const valueType = { type: 'string', enum: [...SNMP_VALUE_TYPES] } as const;

const snmpAgentEyeProperties = {
  id,
  device_id: id,
  name: { type: 'string' },
  oid: { type: 'string' },
  category,
  value_type: valueType,
} as const;

export const snmpAgentEyeSchema = {
  type: 'object',
  required: ['id', 'name', 'oid', 'category', 'value_type'],
  properties: snmpAgentEyeProperties,
} as const;

export const snmpEyeSchema = {
  type: 'object',
  required: ['id', 'name', 'oid', 'category', 'value_type', 'last_update', 'latest_value'],
  properties: {
    ...snmpAgentEyeProperties,
    last_update: { ...nullableDateTime, description: 'Time of the latest sample; null before the first' },
    latest_value: { type: ['string', 'null'], description: 'The latest value read; null before the first sample' },
    latest_enum_value: { type: 'string' },
  },
} as const;

export const snmpEyeCreationSchema = {
  type: 'object',
  required: ['name', 'oid', 'category', 'value_type'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    // A numeric OID, dotted (an optional leading dot is allowed).
    oid: { type: 'string', pattern: '^\\.?[0-9]+(\\.[0-9]+)+$', description: 'A numeric OID such as 1.3.6.1.2.1.1.3.0' },
    category,
    value_type: valueType,
  },
} as const;

export const tcpEyeSchema = {
  type: 'object',
  required: ['id', 'port', 'status', 'last_update'],
  properties: {
    id,
    device_id: id,
    port: { type: 'integer' },
    status: { type: 'string', enum: ['UP', 'DOWN'] },
    last_update: dateTime,
  },
} as const;

export const tcpEyeCreationSchema = {
  type: 'object',
  required: ['port'],
  additionalProperties: false,
  properties: { port: { type: 'integer', minimum: 1, maximum: 65535 } },
} as const;

export const snmpTriggerFunctionSchema = {
  type: 'object',
  required: ['id', 'name', 'cardinality', 'value_types'],
  properties: { id, name: { type: 'string' }, cardinality: { type: 'integer' }, value_types: valueType },
} as const;

export const snmpTriggerSchema = {
  type: 'object',
  required: ['id', 'name', 'function_id', 'operands'],
  properties: {
    id,
    name: { type: 'string' },
    function_id: id,
    operands: { type: 'array', items: { type: 'string' } },
    creation_time: dateTime,
    alert: {
      type: 'object',
      properties: { email: { type: 'boolean' }, mobile: { type: 'boolean' } },
    },
  },
} as const;

export const snmpTriggerCreationSchema = {
  type: 'object',
  required: ['name', 'function_id', 'operands'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    function_id: { type: 'integer' },
    operands: { type: 'array', items: { type: 'string' }, maxItems: 16 },
  },
} as const;

export const snmpTriggerAlertCreationSchema = { type: 'object', additionalProperties: false, properties: {} } as const;

export const snmpHistorySampleSchema = {
  type: 'object',
  required: ['timestamp', 'value'],
  properties: { timestamp: dateTime, value: { type: 'string' }, enum_value: { type: 'string' } },
} as const;

export const eyesUsageSchema = {
  type: 'object',
  required: ['limit', 'usage'],
  properties: {
    limit: { type: 'integer', description: 'How many sensors the agent may have' },
    usage: {
      type: 'object',
      required: ['snmp', 'tcp', 'total'],
      properties: { snmp: { type: 'integer' }, tcp: { type: 'integer' }, total: { type: 'integer' } },
    },
  },
} as const;
