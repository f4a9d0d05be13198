// Records of VPN sessions, direct device connections and connection consumption.
import { dateTime } from '../route-schema.js';

export type VpnRoutingPolicy = 'global' | 'local';
export type ConnectionProtocol = 'http' | 'https' | 'tcp' | 'ssh' | 'rdp';

export interface ConnectionConsumption {
  /** Bytes consumed by the agent's VPN sessions and device connections. */
  current: number;
  /** Bytes allowed. */
  limit: number;
}

export interface AgentVPNActiveConnection {
  id: number;
  /** The user that started the session. */
  name: string;
  bytes: number;
  creation_time: string;
  expiration_time: string;
  status: 'ACTIVE' | 'INACTIVE' | 'EXPIRED';
}

export interface AgentVPNConnection {
  allowed_ip: string;
  routing_policy: VpnRoutingPolicy;
  /** Default 1. */
  ttl_hours?: number;
}

export interface DeviceConnection {
  allowed_ip: string;
  port: number;
  protocol: ConnectionProtocol;
  /** Default 1. */
  ttl_hours?: number;
}

export interface ConnectionSession {
  id: number;
  allowed_ip: string;
  link: string;
  port: number;
  protocol: ConnectionProtocol;
  expiration: string;
}

export const MAX_TTL_HOURS = 168;

const ttlHours = { type: 'integer', minimum: 1, maximum: MAX_TTL_HOURS, default: 1, description: `Hours the session lasts, 1 to ${MAX_TTL_HOURS}` } as const;
const allowedIp = { type: 'string', minLength: 1, description: 'The only public IP address allowed to use the connection' } as const;
const protocol = { type: 'string', enum: ['http', 'https', 'tcp', 'ssh', 'rdp'] } as const;

export const connectionConsumptionSchema = {
  type: 'object',
  required: ['current', 'limit'],
  properties: { current: { type: 'integer', description: 'bytes' }, limit: { type: 'integer', description: 'bytes' } },
} as const;

export const vpnActiveConnectionSchema = {
  type: 'object',
  required: ['id', 'name', 'bytes', 'creation_time', 'expiration_time', 'status'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    bytes: { type: 'integer' },
    creation_time: dateTime,
    expiration_time: dateTime,
    status: { type: 'string', enum: ['ACTIVE', 'INACTIVE', 'EXPIRED'] },
  },
} as const;

export const vpnConnectionRequestSchema = {
  type: 'object',
  required: ['allowed_ip', 'routing_policy'],
  additionalProperties: false,
  properties: { allowed_ip: allowedIp, routing_policy: { type: 'string', enum: ['global', 'local'] }, ttl_hours: ttlHours },
} as const;

export const deviceConnectionRequestSchema = {
  type: 'object',
  required: ['allowed_ip', 'port', 'protocol'],
  additionalProperties: false,
  properties: { allowed_ip: allowedIp, port: { type: 'integer', minimum: 1, maximum: 65535 }, protocol, ttl_hours: ttlHours },
} as const;

export const connectionSessionSchema = {
  type: 'object',
  required: ['id', 'allowed_ip', 'port', 'protocol'],
  properties: {
    id: { type: 'integer' },
    allowed_ip: { type: 'string' },
    link: { type: 'string' },
    port: { type: 'integer' },
    protocol,
    expiration: dateTime,
  },
} as const;
