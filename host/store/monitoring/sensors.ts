// SNMP and TCP sensors ("eyes") of devices, and an agent's sensor usage against its limit.
// SNMP sensors are stored definitions whose values arrive through recordSnmpSample (driverbox
// has no SNMP poller); TCP sensors are probed for real by host/monitor and their status is
// written through recordTcpStatus.
import { parseJsonColumn } from '../db/json-column.js';
import { getAgentLimits } from './monitoring-limits.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const SNMP_CATEGORIES = ['OTHER', 'CONSUMABLE', 'CPU', 'DISK_SPACE', 'MEMORY', 'NETWORK_TRAFFIC', 'TEMPERATURE'] as const;
export const SNMP_VALUE_TYPES = ['STRING', 'NUMERIC', 'ENUM'] as const;
export type SnmpCategory = (typeof SNMP_CATEGORIES)[number];
export type SnmpValueType = (typeof SNMP_VALUE_TYPES)[number];
export type TcpStatus = 'UP' | 'DOWN';

export interface SnmpSensorRow {
  id: number;
  deviceId: number;
  name: string;
  oid: string;
  category: SnmpCategory;
  valueType: SnmpValueType;
  creationTime: number;
  /** null until the first sample. */
  lastUpdate: number | null;
  latestValue: string | null;
  latestEnumValue: string | null;
}

export interface NewSnmpSensor {
  name: string;
  oid: string;
  category: SnmpCategory;
  valueType: SnmpValueType;
}

export interface SnmpSample {
  timestamp: number;
  value: string;
  enumValue: string | null;
}

export interface TcpSensorRow {
  id: number;
  deviceId: number;
  port: number;
  status: TcpStatus;
  lastUpdate: number;
  creationTime: number;
}

/** A TCP sensor with the address its device is reached at: what a probe needs. */
export interface TcpSensorTarget {
  sensorId: number;
  agentId: number;
  deviceId: number;
  port: number;
  ip: string | null;
  hostName: string | null;
  portMap: Record<string, number>;
}

export interface SensorUsage {
  limit: number;
  usage: { snmp: number; tcp: number; total: number };
}

interface SnmpDbRow {
  id: number;
  device_id: number;
  name: string;
  oid: string;
  category: SnmpCategory;
  value_type: SnmpValueType;
  creation_time: number;
  last_update: number | null;
  latest_value: string | null;
  latest_enum_value: string | null;
}

interface TcpDbRow {
  id: number;
  device_id: number;
  port: number;
  status: TcpStatus;
  last_update: number;
  creation_time: number;
}

function snmpFromDb(row: SnmpDbRow): SnmpSensorRow {
  return {
    id: row.id,
    deviceId: row.device_id,
    name: row.name,
    oid: row.oid,
    category: row.category,
    valueType: row.value_type,
    creationTime: row.creation_time,
    lastUpdate: row.last_update,
    latestValue: row.latest_value,
    latestEnumValue: row.latest_enum_value,
  };
}

function tcpFromDb(row: TcpDbRow): TcpSensorRow {
  return { id: row.id, deviceId: row.device_id, port: row.port, status: row.status, lastUpdate: row.last_update, creationTime: row.creation_time };
}

// ---- usage --------------------------------------------------------------------------------

export async function sensorUsage(store: Store, agentId: number): Promise<SensorUsage> {
  const counts = (await store
    .statement<[number, number], { snmp: number; tcp: number }>(
      `SELECT (SELECT COUNT(*) FROM snmp_sensors s JOIN devices d ON d.id = s.device_id WHERE d.agent_id = ?) AS snmp,
              (SELECT COUNT(*) FROM tcp_sensors t JOIN devices d ON d.id = t.device_id WHERE d.agent_id = ?) AS tcp`,
    )
    .get(agentId, agentId))!;
  return { limit: (await getAgentLimits(store, agentId)).sensorLimit, usage: { snmp: counts.snmp, tcp: counts.tcp, total: counts.snmp + counts.tcp } };
}

/** Refuses a new sensor when the agent already has as many as its limit allows. */
async function checkSensorRoom(store: Store, agentId: number): Promise<void> {
  const { limit, usage } = await sensorUsage(store, agentId);
  if (usage.total >= limit) {
    throw new StoreError(
      'CONFLICT',
      `agent ${agentId} already has ${usage.total} sensors (${usage.snmp} SNMP, ${usage.tcp} TCP) and its limit is ${limit}; delete a sensor or raise the limit`,
    );
  }
}

