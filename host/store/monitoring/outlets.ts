// The power outlets of a power distribution device (a PDU, a smart power strip). driverbox
// discovers none on a LAN: a device's outlets are what defineDeviceOutlets was given (by an
// import, a test, an embedder reading a driver's table). The API then names them, attaches
// the devices they power, and records outlet actions: no outlet is switched, the answer is
// the state the action leaves (on → ON, off → OFF, cycle → ON), logged like a power action.
import { addActivity } from '../fleet/activity-log.js';
import { POWER_ACTIVITY_TYPE } from './power.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const OUTLET_ACTIONS = ['on', 'off', 'cycle'] as const;
export type OutletAction = (typeof OUTLET_ACTIONS)[number];
export type OutletPower = 'ON' | 'OFF' | 'unknown';

export interface OutletDefinition {
  /** The device's own id of the outlet ("1", "A3"…). */
  id: string;
  /** Its name as discovered. */
  name: string;
  /** Default unknown. */
  power?: OutletPower;
  /** Whether actions may be performed on it; default true. */
  canWrite?: boolean;
}

export interface OutletRow {
  deviceId: number;
  id: string;
  name: string;
  customName: string | null;
  power: OutletPower;
  canWrite: boolean;
  /** Ids of the devices attached (powered by it), ascending. */
  links: number[];
}

export interface OutletActionRow {
  id: number;
  outletId: string;
  action: OutletAction;
  user: string;
  timestamp: number;
}

const POWER_AFTER: Record<OutletAction, OutletPower> = { on: 'ON', off: 'OFF', cycle: 'ON' };

/**
 * Sets the outlets a device has, in order. Outlets kept (same id) keep their custom name and
 * links; those not given are removed with theirs.
 */
