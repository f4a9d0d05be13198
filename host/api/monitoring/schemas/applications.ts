// Records of the application operations (tag "device"): applications found on devices.
import { dateTime } from '../route-schema.js';

/** An unknown optional field is left out, never null (reference 1.14.0). */
export interface DeviceApplication {
  application_id: string;
  first_time_seen: string;
  name?: string;
  publisher?: string;
  version?: string;
  info?: string;
  install_location?: string;
  install_date?: string;
  last_modified?: string;
  last_update?: string;
}

export interface AgentDeviceApplication extends DeviceApplication {
  /** A string, as the reference has it. */
  device_id: string;
}

export interface ApplicationQuery {
  page_size?: number;
  page_number?: number;
  /** Case-insensitive part of the name. */
  name?: string;
  /** Comma-separated device ids, e.g. "3,7". */
  device_ids?: string;
}

const optionalString = { type: 'string' } as const;

const deviceApplicationProperties = {
  application_id: { type: 'string' },
  first_time_seen: dateTime,
  name: optionalString,
  publisher: optionalString,
  version: optionalString,
  info: optionalString,
  install_location: optionalString,
  install_date: dateTime,
  last_modified: dateTime,
  last_update: dateTime,
} as const;

export const deviceApplicationSchema = {
  type: 'object',
  required: ['application_id', 'first_time_seen'],
  properties: deviceApplicationProperties,
} as const;

export const agentDeviceApplicationSchema = {
  type: 'object',
  required: ['application_id', 'device_id', 'first_time_seen'],
  properties: { ...deviceApplicationProperties, device_id: { type: 'string' } },
} as const;

export const applicationFilterQuery = {
  name: { type: 'string', description: 'Applications whose name contains this (case-insensitive)' },
  device_ids: { type: 'string', description: 'Comma-separated device ids', pattern: '^\\s*\\d+\\s*(,\\s*\\d+\\s*)*$' },
} as const;
