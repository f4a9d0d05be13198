// Records of the application operations (tag "device"): applications found on devices.
import { nullableDateTime, dateTime } from '../route-schema.js';

export interface DeviceApplication {
  application_id: string;
  first_time_seen: string;
  name: string | null;
  publisher: string | null;
  version: string | null;
  info: string | null;
  install_location: string | null;
  install_date: string | null;
  last_modified: string | null;
  last_update: string | null;
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

const nullableString = { type: ['string', 'null'] } as const;

const deviceApplicationProperties = {
  application_id: { type: 'string' },
  first_time_seen: dateTime,
  name: nullableString,
  publisher: nullableString,
  version: nullableString,
  info: nullableString,
  install_location: nullableString,
  install_date: nullableDateTime,
  last_modified: nullableDateTime,
  last_update: nullableDateTime,
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