export async function defineDeviceOutlets(store: Store, deviceId: number, outlets: readonly OutletDefinition[]): Promise<OutletRow[]> {
  const ids = outlets.map((o) => o.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new StoreError('INVALID', `outlet ${twice} is given twice`);
  return await store.transaction(async () => {
    if (!await store.statement('SELECT 1 FROM devices WHERE id = ?').get(deviceId)) throw new StoreError('NOT_FOUND', `device ${deviceId} not found`);
    const kept = new Set(ids);
    for (const row of await store.statement<[number], { outlet_id: string }>('SELECT outlet_id FROM device_outlets WHERE device_id = ?').all(deviceId)) {
      if (!kept.has(row.outlet_id)) await store.statement('DELETE FROM device_outlets WHERE device_id = ? AND outlet_id = ?').run(deviceId, row.outlet_id);
    }
    const upsert = store.statement(
      `INSERT INTO device_outlets (device_id, outlet_id, position, name, power, can_write) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (device_id, outlet_id) DO UPDATE SET position = excluded.position, name = excluded.name,
         power = excluded.power, can_write = excluded.can_write`,
    );
    for (const [i, o] of outlets.entries()) await upsert.run(deviceId, o.id, i, o.name, o.power ?? 'unknown', Number(o.canWrite ?? true));
    return listDeviceOutlets(store, deviceId);
  });
}

interface OutletDbRow {
  device_id: number;
  outlet_id: string;
  name: string;
  custom_name: string | null;
  power: OutletPower;
  can_write: number;
}

async function linksOf(store: Store, deviceId: number, outletId: string): Promise<number[]> {
  return (await store
    .statement<[number, string], { attached_device_id: number }>(
      'SELECT attached_device_id FROM device_outlet_links WHERE device_id = ? AND outlet_id = ? ORDER BY attached_device_id',
    )
    .all(deviceId, outletId))
    .map((r) => r.attached_device_id);
}

async function outletFromDb(store: Store, row: OutletDbRow): Promise<OutletRow> {
  return {
    deviceId: row.device_id,
    id: row.outlet_id,
    name: row.name,
    customName: row.custom_name,
    power: row.power,
    canWrite: row.can_write === 1,
    links: await linksOf(store, row.device_id, row.outlet_id),
  };
}

export async function listDeviceOutlets(store: Store, deviceId: number): Promise<OutletRow[]> {
  const rows = await store
    .statement<[number], OutletDbRow>('SELECT * FROM device_outlets WHERE device_id = ? ORDER BY position, outlet_id')
    .all(deviceId);
  return Promise.all(rows.map((row) => outletFromDb(store, row)));
}

/** The outlet, or NOT_FOUND naming it and its device. */
export async function getDeviceOutlet(store: Store, deviceId: number, outletId: string): Promise<OutletRow> {
  const row = await store.statement<[number, string], OutletDbRow>('SELECT * FROM device_outlets WHERE device_id = ? AND outlet_id = ?').get(deviceId, outletId);
  if (!row) throw new StoreError('NOT_FOUND', `power outlet ${outletId} of device ${deviceId} not found`);
  return outletFromDb(store, row);
}

/** Sets (a string) or removes (null) the outlet's custom name. */
export async function setOutletCustomName(store: Store, deviceId: number, outletId: string, customName: string | null): Promise<OutletRow> {
  await getDeviceOutlet(store, deviceId, outletId);
  await store.statement('UPDATE device_outlets SET custom_name = ? WHERE device_id = ? AND outlet_id = ?').run(customName, deviceId, outletId);
  return getDeviceOutlet(store, deviceId, outletId);
}

/**
 * Records an action on the outlet with its activity-log entry and answers the outlet in the
 * state it leaves. Refused (CONFLICT) on an outlet that cannot be written.
 */
export async function performOutletAction(
  store: Store,
  device: { agentId: number; id: number; displayName: string },
  outletId: string,
  action: OutletAction,
  user: string,
): Promise<OutletRow> {
  return await store.transaction(async () => {
    const outlet = await getDeviceOutlet(store, device.id, outletId);
    if (!outlet.canWrite) throw new StoreError('CONFLICT', `power outlet ${outletId} of device ${device.id} is read-only (can_write false)`);
    const timestamp = store.now();
    await store.statement('INSERT INTO device_outlet_actions (device_id, outlet_id, action, "user", timestamp) VALUES (?, ?, ?, ?, ?)').run(device.id, outletId, action, user, timestamp);
    await store.statement('UPDATE device_outlets SET power = ? WHERE device_id = ? AND outlet_id = ?').run(POWER_AFTER[action], device.id, outletId);
    await addActivity(store, {
      agentId: device.agentId,
      deviceId: device.id,
      type: POWER_ACTIVITY_TYPE[action],
      user,
      description: `power action ${action} on outlet "${outlet.customName ?? outlet.name}" of device "${device.displayName}" (recorded; driverbox drives no power outlet)`,
      details: { action, power_outlet_id: outletId },
      timestamp,
    });
    return getDeviceOutlet(store, device.id, outletId);
  });
}

export async function listOutletActions(store: Store, deviceId: number): Promise<OutletActionRow[]> {
  return (await store
    .statement<[number], { id: number; outlet_id: string; action: OutletAction; user: string; timestamp: number }>(
      'SELECT id, outlet_id, action, "user", timestamp FROM device_outlet_actions WHERE device_id = ? ORDER BY id',
    )
    .all(deviceId))
    .map((r) => ({ id: r.id, outletId: r.outlet_id, action: r.action, user: r.user, timestamp: r.timestamp }));
}

/**
 * Attaches a device (of the same agent: the caller checks) to the outlet; answers false when
 * it already was.
 */
export async function attachDeviceToOutlet(store: Store, deviceId: number, outletId: string, attachedDeviceId: number): Promise<boolean> {
  await getDeviceOutlet(store, deviceId, outletId);
  return (await store.statement('INSERT INTO device_outlet_links (device_id, outlet_id, attached_device_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(deviceId, outletId, attachedDeviceId)).changes > 0;
}

/** Detaches a device from the outlet; NOT_FOUND when it was not attached. */
export async function detachDeviceFromOutlet(store: Store, deviceId: number, outletId: string, attachedDeviceId: number): Promise<void> {
  await getDeviceOutlet(store, deviceId, outletId);
  const info = await store.statement('DELETE FROM device_outlet_links WHERE device_id = ? AND outlet_id = ? AND attached_device_id = ?').run(deviceId, outletId, attachedDeviceId);
  if (info.changes === 0) throw new StoreError('NOT_FOUND', `device ${attachedDeviceId} is not attached to power outlet ${outletId} of device ${deviceId}`);
}
