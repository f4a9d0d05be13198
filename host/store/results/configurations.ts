// Each device's configuration history (configuration management): what backup() runs reported
// and what the API's createDeviceConfiguration received. A history of changes, not of runs: a
// backup identical to the device's latest configuration only records when it was last seen, so
// the list the API serves is the list of configurations the device has had.
import { createHash } from 'node:crypto';
import type { Store } from '../store.js';

/** Configurations kept per device; the oldest go first (each may hold 2 MiB of text). */
export const MAX_CONFIGURATIONS_PER_DEVICE = 100;

export interface NewConfiguration {
  label: string;
  running: string;
  startup: string | null;
}

export interface ConfigurationMetadata {
  id: number;
  /** When this configuration was first backed up (ms, whole seconds). */
  timestamp: number;
  /** The latest backup that found it unchanged (ms). */
  lastBackup: number;
  label: string;
  runningMd5: string;
  startupMd5: string | null;
  runId: number | null;
  source: 'driver' | 'api';
}

export interface Configuration extends ConfigurationMetadata {
  running: string;
  startup: string | null;
}

export interface SavedConfiguration {
  id: number;
  timestamp: number;
  /** false when the configuration was the device's latest already (nothing new was stored). */
  changed: boolean;
}

interface Row {
  id: number;
  timestamp: number;
  last_backup: number;
  label: string;
  running_md5: string;
  startup_md5: string | null;
  run_id: number | null;
  source: 'driver' | 'api';
  running?: string;
  startup?: string | null;
}

export const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

const META = 'id, timestamp, last_backup, label, running_md5, startup_md5, run_id, source';

function metadata(row: Row): ConfigurationMetadata {
  return {
    id: row.id,
    timestamp: row.timestamp,
    lastBackup: row.last_backup,
    label: row.label,
    runningMd5: row.running_md5,
    startupMd5: row.startup_md5,
    runId: row.run_id,
    source: row.source,
  };
}

/** Adds a backup to the device's history (inside the caller's transaction, if any). */
export async function saveConfiguration(
  store: Store,
  deviceId: number,
  configuration: NewConfiguration,
  now: number,
  origin: { runId?: number | null; source: 'driver' | 'api' },
): Promise<SavedConfiguration> {
  return await store.transaction(async () => {
    const runningMd5 = md5(configuration.running);
    const startupMd5 = configuration.startup === null ? null : md5(configuration.startup);
    const latest = await store
      .statement<[number], Row>(`SELECT ${META} FROM device_configurations WHERE device_id = ? ORDER BY timestamp DESC LIMIT 1`)
      .get(deviceId);
    if (latest && latest.running_md5 === runningMd5 && latest.startup_md5 === startupMd5) {
      await store.statement('UPDATE device_configurations SET last_backup = ? WHERE id = ?').run(Math.max(now, latest.last_backup), latest.id);
      return { id: latest.id, timestamp: latest.timestamp, changed: false };
    }
    // Whole seconds, after the latest: the API names an entry by its second.
    let timestamp = Math.floor(now / 1000) * 1000;
    if (latest && timestamp <= latest.timestamp) timestamp = latest.timestamp + 1000;
    const info = await store
      .statement(
        `INSERT INTO device_configurations (device_id, timestamp, last_backup, label, running, startup, running_md5, startup_md5, run_id, source)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .insert(deviceId, timestamp, now, configuration.label, configuration.running, configuration.startup, runningMd5, startupMd5, origin.runId ?? null, origin.source);
    await store
      .statement(
        `DELETE FROM device_configurations WHERE device_id = ? AND id NOT IN
           (SELECT id FROM device_configurations WHERE device_id = ? ORDER BY timestamp DESC LIMIT ?)`,
      )
      .run(deviceId, deviceId, MAX_CONFIGURATIONS_PER_DEVICE);
    return { id: info, timestamp, changed: true };
  });
}

/** The device's configurations, newest first, without their text. */
export async function listConfigurations(store: Store, deviceId: number): Promise<ConfigurationMetadata[]> {
  return (await store
    .statement<[number], Row>(`SELECT ${META} FROM device_configurations WHERE device_id = ? ORDER BY timestamp DESC`)
    .all(deviceId))
    .map(metadata);
}

/** One configuration with its text: the one made at `timestamp` (ms, whole seconds), or the latest. */
export async function getConfiguration(store: Store, deviceId: number, at: number | 'latest'): Promise<Configuration | null> {
  const row =
    at === 'latest'
      ? await store.statement<[number], Row>(`SELECT ${META}, running, startup FROM device_configurations WHERE device_id = ? ORDER BY timestamp DESC LIMIT 1`).get(deviceId)
      : await store.statement<[number, number], Row>(`SELECT ${META}, running, startup FROM device_configurations WHERE device_id = ? AND timestamp = ?`).get(deviceId, at);
  if (!row) return null;
  return { ...metadata(row), running: row.running ?? '', startup: row.startup ?? null };
}
