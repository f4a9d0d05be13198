// Device profiles (1.14.0): the catalogue record and the body of applyDeviceProfile.
import { dateTime } from '../route-schema.js';

export interface DeviceProfileModule {
  id: number;
  module_type: 'INFO' | 'SHARED_ALERT' | 'SNMP_CUSTOM_OID' | 'SNMP_PRECONFIGURED_SENSOR' | 'TCP_SENSOR';
  apply_mode: 'REPLACE' | 'ADDITIVE';
  is_active: boolean;
  creation_time: string;
  last_modified: string;
}

export interface DeviceProfile {
  id: number;
  name: string;
  description: string;
  creation_time: string;
  last_modified: string;
  modified_by: { id?: number; name?: string };
  modules: DeviceProfileModule[];
}

export interface DeviceProfileApplyRequest {
  device_ids: number[];
}

export const deviceProfileSchema = {
  type: 'object',
  required: ['id', 'name', 'description', 'creation_time', 'last_modified', 'modified_by', 'modules'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    creation_time: dateTime,
    last_modified: dateTime,
    modified_by: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } },
    modules: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'module_type', 'apply_mode', 'is_active', 'creation_time', 'last_modified'],
        properties: {
          id: { type: 'integer' },
          module_type: { type: 'string', enum: ['INFO', 'SHARED_ALERT', 'SNMP_CUSTOM_OID', 'SNMP_PRECONFIGURED_SENSOR', 'TCP_SENSOR'] },
          apply_mode: { type: 'string', enum: ['REPLACE', 'ADDITIVE'] },
          is_active: { type: 'boolean' },
          creation_time: dateTime,
          last_modified: dateTime,
        },
      },
    },
  },
} as const;

/** At most this many devices per request: one transaction, one activity entry each. */
export const MAX_PROFILE_DEVICES = 1000;

export const deviceProfileApplyRequestSchema = {
  type: 'object',
  required: ['device_ids'],
  additionalProperties: false,
  properties: {
    device_ids: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_PROFILE_DEVICES,
      items: { type: 'integer', minimum: 0, maximum: 2147483647 },
      description: 'The devices to apply the profile to (of agents the key may use)',
    },
  },
} as const;
