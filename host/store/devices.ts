// Devices of an agent, with the address a driver reaches them at (IP, host name, port map).
import { parseJsonColumn } from './json-column.js';
import type { Store } from './store.js';

export type DeviceProtocol = 'IP' | 'DUMMY' | 'IP_EXTERNAL';
export type DeviceStatus = 'ONLINE' | 'OFFLINE' | 'DOWN';
export type AuthenticationStatus = 'NO_AUTHENTICATION' | 'AUTHENTICATED' | 'PENDING' | 'REQUIRED' | 'WRONG_CREDENTIALS';

export interface DeviceRow {
  id: number;
  agentId: number;
  mainId: number | null;
  displayName: string;
  protocol: DeviceProtocol;
  ip: string | null;
  hostName: string | null;
  portMap: Record<string, number>;
  ipAddresses: string[];
  macAddress: string | null;
  status: DeviceStatus;
  hidden: boolean;
  lastStatusChange: number | null;
  firstSeenOn: number;
  importance: 'VITAL' | 'FLOATING';
  authenticationStatus: AuthenticationStatus;
  vendor: string | null;
  model: string | null;
  details: Record<string, string>;
  os: Record<string, string>;
  type: Record<string, unknown>;
  userData: Record<string, unknown>;
  openPorts: { tcp: number[]; udp: number[] };
}

export interface NewDevice {
  displayName: string;
  protocol?: DeviceProtocol;
  ip?: string | null;
  hostName?: string | null;
  portMap?: Record<string, number>;
  macAddress?: string | null;
  status?: DeviceStatus;
  importance?: 'VITAL' | 'FLOATING';
  vendor?: string | null;
  model?: string | null;
  details?: Record<string, string>;
  userData?: Record<string, unknown>;
}

interface DeviceDbRow {
  id: number;
  agent_id: number;
  main_id: number | null;
  display_name: string;
  protocol: DeviceProtocol;
  ip: string | null;
  host_name: string | null;
  port_map: string;
  ip_addresses: string;
  mac_address: string | null;
  status: DeviceStatus;
  hidden: number;
  last_status_change: number | null;
  first_seen_on: number;
  importance: 'VITAL' | 'FLOATING';
  authentication_status: AuthenticationStatus;
  vendor: string | null;
  model: string | null;
  details: string;
  os: string;
  type: string;
  user_data: string;
  open_ports: string;
}

export function deviceFromDb(row: DeviceDbRow): DeviceRow {
  return {
    id: row.id,
    agentId: row.agent_id,
    mainId: row.main_id,
    displayName: row.display_name,
    protocol: row.protocol,
    ip: row.ip,
    hostName: row.host_name,
    portMap: parseJsonColumn(row.port_map, {}),
    ipAddresses: parseJsonColumn(row.ip_addresses, []),
    macAddress: row.mac_address,
    status: row.status,
    hidden: row.hidden === 1,
    lastStatusChange: row.last_status_change,
    firstSeenOn: row.first_seen_on,
    importance: row.importance,
    authenticationStatus: row.authentication_status,
    vendor: row.vendor,
    model: row.model,
    details: parseJsonColumn(row.details, {}),
    os: parseJsonColumn(row.os, {}),
    type: parseJsonColumn(row.type, {}),
    userData: parseJsonColumn(row.user_data, {}),
    openPorts: parseJsonColumn(row.open_ports, { tcp: [], udp: [] }),
  };
}

/** Adds a device (and its CREATED event) to an agent. */
export function createDevice(store: Store, agentId: number, input: NewDevice): DeviceRow {
  const now = store.now();
  return store.transaction(() => {
    const info = store
      .statement(
        `INSERT INTO devices (agent_id, display_name, protocol, ip, host_name, port_map, ip_addresses, mac_address,
           status, last_status_change, first_seen_on, importance, vendor, model, details, user_data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        agentId,
        input.displayName,
        input.protocol ?? 'IP',
        input.ip ?? null,
        input.hostName ?? null,
        JSON.stringify(input.portMap ?? {}),
        JSON.stringify(input.ip ? [input.ip] : []),
        input.macAddress ?? null,
        input.status ?? 'ONLINE',
        now,
        now,
        input.importance ?? 'FLOATING',
        input.vendor ?? null,
        input.model ?? null,
        JSON.stringify(input.details ?? {}),
        JSON.stringify(input.userData ?? {}),
      );
    const id = Number(info.lastInsertRowid);
    store.statement('UPDATE devices SET main_id = ? WHERE id = ?').run(id, id);
    store.statement(`INSERT INTO device_events (device_id, timestamp, type) VALUES (?, ?, 'CREATED')`).run(id, now);
    return getDevice(store, agentId, id)!;
  });
}

export function getDevice(store: Store, agentId: number, deviceId: number): DeviceRow | undefined {
  const row = store
    .statement<[number, number], DeviceDbRow>('SELECT * FROM devices WHERE agent_id = ? AND id = ?')
    .get(agentId, deviceId);
  return row ? deviceFromDb(row) : undefined;
}

/** The agent's device at this address (IP or host name), if it has one. */
export function findDeviceByAddress(
  store: Store,
  agentId: number,
  address: { ip?: string | null; hostName?: string | null },
): DeviceRow | undefined {
  // A host name identifies a device when given; otherwise its IP does.
  const row = address.hostName
    ? store
        .statement<[number, string], DeviceDbRow>('SELECT * FROM devices WHERE agent_id = ? AND host_name = ? ORDER BY id LIMIT 1')
        .get(agentId, address.hostName)
    : address.ip
      ? store
          .statement<[number, string], DeviceDbRow>(
            'SELECT * FROM devices WHERE agent_id = ? AND ip = ? AND host_name IS NULL ORDER BY id LIMIT 1',
          )
          .get(agentId, address.ip)
      : undefined;
  return row ? deviceFromDb(row) : undefined;
}
