// Agent records of the Monitoring API: TypeScript types for the client, JSON schemas for the
// server (validation, serialization, the OpenAPI document). Field names are the reference's.
// An unknown optional field is left out (present.ts), never null: reference 1.14.0 types none nullable.
import { dateTime } from '../route-schema.js';

export type AgentAccessStatus = 'OWNED' | 'PROPOSED' | 'GRANTED' | 'ASSIGNED';

export interface Agent {
  id: number;
  display_name: string;
  creation_time?: string;
  access_right?: { api_enabled?: boolean; granting_user?: { name?: string }; status?: AgentAccessStatus };
  installation_info?: { contract_id?: string; customer_id?: string };
  licence?: {
    activation_time?: string;
    expiration_time?: string;
    bound_mac_address?: string;
    code?: string;
    id?: number;
  };
  location?: { latitude?: string; longitude?: string };
  organization?: { id?: number; name?: string };
  status?: { value?: 'ONLINE' | 'OFFLINE'; last_change?: string };
  team?: { area?: { id?: number }; id?: number; leader_id?: number; name?: string };
  timezone?: string;
  version?: { agent?: string; package?: string };
}

export interface AgentDetail extends Agent {
  listen_on?: string;
}

export interface AgentListQuery {
  page_size?: number;
  page_number?: number;
  display_name?: string;
  team_name?: string;
}

const optionalString = { type: 'string' } as const;
const optionalInteger = { type: 'integer' } as const;

const agentProperties = {
  id: { type: 'integer' },
  display_name: { type: 'string' },
  creation_time: dateTime,
  access_right: {
    type: 'object',
    properties: {
      api_enabled: { type: 'boolean', description: 'false: the plan gives no API access; the agent is only visible in the list' },
      granting_user: { type: 'object', properties: { name: { type: 'string', format: 'email' } } },
      status: { type: 'string', enum: ['OWNED', 'PROPOSED', 'GRANTED', 'ASSIGNED'] },
    },
  },
  installation_info: { type: 'object', properties: { contract_id: optionalString, customer_id: optionalString } },
  licence: {
    type: 'object',
    properties: {
      activation_time: dateTime,
      expiration_time: dateTime,
      bound_mac_address: optionalString,
      code: optionalString,
      id: optionalInteger,
    },
  },
  location: { type: 'object', properties: { latitude: optionalString, longitude: optionalString } },
  organization: { type: 'object', properties: { id: optionalInteger, name: optionalString } },
  status: { type: 'object', properties: { value: { type: 'string', enum: ['ONLINE', 'OFFLINE'] }, last_change: dateTime } },
  team: {
    type: 'object',
    description: 'The team and company area; only for companies',
    properties: { area: { type: 'object', properties: { id: optionalInteger } }, id: optionalInteger, leader_id: optionalInteger, name: optionalString },
  },
  timezone: { type: 'string' },
  version: { type: 'object', properties: { agent: optionalString, package: optionalString } },
} as const;

export const agentSchema = { type: 'object', required: ['id', 'display_name'], properties: agentProperties } as const;

export const agentDetailSchema = {
  type: 'object',
  required: ['id', 'display_name'],
  properties: {
    ...agentProperties,
    listen_on: { type: 'string', description: 'The address and port the agent listens on; the last known one when offline' },
  },
} as const;
