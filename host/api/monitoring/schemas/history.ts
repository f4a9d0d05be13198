// Uptime and status-history records of the Monitoring API (tag "metrics").
import { dateTime } from '../route-schema.js';

export interface DowntimeInterval {
  start: string;
  end: string;
}

export interface AgentUptime {
  agent_id: number;
  online_seconds: number;
  total_seconds: number;
  /** Percentage, two decimals, no sign: "99.95". */
  uptime: string;
  downtime_intervals?: DowntimeInterval[];
}

export interface DeviceUptime {
  agent_uptime: string;
  online_seconds: number;
  total_seconds: number;
  uptime: string;
  downtime_intervals?: DowntimeInterval[];
}

export interface AgentHistoryEvent {
  timestamp: string;
  type: 'CONNECTION_RECOVERED' | 'CONNECTION_LOST' | 'UP' | 'DOWN';
}

export interface DeviceHistoryEvent {
  timestamp: string;
  type: 'IP_CHANGE' | 'CREATED' | 'UP' | 'DOWN';
  details?: { new_ip?: string[]; old_ip?: string[] };
}

export interface TimeWindowQuery {
  /** yyyy-mm-ddThh:mm:ss in UTC; default one week before `to`. */
  from?: string;
  /** yyyy-mm-ddThh:mm:ss in UTC; default now. */
  to?: string;
}

const percentage = { type: 'string', description: 'Percentage of the window the entity was up, two decimals rounded down: "99.95"' } as const;

const downtimeIntervals = {
  type: 'array',
  items: { type: 'object', required: ['start', 'end'], properties: { start: dateTime, end: dateTime } },
} as const;

export const agentUptimeSchema = {
  type: 'object',
  required: ['agent_id', 'online_seconds', 'total_seconds', 'uptime'],
  properties: {
    agent_id: { type: 'integer' },
    downtime_intervals: downtimeIntervals,
    online_seconds: { type: 'integer' },
    total_seconds: { type: 'integer' },
    uptime: percentage,
  },
} as const;

export const deviceUptimeSchema = {
  type: 'object',
  required: ['agent_uptime', 'online_seconds', 'total_seconds', 'uptime'],
  properties: {
    agent_uptime: percentage,
    downtime_intervals: downtimeIntervals,
    online_seconds: { type: 'integer' },
    total_seconds: { type: 'integer' },
    uptime: percentage,
  },
} as const;

export const agentHistoryEventSchema = {
  type: 'object',
  required: ['timestamp', 'type'],
  properties: { timestamp: dateTime, type: { type: 'string', enum: ['CONNECTION_RECOVERED', 'CONNECTION_LOST', 'UP', 'DOWN'] } },
} as const;

export const deviceHistoryEventSchema = {
  type: 'object',
  required: ['timestamp', 'type'],
  properties: {
    timestamp: dateTime,
    type: { type: 'string', enum: ['IP_CHANGE', 'CREATED', 'UP', 'DOWN'] },
    details: {
      type: 'object',
      properties: { new_ip: { type: 'array', items: { type: 'string' } }, old_ip: { type: 'array', items: { type: 'string' } } },
    },
  },
} as const;
