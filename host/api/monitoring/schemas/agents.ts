// Agent records of the Monitoring API: TypeScript types for the client, JSON schemas for the
// server (validation, serialization, the OpenAPI document). Field names are the reference's.
import { dateTime, nullableDateTime } from '../route-schema.js';

export type AgentAccessStatus = 'OWNED' | 'PROPOSED' | 'GRANTED' | 'ASSIGNED';

export interface Agent {
  id: number;
  display_name: string;
  creation_time?: string;
  access_right?: { api_enabled?: boolean; granting_user?: { name?: string }; status?: AgentAccessStatus };
  installation_info?: { contract_id?: string | null; customer_id?: string | null };
  licence?: {
    activation_time?: string | null;
    expiration_time?: string | null;
    bound_mac_address?: string | null;
    code?: string | null;
    id?: number | null;
  };
  location?: { latitude?: string | null; longitude?: string | null };
  organization?: { id?: number | null; name?: string | null };
  status?: { value?: 'ONLINE' | 'OFFLINE'; last_change?: string };
  team?: { area?: { id?: number | null }; id?: number | null; leader_id?: number | null; name?: string | null };
  timezone?: string;
  version?: { agent?: string | null; package?: string | null };
}

export interface AgentDetail extends Agent {
  listen_on?: string | null;
}

export interface AgentListQuery {
  page_size?: number;
  page_number?: number;
  display_name?: string;
  team_name?: string;
}

const nullableString = { type: ['string', 'null'] } as const;
const nullableInteger = { type: ['integer', 'null'] } as const;

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
  installation_info: { type: 'object', properties: { contract_id: nullableString, customer_id: nullableString } },
  licence: {
    type: 'object',
    properties: {
      activation_time: nullableDateTime,
      expiration_time: nullableDateTime,
      bound_mac_address: nullableString,
      code: nullableString,
      id: nullableInteger,
    },
  },
  location: { type: 'object', properties: { latitude: nullableString, longitude: nullableString } },
  organization: { type: 'object', properties: { id: nullableInteger, name: nullableString } },
  status: { type: 'object', properties: { value: { type: 'string', enum: ['ONLINE', 'OFFLINE'] }, last_change: dateTime } },
  team: {
    type: 'object',
    description: 'The team and company area; only for companies',
    properties: { area: { type: 'object', properties: { id: nullableInteger } }, id: nullableInteger, leader_id: nullableInteger, name: nullableString },
  },
  timezone: { type: 'string' },
  version: { type: 'object', properties: { agent: nullableString, package: nullableString } },
} as const;

export const agentSchema = { type: 'object', required: ['id', 'display_name'], properties: agentProperties } as const;

export const agentDetailSchema = {
  type: 'object',
  required: ['id', 'display_name'],
  properties: {
    ...agentProperties,
    listen_on: { type: ['string', 'null'], description: 'The address and port the agent listens on; the last known one when offline' },
  },
} as const;
