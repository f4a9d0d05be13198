// Per-agent quotas of the emulated monitoring features: how many sensors (SNMP + TCP) an
// agent may have, and how many bytes its VPN sessions and device connections may consume.
// The cloud sets these by plan; here they are settings of the store.
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const DEFAULT_SENSOR_LIMIT = 50;
/** 1 GiB: ConnectionConsumption's fields are int32, so the limit stays below 2^31. */
export const DEFAULT_CONNECTION_LIMIT_BYTES = 1024 * 1024 * 1024;

export interface AgentLimits {
  sensorLimit: number;
  connectionLimitBytes: number;
}

const INT32_MAX = 2147483647;

export async function getAgentLimits(store: Store, agentId: number): Promise<AgentLimits> {
  const row = await store
    .statement<[number], { sensor_limit: number | null; connection_limit_bytes: number | null }>(
      'SELECT sensor_limit, connection_limit_bytes FROM agent_limits WHERE agent_id = ?',
    )
    .get(agentId);
  return {
    sensorLimit: row?.sensor_limit ?? DEFAULT_SENSOR_LIMIT,
    connectionLimitBytes: row?.connection_limit_bytes ?? DEFAULT_CONNECTION_LIMIT_BYTES,
  };
}

/** Sets one or both limits of an agent; a limit left out keeps its value. */
export async function setAgentLimits(store: Store, agentId: number, limits: Partial<AgentLimits>): Promise<AgentLimits> {
  for (const [name, value] of Object.entries(limits)) {
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > INT32_MAX)) {
      throw new StoreError('INVALID', `${name} must be an integer from 0 to ${INT32_MAX}, not ${String(value)}`);
    }
  }
  const current = await getAgentLimits(store, agentId);
  await store
    .statement(
      `INSERT INTO agent_limits (agent_id, sensor_limit, connection_limit_bytes) VALUES (?, ?, ?)
       ON CONFLICT (agent_id) DO UPDATE SET sensor_limit = excluded.sensor_limit,
         connection_limit_bytes = excluded.connection_limit_bytes`,
    )
    .run(agentId, limits.sensorLimit ?? current.sensorLimit, limits.connectionLimitBytes ?? current.connectionLimitBytes);
  return getAgentLimits(store, agentId);
}
