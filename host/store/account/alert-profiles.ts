// Alert profiles (a list of events and, in the cloud, a notification channel) and their bindings
// to agents and devices. The store starts with a built-in catalogue (db/schema/account.ts);
// createAlertProfile adds others. Bindings are plain state: what is bound is what is listed.
// driverbox sends no notification.
import { parseJsonColumn } from '../db/json-column.js';
import type { Store } from '../store.js';

export interface AlertProfileRow {
  id: number;
  name: string;
  description: string | null;
  tag: string | null;
  events: string[];
  isEnabled: boolean;
}

export interface NewAlertProfile {
  name: string;
  description?: string | null;
  tag?: string | null;
  events?: string[];
  isEnabled?: boolean;
}

interface ProfileDbRow {
  id: number;
  name: string;
  description: string | null;
  tag: string | null;
  events: string;
  is_enabled: number;
}

const profile = (row: ProfileDbRow): AlertProfileRow => ({
  id: row.id,
  name: row.name,
  description: row.description,
  tag: row.tag,
  events: parseJsonColumn<string[]>(row.events, []),
  isEnabled: row.is_enabled === 1,
});

export async function listAlertProfiles(store: Store): Promise<AlertProfileRow[]> {
  return (await store.statement<[], ProfileDbRow>('SELECT * FROM alert_profiles ORDER BY id').all()).map(profile);
}

export async function getAlertProfile(store: Store, id: number): Promise<AlertProfileRow | undefined> {
  const row = await store.statement<[number], ProfileDbRow>('SELECT * FROM alert_profiles WHERE id = ?').get(id);
  return row ? profile(row) : undefined;
}

/** Adds a profile to the account (what the cloud's portal would configure). */
export async function createAlertProfile(store: Store, input: NewAlertProfile): Promise<AlertProfileRow> {
  const info = await store
    .statement('INSERT INTO alert_profiles (name, description, tag, events, is_enabled) VALUES (?, ?, ?, ?, ?)')
    .insert(input.name, input.description ?? null, input.tag ?? null, JSON.stringify(input.events ?? []), input.isEnabled === false ? 0 : 1);
  return (await getAlertProfile(store, info))!;
}

/** The profile ids bound to an agent, ascending. */
export async function listAgentBindings(store: Store, agentId: number): Promise<number[]> {
  return (await store
    .statement<[number], { alert_profile_id: number }>('SELECT alert_profile_id FROM alert_profile_agent_bindings WHERE agent_id = ? ORDER BY alert_profile_id')
    .all(agentId))
    .map((r) => r.alert_profile_id);
}

/** The bindings of the agent's devices, by device then profile. */
export async function listDeviceBindings(store: Store, agentId: number): Promise<Array<{ deviceId: number; alertProfileId: number }>> {
  return (await store
    .statement<[number], { device_id: number; alert_profile_id: number }>(
      `SELECT b.device_id, b.alert_profile_id FROM alert_profile_device_bindings b JOIN devices d ON d.id = b.device_id
       WHERE d.agent_id = ? ORDER BY b.device_id, b.alert_profile_id`,
    )
    .all(agentId))
    .map((r) => ({ deviceId: r.device_id, alertProfileId: r.alert_profile_id }));
}

/** Binds a profile to an agent; binding it again changes nothing. */
export async function bindAgent(store: Store, alertProfileId: number, agentId: number): Promise<void> {
  await store.statement('INSERT INTO alert_profile_agent_bindings (alert_profile_id, agent_id) VALUES (?, ?) ON CONFLICT DO NOTHING').run(alertProfileId, agentId);
}

/** false when the profile was not bound to the agent. */
export async function unbindAgent(store: Store, alertProfileId: number, agentId: number): Promise<boolean> {
  return (await store.statement('DELETE FROM alert_profile_agent_bindings WHERE alert_profile_id = ? AND agent_id = ?').run(alertProfileId, agentId)).changes === 1;
}

export async function bindDevice(store: Store, alertProfileId: number, deviceId: number): Promise<void> {
  await store.statement('INSERT INTO alert_profile_device_bindings (alert_profile_id, device_id) VALUES (?, ?) ON CONFLICT DO NOTHING').run(alertProfileId, deviceId);
}

export async function unbindDevice(store: Store, alertProfileId: number, deviceId: number): Promise<boolean> {
  return (await store.statement('DELETE FROM alert_profile_device_bindings WHERE alert_profile_id = ? AND device_id = ?').run(alertProfileId, deviceId)).changes === 1;
}