async function agentOfDevice(store: Store, deviceId: number): Promise<number> {
  const row = await store.statement<[number], { agent_id: number }>('SELECT agent_id FROM devices WHERE id = ?').get(deviceId);
  if (!row) throw new StoreError('NOT_FOUND', `device ${deviceId} not found`);
  return row.agent_id;
}

// ---- SNMP sensors -------------------------------------------------------------------------

export async function createSnmpSensor(store: Store, deviceId: number, input: NewSnmpSensor): Promise<SnmpSensorRow> {
  return await store.transaction(async () => {
    await checkSensorRoom(store, await agentOfDevice(store, deviceId));
    const info = await store
      .statement('INSERT INTO snmp_sensors (device_id, name, oid, category, value_type, creation_time) VALUES (?, ?, ?, ?, ?, ?)')
      .insert(deviceId, input.name, input.oid, input.category, input.valueType, store.now());
    return (await getSnmpSensor(store, deviceId, info))!;
  });
}

export async function getSnmpSensor(store: Store, deviceId: number, sensorId: number): Promise<SnmpSensorRow | undefined> {
  const row = await store.statement<[number, number], SnmpDbRow>('SELECT * FROM snmp_sensors WHERE device_id = ? AND id = ?').get(deviceId, sensorId);
  return row ? snmpFromDb(row) : undefined;
}

export async function listDeviceSnmpSensors(store: Store, deviceId: number): Promise<SnmpSensorRow[]> {
  return (await store.statement<[number], SnmpDbRow>('SELECT * FROM snmp_sensors WHERE device_id = ? ORDER BY id').all(deviceId)).map(snmpFromDb);
}

export async function listAgentSnmpSensors(store: Store, agentId: number): Promise<SnmpSensorRow[]> {
  return (await store
    .statement<[number], SnmpDbRow>('SELECT s.* FROM snmp_sensors s JOIN devices d ON d.id = s.device_id WHERE d.agent_id = ? ORDER BY s.id')
    .all(agentId))
    .map(snmpFromDb);
}

/** Deletes a sensor with its history and triggers; false when the device has no such sensor. */
export async function deleteSnmpSensor(store: Store, deviceId: number, sensorId: number): Promise<boolean> {
  return (await store.statement('DELETE FROM snmp_sensors WHERE device_id = ? AND id = ?').run(deviceId, sensorId)).changes > 0;
}

/**
 * Records a value read from a sensor's OID (by an SNMP poller or a driver): it becomes the
 * sensor's latest value and a sample of its history. NUMERIC sensors take numbers only; an
 * ENUM sample may carry the enum's label as enumValue.
 */
export async function recordSnmpSample(
  store: Store,
  sensorId: number,
  sample: { value: string | number; enumValue?: string | null; timestamp?: number },
): Promise<SnmpSensorRow> {
  return await store.transaction(async () => {
    const row = await store.statement<[number], SnmpDbRow>('SELECT * FROM snmp_sensors WHERE id = ?').get(sensorId);
    if (!row) throw new StoreError('NOT_FOUND', `SNMP sensor ${sensorId} not found`);
    const value = String(sample.value);
    if (row.value_type === 'NUMERIC' && (value.trim() === '' || !Number.isFinite(Number(value)))) {
      throw new StoreError('INVALID', `SNMP sensor ${sensorId} is NUMERIC; "${value}" is not a number`);
    }
    const enumValue = sample.enumValue ?? null;
    const timestamp = sample.timestamp ?? store.now();
    await store.statement('INSERT INTO snmp_sensor_history (sensor_id, timestamp, value, enum_value) VALUES (?, ?, ?, ?)').run(sensorId, timestamp, value, enumValue);
    // A late sample (older than the latest) joins the history without replacing the latest value.
    if (row.last_update === null || timestamp >= row.last_update) {
      await store
        .statement('UPDATE snmp_sensors SET last_update = ?, latest_value = ?, latest_enum_value = ? WHERE id = ?')
        .run(timestamp, value, enumValue, sensorId);
    }
    return (await getSnmpSensor(store, row.device_id, sensorId))!;
  });
}

