// Whether a device is monitored: its monitoring state (MANAGED / UNMANAGED, the per-device
// licensing of 1.14.0) and its place on the collector's excluded-device list. Either one takes
// the device out of monitoring: the agent schedules no association on it (listAssociationSchedules).
import { deviceFromDb, getDevice, type DeviceRow, type MonitoringState } from './devices.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const MONITORING_STATES: readonly MonitoringState[] = ['MANAGED', 'UNMANAGED'];

/** A device the agent monitors (runs drivers on): managed and not excluded. */
export function isDeviceMonitored(device: Pick<DeviceRow, 'monitoringState' | 'excluded'>): boolean {
  return device.monitoringState === 'MANAGED' && !device.excluded;
}

async function requireDeviceOf(store: Store, agentId: number, deviceId: number): Promise<DeviceRow> {
  const device = await getDevice(store, agentId, deviceId);
  if (!device) throw new StoreError('NOT_FOUND', `device ${deviceId} not found`);
  return device;
}

/** Sets a device's monitoring state; answers whether it changed. */
export async function setMonitoringState(store: Store, agentId: number, deviceId: number, state: MonitoringState): Promise<boolean> {
  await requireDeviceOf(store, agentId, deviceId);
  return (await store.statement('UPDATE devices SET monitoring_state = ? WHERE id = ? AND monitoring_state <> ?').run(state, deviceId, state)).changes > 0;
}

/** The agent's UNMANAGED devices, hidden ones included (they are still the agent's to manage). */
export async function listUnmanagedDevices(store: Store, agentId: number): Promise<DeviceRow[]> {
  return (await store
    .statement<[number], Parameters<typeof deviceFromDb>[0]>(`SELECT * FROM devices WHERE agent_id = ? AND monitoring_state = 'UNMANAGED' ORDER BY id`)
    .all(agentId))
    .map(deviceFromDb);
}

/** Puts a device on (true) or takes it off (false) the excluded list; answers whether it changed. */
export async function setDeviceExcluded(store: Store, agentId: number, deviceId: number, excluded: boolean): Promise<boolean> {
  await requireDeviceOf(store, agentId, deviceId);
  return (await store.statement('UPDATE devices SET excluded = ? WHERE id = ? AND excluded <> ?').run(Number(excluded), deviceId, Number(excluded))).changes > 0;
}

export async function listExcludedDevices(store: Store, agentId: number): Promise<DeviceRow[]> {
  return (await store
    .statement<[number], Parameters<typeof deviceFromDb>[0]>('SELECT * FROM devices WHERE agent_id = ? AND excluded = 1 ORDER BY id')
    .all(agentId))
    .map(deviceFromDb);
}
