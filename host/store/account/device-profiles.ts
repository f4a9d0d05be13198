// Device profiles: the account's catalogue of settings bundles (modules: device info, shared
// alerts, SNMP OIDs and sensors, TCP sensors) that can be applied to devices. The catalogue is
// what addDeviceProfile put in the store (the cloud's portal edits it; the API only reads and
// applies). Applying records, per device, which profile it now follows, with an activity-log
// entry; the modules' settings themselves live in the cloud and are not reproduced.
import { addActivity } from '../fleet/activity-log.js';
import { parseJsonColumn } from '../db/json-column.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const PROFILE_MODULE_TYPES = ['INFO', 'SHARED_ALERT', 'SNMP_CUSTOM_OID', 'SNMP_PRECONFIGURED_SENSOR', 'TCP_SENSOR'] as const;
export type ProfileModuleType = (typeof PROFILE_MODULE_TYPES)[number];
export type ProfileApplyMode = 'REPLACE' | 'ADDITIVE';

export interface DeviceProfileModule {
  id: number;
  moduleType: ProfileModuleType;
  applyMode: ProfileApplyMode;
  isActive: boolean;
  creationTime: number;
  lastModified: number;
}

export interface DeviceProfileRow {
  id: number;
  name: string;
  description: string;
  creationTime: number;
  lastModified: number;
  modifiedBy: { id?: number; name?: string };
  modules: DeviceProfileModule[];
}

export interface NewDeviceProfile {
  name: string;
  description?: string;
  modifiedBy?: { id?: number; name?: string };
  modules?: Array<{ moduleType: ProfileModuleType; applyMode?: ProfileApplyMode; isActive?: boolean }>;
}

export interface ProfileApplication {
  deviceId: number;
  profileId: number;
  user: string;
  timestamp: number;
}

interface ProfileDbRow {
  id: number;
  name: string;
  description: string;
  creation_time: number;
  last_modified: number;
  modified_by_id: number | null;
  modified_by_name: string | null;
  modules: string;
}

function profileFromDb(row: ProfileDbRow): DeviceProfileRow {
  const modifiedBy: DeviceProfileRow['modifiedBy'] = {};
  if (row.modified_by_id !== null) modifiedBy.id = row.modified_by_id;
  if (row.modified_by_name !== null) modifiedBy.name = row.modified_by_name;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    creationTime: row.creation_time,
    lastModified: row.last_modified,
    modifiedBy,
    modules: parseJsonColumn<DeviceProfileModule[]>(row.modules, []),
  };
}

/** Adds a profile to the catalogue; its modules are numbered 1… in the order given. */
export async function addDeviceProfile(store: Store, input: NewDeviceProfile): Promise<DeviceProfileRow> {
  const now = store.now();
  const modules: DeviceProfileModule[] = (input.modules ?? []).map((m, i) => {
    if (!PROFILE_MODULE_TYPES.includes(m.moduleType)) throw new StoreError('INVALID', `unknown device profile module type ${String(m.moduleType)}`);
    return { id: i + 1, moduleType: m.moduleType, applyMode: m.applyMode ?? 'REPLACE', isActive: m.isActive ?? true, creationTime: now, lastModified: now };
  });
  if (await store.statement('SELECT 1 FROM device_profiles WHERE name = ?').get(input.name)) throw new StoreError('CONFLICT', `a device profile named "${input.name}" exists`);
  const info = await store
    .statement(
      `INSERT INTO device_profiles (name, description, creation_time, last_modified, modified_by_id, modified_by_name, modules)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .insert(input.name, input.description ?? '', now, now, input.modifiedBy?.id ?? null, input.modifiedBy?.name ?? null, JSON.stringify(modules));
  return (await getDeviceProfile(store, info))!;
}

export async function getDeviceProfile(store: Store, id: number): Promise<DeviceProfileRow | undefined> {
  const row = await store.statement<[number], ProfileDbRow>('SELECT * FROM device_profiles WHERE id = ?').get(id);
  return row ? profileFromDb(row) : undefined;
}

export async function listDeviceProfiles(store: Store): Promise<DeviceProfileRow[]> {
  return (await store.statement<[], ProfileDbRow>('SELECT * FROM device_profiles ORDER BY id').all()).map(profileFromDb);
}

/**
 * Applies a profile to devices (each given with its agent, checked by the caller): each now
 * follows it, replacing any profile applied before, with an activity-log entry per device.
 */
export async function applyDeviceProfile(
  store: Store,
  profileId: number,
  devices: ReadonlyArray<{ id: number; agentId: number; displayName: string }>,
  user: string,
): Promise<ProfileApplication[]> {
  return await store.transaction(async () => {
    const profile = await getDeviceProfile(store, profileId);
    if (!profile) throw new StoreError('NOT_FOUND', `device profile ${profileId} not found`);
    const timestamp = store.now();
    const upsert = store.statement(
      `INSERT INTO device_profile_applications (device_id, profile_id, "user", timestamp) VALUES (?, ?, ?, ?)
       ON CONFLICT (device_id) DO UPDATE SET profile_id = excluded.profile_id, "user" = excluded."user", timestamp = excluded.timestamp`,
    );
    const applied: ProfileApplication[] = [];
    for (const device of devices) {
      await upsert.run(device.id, profileId, user, timestamp);
      await addActivity(store, {
        agentId: device.agentId,
        deviceId: device.id,
        type: 'note',
        user,
        description: `device profile "${profile.name}" applied to device "${device.displayName}"`,
        details: { device_profile_id: profileId },
        timestamp,
      });
      applied.push({ deviceId: device.id, profileId, user, timestamp });
    }
    return applied;
  });
}

/** The profile a device follows, if one was applied. */
export async function deviceProfileApplication(store: Store, deviceId: number): Promise<ProfileApplication | undefined> {
  const row = await store
    .statement<[number], { device_id: number; profile_id: number; user: string; timestamp: number }>('SELECT * FROM device_profile_applications WHERE device_id = ?')
    .get(deviceId);
  return row ? { deviceId: row.device_id, profileId: row.profile_id, user: row.user, timestamp: row.timestamp } : undefined;
}

/** The devices with these ids, whatever their agent (missing ids are left out). */
export async function devicesWithIds(store: Store, ids: readonly number[]): Promise<Array<{ id: number; agentId: number; displayName: string }>> {
  const get = store.statement<[number], { id: number; agent_id: number; display_name: string }>('SELECT id, agent_id, display_name FROM devices WHERE id = ?');
  const found: Array<{ id: number; agentId: number; displayName: string }> = [];
  for (const id of ids) {
    const row = await get.get(id);
    if (row) found.push({ id: row.id, agentId: row.agent_id, displayName: row.display_name });
  }
  return found;
}
