// VPN sessions on agents and direct connections to devices, and the bytes they consume
// against the agent's connection limit. No tunnel or proxy runs: sessions are records with an
// expiry, and their byte counts only grow through addConnectionBytes.
import { getAgentLimits } from './monitoring-limits.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export type VpnStatus = 'ACTIVE' | 'INACTIVE' | 'EXPIRED';

export interface VpnSessionRow {
  id: number;
  agentId: number;
  /** The user that started it. */
  name: string;
  allowedIp: string;
  routingPolicy: string;
  bytes: number;
  creationTime: number;
  expirationTime: number;
  closedTime: number | null;
}

export interface DeviceConnectionRow {
  id: number;
  agentId: number;
  deviceId: number;
  allowedIp: string;
  port: number;
  protocol: string;
  link: string;
  user: string;
  creationTime: number;
  expirationTime: number;
  bytes: number;
}

export interface ConnectionConsumption {
  current: number;
  limit: number;
}

const HOUR_MS = 3600 * 1000;

interface VpnDbRow {
  id: number;
  agent_id: number;
  name: string;
  allowed_ip: string;
  routing_policy: string;
  bytes: number;
  creation_time: number;
  expiration_time: number;
  closed_time: number | null;
}

function vpnFromDb(row: VpnDbRow): VpnSessionRow {
  return {
    id: row.id,
    agentId: row.agent_id,
    name: row.name,
    allowedIp: row.allowed_ip,
    routingPolicy: row.routing_policy,
    bytes: row.bytes,
    creationTime: row.creation_time,
    expirationTime: row.expiration_time,
    closedTime: row.closed_time,
  };
}

/** A session's status at a time: ACTIVE until it expires, INACTIVE once closed. */
export function vpnStatusAt(session: VpnSessionRow, now: number): VpnStatus {
  if (session.closedTime !== null) return 'INACTIVE';
  return now < session.expirationTime ? 'ACTIVE' : 'EXPIRED';
}

/** Bytes consumed by all the agent's VPN sessions and device connections, and its limit. */
export async function connectionConsumption(store: Store, agentId: number): Promise<ConnectionConsumption> {
  const row = (await store
    .statement<[number, number], { current: number }>(
      `SELECT (SELECT COALESCE(SUM(bytes), 0) FROM vpn_sessions WHERE agent_id = ?)
            + (SELECT COALESCE(SUM(bytes), 0) FROM device_connections WHERE agent_id = ?) AS current`,
    )
    .get(agentId, agentId))!;
  return { current: row.current, limit: (await getAgentLimits(store, agentId)).connectionLimitBytes };
}

async function checkConsumption(store: Store, agentId: number): Promise<void> {
  const { current, limit } = await connectionConsumption(store, agentId);
  if (current >= limit) {
    throw new StoreError('CONFLICT', `agent ${agentId} has consumed ${current} of its ${limit} connection bytes; no new connection can be opened`);
  }
}

export async function createVpnSession(
  store: Store,
  agentId: number,
  input: { user: string; allowedIp: string; routingPolicy: string; ttlHours: number },
): Promise<VpnSessionRow> {
  return await store.transaction(async () => {
    await checkConsumption(store, agentId);
    const now = store.now();
    const info = await store
      .statement(
        `INSERT INTO vpn_sessions (agent_id, name, allowed_ip, routing_policy, creation_time, expiration_time) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .insert(agentId, input.user, input.allowedIp, input.routingPolicy, now, now + input.ttlHours * HOUR_MS);
    return (await getVpnSession(store, agentId, info))!;
  });
}

export async function getVpnSession(store: Store, agentId: number, sessionId: number): Promise<VpnSessionRow | undefined> {
  const row = await store.statement<[number, number], VpnDbRow>('SELECT * FROM vpn_sessions WHERE agent_id = ? AND id = ?').get(agentId, sessionId);
  return row ? vpnFromDb(row) : undefined;
}

/** Sessions not closed, expired ones included (they show as EXPIRED until closed). */
export async function listOpenVpnSessions(store: Store, agentId: number): Promise<VpnSessionRow[]> {
  return (await store
    .statement<[number], VpnDbRow>('SELECT * FROM vpn_sessions WHERE agent_id = ? AND closed_time IS NULL ORDER BY id')
    .all(agentId))
    .map(vpnFromDb);
}

/** Closes an open session; false when the agent has no such open session. */
export async function closeVpnSession(store: Store, agentId: number, sessionId: number): Promise<boolean> {
  return (
    (await store.statement('UPDATE vpn_sessions SET closed_time = ? WHERE agent_id = ? AND id = ? AND closed_time IS NULL').run(store.now(), agentId, sessionId))
      .changes > 0
  );
}

interface ConnectionDbRow {
  id: number;
  agent_id: number;
  device_id: number;
  allowed_ip: string;
  port: number;
  protocol: string;
  link: string;
  user: string;
  creation_time: number;
  expiration_time: number;
  bytes: number;
}

function connectionFromDb(row: ConnectionDbRow): DeviceConnectionRow {
  return {
    id: row.id,
    agentId: row.agent_id,
    deviceId: row.device_id,
    allowedIp: row.allowed_ip,
    port: row.port,
    protocol: row.protocol,
    link: row.link,
    user: row.user,
    creationTime: row.creation_time,
    expirationTime: row.expiration_time,
    bytes: row.bytes,
  };
}

export async function createDeviceConnection(
  store: Store,
  agentId: number,
  deviceId: number,
  input: { user: string; allowedIp: string; port: number; protocol: string; link: string; ttlHours: number },
): Promise<DeviceConnectionRow> {
  return await store.transaction(async () => {
    await checkConsumption(store, agentId);
    const now = store.now();
    const info = await store
      .statement(
        `INSERT INTO device_connections (agent_id, device_id, allowed_ip, port, protocol, link, "user", creation_time, expiration_time)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .insert(agentId, deviceId, input.allowedIp, input.port, input.protocol, input.link, input.user, now, now + input.ttlHours * HOUR_MS);
    const row = (await store.statement<[number], ConnectionDbRow>('SELECT * FROM device_connections WHERE id = ?').get(info))!;
    return connectionFromDb(row);
  });
}

export async function listDeviceConnections(store: Store, agentId: number, deviceId: number): Promise<DeviceConnectionRow[]> {
  return (await store
    .statement<[number, number], ConnectionDbRow>('SELECT * FROM device_connections WHERE agent_id = ? AND device_id = ? ORDER BY id')
    .all(agentId, deviceId))
    .map(connectionFromDb);
}

/** Counts traffic against a VPN session or a device connection (nothing carries traffic here). */
export async function addConnectionBytes(store: Store, kind: 'vpn' | 'device', id: number, bytes: number): Promise<void> {
  if (!Number.isInteger(bytes) || bytes < 0) throw new StoreError('INVALID', `bytes must be a non-negative integer, not ${bytes}`);
  const table = kind === 'vpn' ? 'vpn_sessions' : 'device_connections';
  const changed = (await store.statement(`UPDATE ${table} SET bytes = bytes + ? WHERE id = ?`).run(bytes, id)).changes;
  if (changed === 0) throw new StoreError('NOT_FOUND', `${kind === 'vpn' ? 'VPN session' : 'device connection'} ${id} not found`);
}
