// Status changes of agents and devices, kept as events (agent_events, device_events), and the
// uptime computed from them. Whoever learns of a change (agent mode, a probe, a test) calls
// setAgentStatus / setDeviceStatus; an event is recorded only when the state really changes.
import type { AgentStatus } from './agents.js';
import type { DeviceStatus } from './devices.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export type AgentEventType = 'CONNECTION_RECOVERED' | 'CONNECTION_LOST' | 'UP' | 'DOWN';
export type DeviceEventType = 'IP_CHANGE' | 'CREATED' | 'UP' | 'DOWN';

export interface AgentEvent {
  timestamp: number;
  type: AgentEventType;
}

export interface DeviceEvent {
  timestamp: number;
  type: DeviceEventType;
  details: { new_ip?: string[]; old_ip?: string[] } | null;
}

/**
 * Moves an agent to ONLINE or OFFLINE. The event says why: UP / DOWN (the agent started or
 * stopped, the default) or CONNECTION_RECOVERED / CONNECTION_LOST (it runs but lost its link).
 * Answers whether the status changed.
 */
export async function setAgentStatus(
  store: Store,
  agentId: number,
  status: AgentStatus,
  options: { cause?: 'process' | 'connection'; at?: number } = {},
): Promise<boolean> {
  const at = options.at ?? store.now();
  return await store.transaction(async () => {
    const row = await store.statement<[number], { status: AgentStatus }>('SELECT status FROM agents WHERE id = ?').get(agentId);
    if (!row) throw new StoreError('NOT_FOUND', `agent ${agentId} not found`);
    if (row.status === status) return false;
    const online = status === 'ONLINE';
    const type: AgentEventType = options.cause === 'connection' ? (online ? 'CONNECTION_RECOVERED' : 'CONNECTION_LOST') : online ? 'UP' : 'DOWN';
    await store.statement('UPDATE agents SET status = ?, status_last_change = ? WHERE id = ?').run(status, at, agentId);
    await store.statement('INSERT INTO agent_events (agent_id, timestamp, type) VALUES (?, ?, ?)').run(agentId, at, type);
    return true;
  });
}

/**
 * Moves a device to ONLINE, OFFLINE or DOWN. Reaching ONLINE records UP; leaving it records
 * DOWN (OFFLINE and DOWN both count as not up; moving between them records nothing).
 * Answers whether the status changed.
 */
export async function setDeviceStatus(store: Store, deviceId: number, status: DeviceStatus, options: { at?: number } = {}): Promise<boolean> {
  const at = options.at ?? store.now();
  return await store.transaction(async () => {
    const row = await store.statement<[number], { status: DeviceStatus }>('SELECT status FROM devices WHERE id = ?').get(deviceId);
    if (!row) throw new StoreError('NOT_FOUND', `device ${deviceId} not found`);
    if (row.status === status) return false;
    await store.statement('UPDATE devices SET status = ?, last_status_change = ? WHERE id = ?').run(status, at, deviceId);
    // A device that comes back is no longer hidden: hiding is only for DOWN devices.
    if (status === 'ONLINE') await store.statement('UPDATE devices SET hidden = 0 WHERE id = ?').run(deviceId);
    const wasUp = row.status === 'ONLINE';
    const isUp = status === 'ONLINE';
    if (wasUp !== isUp) {
      await store.statement('INSERT INTO device_events (device_id, timestamp, type) VALUES (?, ?, ?)').run(deviceId, at, isUp ? 'UP' : 'DOWN');
    }
    return true;
  });
}

/** Records that a device's IP addresses changed (an IP_CHANGE event with old and new). */
export async function setDeviceIpAddresses(store: Store, deviceId: number, addresses: string[], options: { at?: number } = {}): Promise<boolean> {
  const at = options.at ?? store.now();
  return await store.transaction(async () => {
    const row = await store.statement<[number], { ip_addresses: string }>('SELECT ip_addresses FROM devices WHERE id = ?').get(deviceId);
    if (!row) throw new StoreError('NOT_FOUND', `device ${deviceId} not found`);
    const old = JSON.parse(row.ip_addresses) as string[];
    if (old.length === addresses.length && old.every((ip, i) => ip === addresses[i])) return false;
    await store.statement('UPDATE devices SET ip_addresses = ?, ip = ? WHERE id = ?').run(JSON.stringify(addresses), addresses[0] ?? null, deviceId);
    await store
      .statement(`INSERT INTO device_events (device_id, timestamp, type, details) VALUES (?, ?, 'IP_CHANGE', ?)`)
      .run(deviceId, at, JSON.stringify({ new_ip: addresses, old_ip: old }));
    return true;
  });
}

export async function listAgentEvents(store: Store, agentId: number, window: { from: number; to: number }): Promise<AgentEvent[]> {
  return await store
    .statement<[number, number, number], AgentEvent>(
      'SELECT timestamp, type FROM agent_events WHERE agent_id = ? AND timestamp BETWEEN ? AND ? ORDER BY timestamp, id',
    )
    .all(agentId, window.from, window.to);
}

export async function listDeviceEvents(store: Store, deviceId: number, window: { from: number; to: number }): Promise<DeviceEvent[]> {
  return (await store
    .statement<[number, number, number], { timestamp: number; type: DeviceEventType; details: string | null }>(
      'SELECT timestamp, type, details FROM device_events WHERE device_id = ? AND timestamp BETWEEN ? AND ? ORDER BY timestamp, id',
    )
    .all(deviceId, window.from, window.to))
    .map((row) => ({ timestamp: row.timestamp, type: row.type, details: row.details ? (JSON.parse(row.details) as DeviceEvent['details']) : null }));
}

