// The activity log entry of the Monitoring API (ActivityLog), as a TypeScript type for the
// client and a JSON schema for the server.
import { ACTIVITY_TYPES, type ActivityType } from '../../../store/fleet/activity-log.js';
import { dateTime } from '../route-schema.js';

export { ACTIVITY_TYPES, type ActivityType };

export interface ActivityLogEntry {
  timestamp: string;
  type: ActivityType;
  user: string;
  description: string;
  /** Present when the entry concerns a device. */
  device_id?: number;
  /** Present when the entry has details (a driver run: run_id, action, outcome, error_type…). */
  details?: Record<string, unknown>;
}

export interface ActivityLogQuery {
  from?: string;
  to?: string;
  /** One type, or several (sent as repeated type parameters). */
  type?: ActivityType | readonly ActivityType[];
}

export const activityLogEntrySchema = {
  type: 'object',
  required: ['description', 'timestamp', 'type', 'user'],
  properties: {
    description: { type: 'string' },
    details: { type: 'object', additionalProperties: true },
    device_id: { type: 'integer' },
    timestamp: dateTime,
    type: { type: 'string', enum: ACTIVITY_TYPES },
    user: { type: 'string' },
  },
} as const;
