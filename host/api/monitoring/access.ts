// The agent and device of a request path, checked once for every route group: an unknown
// agent, or a device of another agent, is a 404; an agent whose plan gives no API access
// (access_right.api_enabled false) is only visible in the agent list, every other operation
// on it answers 403.
import { getAgent, type AgentRow } from '../../store/fleet/agents.js';
import { getDevice, type DeviceRow } from '../../store/fleet/devices.js';
import type { Store } from '../../store/store.js';
import { ApiError, notFound } from './api-error.js';

export function apiAccessDenied(agentId: number): ApiError {
  return new ApiError(403, 'API_ACCESS_DISABLED', `agent ${agentId} does not allow API access (access_right.api_enabled is false)`);
}

export async function requireAgent(store: Store, agentId: number): Promise<AgentRow> {
  const agent = await getAgent(store, agentId);
  if (!agent) throw notFound('agent', agentId);
  if (!agent.apiEnabled) throw apiAccessDenied(agentId);
  return agent;
}

export async function requireDevice(store: Store, agentId: number, deviceId: number): Promise<DeviceRow> {
  await requireAgent(store, agentId);
  const device = await getDevice(store, agentId, deviceId);
  if (!device) throw notFound('device', deviceId);
  return device;
}

/**
 * A read whose query makes the checks itself (it answers nothing unless the agent, device…
 * pass them): `check`, the precise checks (404 agent, 403, 404 device…), runs only when the read
 * answers nothing or fails, so a request that finds rows is one statement, and every answer,
 * error or empty list, is the one checking first gave. Put what may refuse the request (a page,
 * a time window) inside `read`: a request that is both refused and of an unknown agent still
 * says the agent is unknown.
 */
export async function checkedWhenEmpty<T>(read: () => Promise<T[]>, check: () => Promise<unknown>): Promise<T[]> {
  let rows: T[];
  try {
    rows = await read();
  } catch (error) {
    await check();
    throw error;
  }
  if (rows.length === 0) await check();
  return rows;
}
