// Device records and device request bodies of the Monitoring API: TypeScript types for the
// client, JSON schemas for the server. One record type covers every protocol: IP devices
// carry the IpDevice fields (status, ip_addresses, agent_reachable…) and hw_address / names,
// external hosts carry names.host, DUMMY devices only the common fields.
// An unknown optional field is left out (present.ts), never null: reference 1.14.0 types none nullable.
import { dateTime } from '../route-schema.js';

export type DeviceProtocol = 'IP' | 'DUMMY' | 'IP_EXTERNAL';
export type DeviceStatusValue = 'ONLINE' | 'OFFLINE' | 'DOWN' | 'HIDDEN';
export type AuthenticationStatus = 'NO_AUTHENTICATION' | 'AUTHENTICATED' | 'PENDING' | 'REQUIRED' | 'WRONG_CREDENTIALS';

export interface Device {
  id: number;
  main_id?: number;
  display_name: string;
  protocol: DeviceProtocol;
  first_seen_on?: string;
  authentication_status?: AuthenticationStatus;
  importance?: 'VITAL' | 'FLOATING';
  details?: { firmware_version?: string; room?: string; serial?: string; zone?: string };
  os?: { build?: string; name?: string; version?: string };
  type?: { detected_id?: number; id?: number; label?: string };
  user_data?: { model?: string; name?: string; type?: number; vendor?: string };
  // IP and IP_EXTERNAL devices
  status?: DeviceStatusValue;
  agent_reachable?: boolean;
  ip_addresses?: string[];
  last_status_change?: string;
  model?: string;
  vendor?: string;
  open_ports?: { tcp?: number[]; udp?: number[] };
  names?: { host?: string; inspection?: string };
  // IP devices
  hw_address?: string;
  is_jammed?: boolean;
}

export const EDITABLE_FIELDS = [
  'importance',
  'user_data/model',
  'user_data/type',
  'user_data/name',
  'user_data/vendor',
  'details/room',
  'details/zone',
  'details/serial',
] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

export interface ExternalHost {
  /** A host name or an IP address. */
  host: string;
  name: string;
}

export const CREDENTIAL_SCOPES = ['CUSTOM_DRIVER_MANAGEMENT', 'CONFIGURATION_MANAGEMENT', 'DEVICE_MANAGEMENT', 'OS_MANAGEMENT'] as const;

export interface DeviceCredentialsRequest {
  username: string;
  password: string;
  /** Default DEVICE_MANAGEMENT. */
  scope?: (typeof CREDENTIAL_SCOPES)[number];
}

export const SNMP_VERSIONS = ['V1', 'V2', 'V3_NO_AUTH', 'V3_AUTH_NO_PRIV', 'V3_AUTH_PRIV'] as const;
export const SNMP_AUTHENTICATION_PROTOCOLS = ['MD5', 'SHA', 'SHA-224', 'SHA-256', 'SHA-384', 'SHA-512'] as const;
export const SNMP_ENCRYPTION_PROTOCOLS = ['DES', 'AES', 'AES-256B', 'AES-256R'] as const;

export interface SnmpAuthentication {
  version: (typeof SNMP_VERSIONS)[number];
  username?: string;
  authentication_protocol?: (typeof SNMP_AUTHENTICATION_PROTOCOLS)[number];
  authentication_key?: string;
  encryption_protocol?: (typeof SNMP_ENCRYPTION_PROTOCOLS)[number];
  encryption_key?: string;
  snmp_read_community?: string;
  snmp_write_community?: string;
}

export interface SnmpCommunity {
  read: string;
  /** Default: the read community. */
  write?: string;
}

const optionalString = { type: 'string' } as const;
const optionalInteger = { type: 'integer' } as const;

export const deviceSchema = {
  type: 'object',
  required: ['id', 'display_name', 'protocol'],
  properties: {
    id: { type: 'integer' },
    main_id: { type: 'integer' },
    display_name: { type: 'string' },
    protocol: { type: 'string', enum: ['IP', 'DUMMY', 'IP_EXTERNAL'] },
    first_seen_on: dateTime,
    authentication_status: { type: 'string', enum: ['NO_AUTHENTICATION', 'AUTHENTICATED', 'PENDING', 'REQUIRED', 'WRONG_CREDENTIALS'] },
    importance: { type: 'string', enum: ['VITAL', 'FLOATING'] },
    details: {
      type: 'object',
      properties: { firmware_version: optionalString, room: optionalString, serial: optionalString, zone: optionalString },
    },
    os: { type: 'object', properties: { build: optionalString, name: optionalString, version: optionalString } },
    type: { type: 'object', properties: { detected_id: optionalInteger, id: optionalInteger, label: optionalString } },
    user_data: { type: 'object', properties: { model: optionalString, name: optionalString, type: optionalInteger, vendor: optionalString } },
    status: { type: 'string', enum: ['ONLINE', 'OFFLINE', 'DOWN', 'HIDDEN'], description: 'IP and IP_EXTERNAL devices; HIDDEN for a hidden device' },
    agent_reachable: { type: 'boolean' },
    ip_addresses: { type: 'array', items: { type: 'string' } },
    last_status_change: dateTime,
    model: optionalString,
    vendor: optionalString,
    open_ports: { type: 'object', properties: { tcp: { type: 'array', items: { type: 'integer' } }, udp: { type: 'array', items: { type: 'integer' } } } },
    names: { type: 'object', properties: { host: optionalString, inspection: optionalString } },
    hw_address: { type: 'string', description: 'MAC address (IP devices)' },
    is_jammed: { type: 'boolean' },
  },
} as const;

export const externalHostSchema = {
  type: 'object',
  required: ['host', 'name'],
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1, maxLength: 253, description: 'Host name or IP address' },
    name: { type: 'string', minLength: 1, maxLength: 255, description: 'Device name' },
  },
} as const;

export const deviceCredentialsSchema = {
  type: 'object',
  required: ['username', 'password'],
  additionalProperties: false,
  properties: {
    username: { type: 'string' },
    password: { type: 'string' },
    scope: { type: 'string', enum: [...CREDENTIAL_SCOPES], default: 'DEVICE_MANAGEMENT' },
  },
} as const;

export const snmpAuthenticationSchema = {
  type: 'object',
  required: ['version'],
  additionalProperties: false,
  properties: {
    version: { type: 'string', enum: [...SNMP_VERSIONS] },
    username: { type: 'string' },
    authentication_protocol: { type: 'string', enum: [...SNMP_AUTHENTICATION_PROTOCOLS] },
    authentication_key: { type: 'string' },
    encryption_protocol: { type: 'string', enum: [...SNMP_ENCRYPTION_PROTOCOLS] },
    encryption_key: { type: 'string' },
    snmp_read_community: { type: 'string' },
    snmp_write_community: { type: 'string' },
  },
} as const;

export const snmpCommunitySchema = {
  type: 'object',
  required: ['read'],
  additionalProperties: false,
  properties: { read: { type: 'string', minLength: 1 }, write: { type: 'string', minLength: 1 } },
} as const;