export async function snmpSensorHistory(store: Store, sensorId: number, from: number, to: number): Promise<SnmpSample[]> {
  return (await store
    .statement<[number, number, number], { timestamp: number; value: string; enum_value: string | null }>(
      'SELECT timestamp, value, enum_value FROM snmp_sensor_history WHERE sensor_id = ? AND timestamp BETWEEN ? AND ? ORDER BY timestamp, rowid',
    )
    .all(sensorId, from, to))
    .map((r) => ({ timestamp: r.timestamp, value: r.value, enumValue: r.enum_value }));
}

// ---- TCP sensors --------------------------------------------------------------------------

/**
 * Adds a TCP sensor with its first status (the caller probes the port first, so the status
 * is real from the start).
 */
export async function createTcpSensor(store: Store, deviceId: number, input: { port: number; status: TcpStatus; checkedAt?: number }): Promise<TcpSensorRow> {
  return await store.transaction(async () => {
    await checkSensorRoom(store, await agentOfDevice(store, deviceId));
    const existing = await store.statement<[number, number], { id: number }>('SELECT id FROM tcp_sensors WHERE device_id = ? AND port = ?').get(deviceId, input.port);
    if (existing) throw new StoreError('CONFLICT', `device ${deviceId} already has TCP sensor ${existing.id} on port ${input.port}`);
    const now = store.now();
    const info = await store
      .statement('INSERT INTO tcp_sensors (device_id, port, status, last_update, creation_time) VALUES (?, ?, ?, ?, ?)')
      .insert(deviceId, input.port, input.status, input.checkedAt ?? now, now);
    return (await getTcpSensor(store, deviceId, info))!;
  });
}

export async function getTcpSensor(store: Store, deviceId: number, sensorId: number): Promise<TcpSensorRow | undefined> {
  const row = await store.statement<[number, number], TcpDbRow>('SELECT * FROM tcp_sensors WHERE device_id = ? AND id = ?').get(deviceId, sensorId);
  return row ? tcpFromDb(row) : undefined;
}

export async function listDeviceTcpSensors(store: Store, deviceId: number): Promise<TcpSensorRow[]> {
  return (await store.statement<[number], TcpDbRow>('SELECT * FROM tcp_sensors WHERE device_id = ? ORDER BY id').all(deviceId)).map(tcpFromDb);
}

export async function listAgentTcpSensors(store: Store, agentId: number): Promise<TcpSensorRow[]> {
  return (await store
    .statement<[number], TcpDbRow>('SELECT t.* FROM tcp_sensors t JOIN devices d ON d.id = t.device_id WHERE d.agent_id = ? ORDER BY t.id')
    .all(agentId))
    .map(tcpFromDb);
}

export async function deleteTcpSensor(store: Store, deviceId: number, sensorId: number): Promise<boolean> {
  return (await store.statement('DELETE FROM tcp_sensors WHERE device_id = ? AND id = ?').run(deviceId, sensorId)).changes > 0;
}

/** Writes a probe's outcome; false when the sensor was deleted meanwhile. */
export async function recordTcpStatus(store: Store, sensorId: number, status: TcpStatus, checkedAt = store.now()): Promise<boolean> {
  return (await store.statement('UPDATE tcp_sensors SET status = ?, last_update = ? WHERE id = ?').run(status, checkedAt, sensorId)).changes > 0;
}

interface TargetDbRow {
  sensor_id: number;
  agent_id: number;
  device_id: number;
  port: number;
  ip: string | null;
  host_name: string | null;
  port_map: string;
}

function targetFromDb(row: TargetDbRow): TcpSensorTarget {
  const portMap = parseJsonColumn<Record<string, number>>(row.port_map, {});
  return { sensorId: row.sensor_id, agentId: row.agent_id, deviceId: row.device_id, port: row.port, ip: row.ip, hostName: row.host_name, portMap };
}

const TARGET_SQL = `SELECT t.id AS sensor_id, d.agent_id, t.device_id, t.port, d.ip, d.host_name, d.port_map
  FROM tcp_sensors t JOIN devices d ON d.id = t.device_id`;

/** Every TCP sensor of the store with its device's address: one probing round's work. */
export async function listTcpSensorTargets(store: Store): Promise<TcpSensorTarget[]> {
  return (await store.statement<[], TargetDbRow>(`${TARGET_SQL} ORDER BY t.id`).all()).map(targetFromDb);
}

export async function getTcpSensorTarget(store: Store, sensorId: number): Promise<TcpSensorTarget | undefined> {
  const row = await store.statement<[number], TargetDbRow>(`${TARGET_SQL} WHERE t.id = ?`).get(sensorId);
  return row ? targetFromDb(row) : undefined;
}
