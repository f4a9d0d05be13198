// Path entities of a request, or the 404 that names the missing one: the agent, then the
// device (a device of another agent is missing too).
import { getAgent, type AgentRow } from '../../store/agents.js';
import { getDevice, type DeviceRow } from '../../store/devices.js';
import type { Store } from '../../store/store.js';
import { notFound } from './api-error.js';

export function requireAgent(store: Store, agentId: number): AgentRow {
  const agent = getAgent(store, agentId);
  if (!agent) throw notFound('agent', agentId);
  return agent;
}

export function requireDevice(store: Store, agentId: number, deviceId: number): DeviceRow {
  requireAgent(store, agentId);
  const device = getDevice(store, agentId, deviceId);
  if (!device) throw notFound('device', deviceId);
  return device;
}
