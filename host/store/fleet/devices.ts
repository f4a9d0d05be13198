// Devices of an agent, with the address a driver reaches them at (IP, host name, port map).
import { isIP } from 'node:net';
import { parseJsonColumn } from '../db/json-column.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export type DeviceProtocol = 'IP' | 'DUMMY' | 'IP_EXTERNAL';
export type DeviceStatus = 'ONLINE' | 'OFFLINE' | 'DOWN';
export type AuthenticationStatus = 'NO_AUTHENTICATION' | 'AUTHENTICATED' | 'PENDING' | 'REQUIRED' | 'WRONG_CREDENTIALS';
export type MonitoringState = 'MANAGED' | 'UNMANAGED';

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
  /** UNMANAGED: left out of the API's device list and not monitored (see device-monitoring.ts). */
  monitoringState: MonitoringState;
  /** On the collector's excluded-device list: not monitored. */
  excluded: boolean;
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

export interface DeviceDbRow {
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
  monitoring_state: MonitoringState;
  excluded: number;
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
    monitoringState: row.monitoring_state,
    excluded: row.excluded === 1,
  };
}

/** Adds a device (and its CREATED event) to an agent. */
export async function createDevice(store: Store, agentId: number, input: NewDevice): Promise<DeviceRow> {
  const now = store.now();
  return await store.transaction(async () => {
    const info = await store
      .statement(
        `INSERT INTO devices (agent_id, display_name, protocol, ip, host_name, port_map, ip_addresses, mac_address,
           status, last_status_change, first_seen_on, importance, vendor, model, details, user_data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .insert(
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
    const id = info;
    await store.statement('UPDATE devices SET main_id = ? WHERE id = ?').run(id, id);
    await store.statement(`INSERT INTO device_events (device_id, timestamp, type) VALUES (?, ?, 'CREATED')`).run(id, now);
    return (await getDevice(store, agentId, id))!;
  });
}

export async function getDevice(store: Store, agentId: number, deviceId: number): Promise<DeviceRow | undefined> {
  const row = await store
    .statement<[number, number], DeviceDbRow>('SELECT * FROM devices WHERE agent_id = ? AND id = ?')
    .get(agentId, deviceId);
  return row ? deviceFromDb(row) : undefined;
}

/** The agent's device at this address (IP or host name), if it has one. */
export async function findDeviceByAddress(
  store: Store,
  agentId: number,
  address: { ip?: string | null; hostName?: string | null },
): Promise<DeviceRow | undefined> {
  // A host name identifies a device when given; otherwise its IP does.
  const row = address.hostName
    ? await store
        .statement<[number, string], DeviceDbRow>('SELECT * FROM devices WHERE agent_id = ? AND host_name = ? ORDER BY id LIMIT 1')
        .get(agentId, address.hostName)
    : address.ip
      ? await store
          .statement<[number, string], DeviceDbRow>(
            'SELECT * FROM devices WHERE agent_id = ? AND ip = ? AND host_name IS NULL ORDER BY id LIMIT 1',
          )
          .get(agentId, address.ip)
      : undefined;
  return row ? deviceFromDb(row) : undefined;
}

export interface DeviceListOptions {
  showHidden?: boolean;
  /** Default true: excluded devices are listed (is_excluded tells them apart). */
  showExcluded?: boolean;
  /** Only MANAGED devices (the API's device list); default false. */
  managedOnly?: boolean;
}

export async function listDevices(store: Store, agentId: number, options: DeviceListOptions = {}): Promise<DeviceRow[]> {
  return (await store
    .statement<[number, number, number, number], DeviceDbRow>(
      `SELECT * FROM devices WHERE agent_id = ? AND (hidden = 0 OR ?) AND (excluded = 0 OR ?) AND (monitoring_state = 'MANAGED' OR NOT ?) ORDER BY id`,
    )
    .all(agentId, options.showHidden ? 1 : 0, options.showExcluded === false ? 0 : 1, options.managedOnly ? 1 : 0))
    .map(deviceFromDb);
}

/** Deletes one device with its variables, credentials, sensors and history (by cascade). */
export async function deleteDevice(store: Store, agentId: number, deviceId: number): Promise<boolean> {
  return (await store.statement('DELETE FROM devices WHERE agent_id = ? AND id = ?').run(agentId, deviceId)).changes > 0;
}

/** Deletes the agent's DOWN devices of IP protocol (external hosts and dummies stay); answers how many. */
export async function deleteDownDevices(store: Store, agentId: number): Promise<number> {
  return (await store.statement(`DELETE FROM devices WHERE agent_id = ? AND protocol = 'IP' AND status = 'DOWN'`).run(agentId)).changes;
}

/** Hides a DOWN device: it is then listed only on request. Hiding a device in another state is refused. */
export async function hideDevice(store: Store, agentId: number, deviceId: number): Promise<void> {
  const device = await getDevice(store, agentId, deviceId);
  if (!device) throw new StoreError('NOT_FOUND', `device ${deviceId} not found`);
  if (device.status !== 'DOWN') {
    throw new StoreError('CONFLICT', `device ${deviceId} is ${device.status}: only DOWN devices can be hidden`);
  }
  await store.statement('UPDATE devices SET hidden = 1 WHERE id = ?').run(deviceId);
}

/** A device field editDevice may change, as the API names it (the API decides which ones). */
export type EditableDeviceField = 'importance' | `user_data/${string}` | `details/${string}`;

/**
 * Sets one editable field (values already checked by the caller). user_data/name also
 * becomes the display name, as a user-given name does on the platform; null removes a
 * user_data or details entry (details/serial: back to the discovered one).
 */
export async function editDeviceField(store: Store, deviceId: number, field: EditableDeviceField, value: string | number | null): Promise<void> {
  if (field === 'importance') {
    await store.statement('UPDATE devices SET importance = ? WHERE id = ?').run(value, deviceId);
    return;
  }
  const [column, key] = field.split('/') as ['user_data' | 'details', string];
  // Read, change and write the JSON in one transaction: the same on both databases.
  await store.transaction(async () => {
    const row = await store.statement<[number], Record<string, string>>(`SELECT ${column} FROM devices WHERE id = ?`).get(deviceId);
    if (!row) return;
    const object = parseJsonColumn<Record<string, unknown>>(row[column]!, {});
    if (value === null) delete object[key];
    else object[key] = value;
    await store.statement(`UPDATE devices SET ${column} = ? WHERE id = ?`).run(JSON.stringify(object), deviceId);
  });
  if (field === 'user_data/name' && typeof value === 'string') {
    await store.statement('UPDATE devices SET display_name = ? WHERE id = ?').run(value, deviceId);
  }
}

export async function setAuthenticationStatus(store: Store, deviceId: number, status: AuthenticationStatus): Promise<void> {
  await store.statement('UPDATE devices SET authentication_status = ? WHERE id = ?').run(status, deviceId);
}

/** Adds an external host (an IP_EXTERNAL device reached at a host name or IP). */
export async function createExternalHost(store: Store, agentId: number, input: { host: string; name: string }): Promise<DeviceRow> {
  const existing = await store
    .statement<[number, string], { id: number }>(`SELECT id FROM devices WHERE agent_id = ? AND protocol = 'IP_EXTERNAL' AND host_name = ?`)
    .get(agentId, input.host);
  if (existing) throw new StoreError('CONFLICT', `agent ${agentId} already has external host ${input.host} (device ${existing.id})`);
  return createDevice(store, agentId, {
    displayName: input.name,
    protocol: 'IP_EXTERNAL',
    hostName: input.host,
    ip: isIP(input.host) ? input.host : null,
  });
}

/** The sealed SNMP authentication of a device, opened; undefined when never set. */
export async function getSnmpAuthentication<T>(store: Store, deviceId: number): Promise<T | undefined> {
  return openSnmpAuthentication<T>(store, await sealedSnmpAuthentication(store, deviceId));
}

/** A device's snmp_authentication column as stored (sealed); null when never set. */
export async function sealedSnmpAuthentication(store: Store, deviceId: number): Promise<string | null> {
  const row = await store.statement<[number], { snmp_authentication: string | null }>('SELECT snmp_authentication FROM devices WHERE id = ?').get(deviceId);
  return row?.snmp_authentication ?? null;
}

/** A device row's sealed snmp_authentication column, opened; undefined when never set. */
export function openSnmpAuthentication<T>(store: Store, sealed: string | null | undefined): T | undefined {
  if (!sealed) return undefined;
  return JSON.parse(store.secrets.decrypt(sealed)) as T;
}

/** Seals and stores a device's SNMP authentication (it holds keys and communities). */
export async function setSnmpAuthentication(store: Store, deviceId: number, settings: object): Promise<void> {
  await store.statement('UPDATE devices SET snmp_authentication = ? WHERE id = ?').run(store.secrets.encrypt(JSON.stringify(settings)), deviceId);
}

/** Sets where the device's ports are reached (device port → port dialled), as the demo's simulated devices move. */
export async function setDevicePortMap(store: Store, deviceId: number, portMap: Record<string, number>): Promise<void> {
  await store.statement('UPDATE devices SET port_map = ? WHERE id = ?').run(JSON.stringify(portMap), deviceId);
}
