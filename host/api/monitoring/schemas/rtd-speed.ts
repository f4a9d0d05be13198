// Records of round-trip delay statistics and history, and of speed-test samples. RTD values
// are milliseconds written as decimal strings (the reference types them as strings).
import { dateTime } from '../route-schema.js';

export interface DeviceRTDStatistics {
  device_id: number;
  timestamp: string;
  avg_min?: string;
  avg_max?: string;
  avg_median?: string;
  latest_median?: string;
  latest_sent_packet_count: number;
  latest_lost_packet_count: number;
}

export interface DeviceRTDHistorySample {
  timestamp: string;
  min?: string;
  max?: string;
  median?: string;
  sent_packet_count: number;
  lost_packet_count: number;
}

export interface NetworkSpeedSample {
  timestamp: string;
  /** [download, upload] in bits per second. */
  values: [number, number];
}

const ms = { type: 'string', description: 'milliseconds, decimal; left out when every packet was lost' } as const;

export const rtdStatisticsSchema = {
  type: 'object',
  required: ['device_id', 'timestamp'],
  properties: {
    device_id: { type: 'integer' },
    timestamp: dateTime,
    avg_min: ms,
    avg_max: ms,
    avg_median: ms,
    latest_median: ms,
    latest_sent_packet_count: { type: 'integer' },
    latest_lost_packet_count: { type: 'integer' },
  },
} as const;

export const rtdHistorySampleSchema = {
  type: 'object',
  required: ['timestamp'],
  properties: {
    timestamp: dateTime,
    min: ms,
    max: ms,
    median: ms,
    sent_packet_count: { type: 'integer' },
    lost_packet_count: { type: 'integer' },
  },
} as const;

export const speedSampleSchema = {
  type: 'object',
  required: ['timestamp', 'values'],
  properties: {
    timestamp: dateTime,
    values: { type: 'array', items: { type: 'integer' }, minItems: 2, maxItems: 2, description: 'download then upload, bits per second' },
  },
} as const;
