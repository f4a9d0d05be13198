// The activity log of an agent: what happened and who did it (a driver run, a power action…).
import { parseJsonColumn } from '../db/json-column.js';
import type { Store } from '../store.js';

export interface NewActivity {
  agentId: number;
  deviceId?: number | null;
  /** One of the spec's activity types: custom_driver_execute, power_on, vpn_session_start… */
  type: string;
  user: string;
  description: string;
  details?: Record<string, unknown> | null;
  /** Default: the store's now. */
  timestamp?: number;
}

export async function addActivity(store: Store, entry: NewActivity): Promise<number> {
  const info = await store
    .statement(
      `INSERT INTO activity_log (agent_id, device_id, timestamp, type, "user", description, details)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .insert(
      entry.agentId,
      entry.deviceId ?? null,
      entry.timestamp ?? store.now(),
      entry.type,
      entry.user,
      entry.description,
      entry.details ? JSON.stringify(entry.details) : null,
    );
  return info;
}

/**
 * The activity types of the spec, plus configuration_management_status_change, which the
 * reference (1.12.1) lists as well; an entry of another type cannot be asked for.
 */
export const ACTIVITY_TYPES = [
  'note',
  'agent_alert_level_set',
  'agent_alert_resume',
  'rtd_session_start',
  'cresnet_node_reboot',
  'device_reboot',
  'firmware_update_start',
  'applications_terminate',
  'configuration_restore',
  'factory_reset',
  'network_configuration_change',
  'custom_driver_execute',
  'remote_session_start',
  'remote_session_terminate',
  'remote_session_limit_reached',
  'vpn_session_start',
  'vpn_session_terminate',
  'chat_started',
  'chat_resolved',
  'operator_joined',
  'operator_left',
  'power_on',
  'power_off',
  'power_cycle',
  'camera_snapshot',
  'camera_streaming_start',
  'configuration_management_status_change',
] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export interface ActivityRow {
  id: number;
  agentId: number;
  deviceId: number | null;
  timestamp: number;
  type: string;
  user: string;
  description: string;
  details: Record<string, unknown> | null;
}

interface ActivityDbRow {
  id: number;
  agent_id: number;
  device_id: number | null;
  timestamp: number;
  type: string;
  user: string;
  description: string;
  details: string | null;
}

export interface ActivityQuery {
  from: number;
  to: number;
  /** Only entries of these types (none or empty: every type). */
  types?: readonly string[];
}

/** An agent's entries with from <= timestamp <= to, oldest first. */
export async function listActivity(store: Store, agentId: number, query: ActivityQuery): Promise<ActivityRow[]> {
  const types = [...new Set(query.types ?? [])];
  const typeClause = types.length ? ` AND type IN (${types.map(() => '?').join(', ')})` : '';
  return (await store
    .statement<unknown[], ActivityDbRow>(
      `SELECT * FROM activity_log WHERE agent_id = ? AND timestamp >= ? AND timestamp <= ?${typeClause} ORDER BY timestamp, id`,
    )
    .all(agentId, query.from, query.to, ...types))
    .map((row) => ({
      id: row.id,
      agentId: row.agent_id,
      deviceId: row.device_id,
      timestamp: row.timestamp,
      type: row.type,
      user: row.user,
      description: row.description,
      details: parseJsonColumn<Record<string, unknown> | null>(row.details, null),
    }));
}