export interface Uptime {
  onlineSeconds: number;
  totalSeconds: number;
  /** Percentage with two decimals, rounded down: "99.95"; "0.00" when nothing was observed. */
  uptime: string;
  downtimeIntervals: Array<{ start: number; end: number }>;
}

/** A state change as the uptime computation sees it: up or not, from when. */
interface Transition {
  timestamp: number;
  up: boolean;
}

/**
 * Uptime over [from, to], clipped to the entity's existence (time before it was created is
 * neither up nor down), given the state at the window's start and the changes inside it.
 */
export function computeUptime(
  initiallyUp: boolean,
  within: Transition[],
  window: { from: number; to: number },
  createdAt: number,
): Uptime {
  const start = Math.max(window.from, createdAt);
  const end = window.to;
  if (end <= start) return { onlineSeconds: 0, totalSeconds: 0, uptime: '0.00', downtimeIntervals: [] };
  let up = initiallyUp;
  let downSince: number | null = up ? null : start;
  const intervals: Array<{ start: number; end: number }> = [];
  for (const change of within) {
    if (change.timestamp > end || change.up === up) continue;
    if (change.timestamp <= start) {
      // Before the clipped start: it only decides the state the window starts in.
      up = change.up;
      downSince = up ? null : start;
      continue;
    }
    up = change.up;
    if (up && downSince !== null) {
      if (change.timestamp > downSince) intervals.push({ start: downSince, end: change.timestamp });
      downSince = null;
    } else if (!up) {
      downSince = change.timestamp;
    }
  }
  if (downSince !== null && end > downSince) intervals.push({ start: downSince, end });
  const totalMs = end - start;
  const downMs = intervals.reduce((sum, i) => sum + (i.end - i.start), 0);
  const onlineMs = totalMs - downMs;
  return {
    onlineSeconds: Math.floor(onlineMs / 1000),
    totalSeconds: Math.floor(totalMs / 1000),
    uptime: formatPercentage(onlineMs, totalMs),
    downtimeIntervals: intervals,
  };
}

/** "99.95": two decimals, rounded down so that any downtime keeps it under "100.00". */
export function formatPercentage(part: number, whole: number): string {
  if (whole <= 0) return '0.00';
  const hundredths = Math.floor((part * 10000) / whole);
  return (hundredths / 100).toFixed(2);
}

/**
 * The state at a window's start: the one set by the last change before it; without one, the
 * opposite of the first change after it (nothing changed before that); without any change,
 * the current state.
 */
function initialState(before: boolean | undefined, firstAfter: boolean | undefined, currentlyUp: boolean): boolean {
  if (before !== undefined) return before;
  if (firstAfter !== undefined) return !firstAfter;
  return currentlyUp;
}

const AGENT_UP: Record<AgentEventType, boolean> = { UP: true, CONNECTION_RECOVERED: true, DOWN: false, CONNECTION_LOST: false };

export async function agentUptime(store: Store, agentId: number, window: { from: number; to: number }): Promise<Uptime> {
  const agent = await store
    .statement<[number], { creation_time: number; status: AgentStatus }>('SELECT creation_time, status FROM agents WHERE id = ?')
    .get(agentId);
  if (!agent) throw new StoreError('NOT_FOUND', `agent ${agentId} not found`);
  const nearest = async (sql: string) => (await store.statement<[number, number], { type: AgentEventType }>(sql).get(agentId, window.from))?.type;
  const before = await nearest('SELECT type FROM agent_events WHERE agent_id = ? AND timestamp < ? ORDER BY timestamp DESC, id DESC LIMIT 1');
  const after = await nearest('SELECT type FROM agent_events WHERE agent_id = ? AND timestamp >= ? ORDER BY timestamp, id LIMIT 1');
  const within = (await listAgentEvents(store, agentId, window)).map((e) => ({ timestamp: e.timestamp, up: AGENT_UP[e.type] }));
  const initiallyUp = initialState(before && AGENT_UP[before], after && AGENT_UP[after], agent.status === 'ONLINE');
  return computeUptime(initiallyUp, within, window, agent.creation_time);
}

export async function deviceUptime(store: Store, deviceId: number, window: { from: number; to: number }): Promise<Uptime> {
  const device = await store
    .statement<[number], { first_seen_on: number; status: DeviceStatus }>('SELECT first_seen_on, status FROM devices WHERE id = ?')
    .get(deviceId);
  if (!device) throw new StoreError('NOT_FOUND', `device ${deviceId} not found`);
  const nearest = async (sql: string) => (await store.statement<[number, number], { type: 'UP' | 'DOWN' }>(sql).get(deviceId, window.from))?.type;
  const before = await nearest(
    `SELECT type FROM device_events WHERE device_id = ? AND type IN ('UP', 'DOWN') AND timestamp < ? ORDER BY timestamp DESC, id DESC LIMIT 1`,
  );
  const after = await nearest(`SELECT type FROM device_events WHERE device_id = ? AND type IN ('UP', 'DOWN') AND timestamp >= ? ORDER BY timestamp, id LIMIT 1`);
  const within = (await listDeviceEvents(store, deviceId, window))
    .filter((e) => e.type === 'UP' || e.type === 'DOWN')
    .map((e) => ({ timestamp: e.timestamp, up: e.type === 'UP' }));
  const initiallyUp = initialState(before && before === 'UP', after && after === 'UP', device.status === 'ONLINE');
  return computeUptime(initiallyUp, within, window, device.first_seen_on);
}
