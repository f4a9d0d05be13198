// Monitoring state (per-device licensing) and excluded devices of 1.14.0: the minimal device
// record listUnmanagedDevices answers, and the body of updateDeviceMonitoringState.
import { dateTime } from '../route-schema.js';

export type MonitoringStateValue = 'MANAGED' | 'UNMANAGED';

export interface DeviceMonitoringState {
  monitoring_state: MonitoringStateValue;
}

/** A device with only its essential fields; unknown optional fields are left out. */
export interface MinimalDevice {
  id: number;
  display_name: string;
  protocol: 'IP' | 'DUMMY' | 'IP_EXTERNAL';
  first_seen_on?: string;
  ip_addresses?: string[];
  mac?: string;
  model?: string;
  vendor?: string;
  type?: { detected_id?: number; id?: number; label?: string };
}

export const deviceMonitoringStateSchema = {
  type: 'object',
  required: ['monitoring_state'],
  additionalProperties: false,
  properties: { monitoring_state: { type: 'string', enum: ['MANAGED', 'UNMANAGED'], description: 'The state the device takes' } },
} as const;

export const minimalDeviceSchema = {
  type: 'object',
  required: ['id', 'display_name', 'protocol'],
  properties: {
    id: { type: 'integer' },
    display_name: { type: 'string' },
    protocol: { type: 'string', enum: ['IP', 'DUMMY', 'IP_EXTERNAL'] },
    first_seen_on: dateTime,
    ip_addresses: { type: 'array', items: { type: 'string' } },
    mac: { type: 'string' },
    model: { type: 'string' },
    vendor: { type: 'string' },
    type: { type: 'object', properties: { detected_id: { type: 'integer' }, id: { type: 'integer' }, label: { type: 'string' } } },
  },
} as const;
