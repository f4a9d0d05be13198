// The device type catalogue of listDeviceBaseTypes and listDeviceDetectedTypes. The cloud's
// own catalogue is not published, so these ids are driverbox's (stable across versions): a
// device's type.id names a base type, its type.detected_id a detected type. Detected types
// that devices of the store carry but the catalogue lacks are listed too, from the devices.
import { parseJsonColumn } from '../db/json-column.js';
import type { Store } from '../store.js';

export interface DeviceBaseType {
  id: number;
  identifier: string;
  label: string;
  vital: boolean;
}

export interface DetectedDeviceType {
  id: number;
  identifier: string;
  label?: string;
  type_id?: number;
  capabilities?: string[];
}

const base = (id: number, identifier: string, label: string, vital = false): DeviceBaseType => ({ id, identifier, label, vital });

export const DEVICE_BASE_TYPES: readonly DeviceBaseType[] = [
  base(1, 'ROUTER', 'Router', true),
  base(2, 'GATEWAY', 'Internet gateway', true),
  base(3, 'FIREWALL', 'Firewall', true),
  base(4, 'SWITCH', 'Network switch', true),
  base(5, 'ACCESS_POINT', 'Wireless access point', true),
  base(6, 'SERVER', 'Server', true),
  base(7, 'NAS', 'Network storage', true),
  base(8, 'COMPUTER', 'Computer'),
  base(9, 'LAPTOP', 'Laptop'),
  base(10, 'PRINTER', 'Printer'),
  base(11, 'CAMERA', 'IP camera'),
  base(12, 'VIDEO_RECORDER', 'Video recorder', true),
  base(13, 'PHONE', 'Smartphone'),
  base(14, 'VOIP_PHONE', 'VoIP phone'),
  base(15, 'TV', 'Television'),
  base(16, 'MEDIA_PLAYER', 'Media player'),
  base(17, 'AUDIO', 'Audio equipment'),
  base(18, 'GAME_CONSOLE', 'Game console'),
  base(19, 'TABLET', 'Tablet'),
  base(20, 'THERMOSTAT', 'Thermostat'),
  base(21, 'LIGHTING', 'Lighting controller'),
  base(22, 'UPS', 'Uninterruptible power supply', true),
  base(23, 'PDU', 'Power distribution unit', true),
  base(24, 'SENSOR', 'Sensor'),
  base(25, 'AUTOMATION_CONTROLLER', 'Automation controller', true),
  base(26, 'ACCESS_CONTROL', 'Door access control'),
  base(27, 'VIRTUAL_MACHINE', 'Virtual machine'),
  base(28, 'OTHER', 'Other device'),
];

/** Base type ids of network infrastructure: the hubs of the emulated topology, gateways first. */
export const HUB_TYPE_IDS: readonly number[] = [2, 1, 3, 4, 5];
export const CAMERA_TYPE_ID = 11;

const detected = (id: number, identifier: string, label: string, typeId: number, capabilities: string[]): DetectedDeviceType => ({
  id,
  identifier,
  label,
  type_id: typeId,
  capabilities,
});

export const DETECTED_DEVICE_TYPES: readonly DetectedDeviceType[] = [
  // 'snapshot' is the cloud's word: Domotz's own examples (public-api-examples, camera_tool)
  // pick the camera types as those whose capabilities include 'snapshot'.
  detected(101, 'ONVIF_CAMERA', 'ONVIF IP camera', CAMERA_TYPE_ID, ['snapshot']),
  detected(102, 'RTSP_CAMERA', 'RTSP camera', CAMERA_TYPE_ID, []),
  detected(103, 'SNMP_SWITCH', 'Managed switch (SNMP)', 4, ['snmp']),
  detected(104, 'SNMP_ROUTER', 'Router (SNMP)', 1, ['snmp']),
  detected(105, 'SNMP_PRINTER', 'Network printer (SNMP)', 10, ['snmp']),
  detected(106, 'SNMP_UPS', 'UPS (SNMP)', 22, ['snmp']),
  detected(107, 'SNMP_PDU', 'Switched PDU (SNMP)', 23, ['snmp', 'power_outlets']),
  detected(108, 'SSH_SERVER', 'Server reachable over SSH', 6, ['ssh']),
  detected(109, 'TELNET_DEVICE', 'Device with a Telnet console', 28, ['telnet']),
  detected(110, 'HTTP_DEVICE', 'Device with a web interface', 28, ['http']),
  detected(111, 'SIP_PHONE', 'SIP phone', 14, []),
];

/**
 * The catalogue's detected types, then those devices of the store carry that it lacks (by
 * detected_id, labelled and typed as the first such device says).
 */
export async function listDetectedDeviceTypes(store: Store): Promise<DetectedDeviceType[]> {
  const known = new Set(DETECTED_DEVICE_TYPES.map((t) => t.id));
  // The type JSON is read here rather than in SQL: one code for both databases.
  const rows: Array<{ detected_id: number; type_id: number | null; label: string | null }> = [];
  for (const { type } of await store.statement<[], { type: string }>('SELECT type FROM devices ORDER BY id').all()) {
    const parsed = parseJsonColumn<{ detected_id?: unknown; id?: unknown; label?: unknown }>(type, {});
    if (!Number.isInteger(parsed.detected_id)) continue;
    rows.push({
      detected_id: parsed.detected_id as number,
      type_id: typeof parsed.id === 'number' ? parsed.id : null,
      label: typeof parsed.label === 'string' ? parsed.label : null,
    });
  }
  const extra = new Map<number, DetectedDeviceType>();
  for (const row of rows) {
    if (known.has(row.detected_id) || extra.has(row.detected_id)) continue;
    extra.set(row.detected_id, {
      id: row.detected_id,
      identifier: `DETECTED_${row.detected_id}`,
      ...(typeof row.label === 'string' ? { label: row.label } : {}),
      ...(Number.isInteger(row.type_id) ? { type_id: row.type_id! } : {}),
    });
  }
  return [...DETECTED_DEVICE_TYPES, ...[...extra.values()].sort((a, b) => a.id - b.id)];
}

/** The base type id of a device: its type.id, else its detected type's, else user_data.type. */
export function baseTypeOf(device: { type: Record<string, unknown>; userData: Record<string, unknown> }): number | undefined {
  const id = device.type.id;
  if (typeof id === 'number') return id;
  const detectedId = device.type.detected_id;
  const fromDetected = DETECTED_DEVICE_TYPES.find((t) => t.id === detectedId)?.type_id;
  if (fromDetected !== undefined) return fromDetected;
  const user = device.userData.type;
  return typeof user === 'number' ? user : undefined;
}

/** Sets a device's type as discovery would: its base type id, detected type id and label. */
export async function setDeviceType(store: Store, deviceId: number, type: { id?: number; detectedId?: number; label?: string }): Promise<void> {
  const value = {
    ...(type.detectedId !== undefined ? { detected_id: type.detectedId } : {}),
    ...(type.id !== undefined ? { id: type.id } : {}),
    ...(type.label !== undefined ? { label: type.label } : {}),
  };
  await store.statement('UPDATE devices SET type = ? WHERE id = ?').run(JSON.stringify(value), deviceId);
}
