// The activity log of an agent: what happened and who did it (a driver run, a power action…).
import type { Store } from './store.js';

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

export function addActivity(store: Store, entry: NewActivity): number {
  const info = store
    .statement(
      `INSERT INTO activity_log (agent_id, device_id, timestamp, type, user, description, details)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      entry.agentId,
      entry.deviceId ?? null,
      entry.timestamp ?? store.now(),
      entry.type,
      entry.user,
      entry.description,
      entry.details ? JSON.stringify(entry.details) : null,
    );
  return Number(info.lastInsertRowid);
}
