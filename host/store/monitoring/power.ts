// Power actions on devices. No PDU or PoE switch is driven: an action is recorded with an
// activity-log entry of the spec's type, so clients and operators see it happened. Which
// actions a device offers is a setting (all four unless setPowerAvailability says otherwise).
import { addActivity } from '../fleet/activity-log.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export const POWER_ACTIONS = ['on', 'off', 'cycle', 'software-reboot'] as const;
export type PowerAction = (typeof POWER_ACTIONS)[number];

export interface PowerAvailability {
  on: boolean;
  off: boolean;
  cycle: boolean;
  softwareReboot: boolean;
}

export interface PowerActionRow {
  id: number;
  deviceId: number;
  action: PowerAction;
  user: string;
  timestamp: number;
}

/** The activity-log type of each action, as the spec names them. */
export const POWER_ACTIVITY_TYPE: Record<PowerAction, string> = {
  on: 'power_on',
  off: 'power_off',
  cycle: 'power_cycle',
  'software-reboot': 'device_reboot',
};

const ALL_AVAILABLE: PowerAvailability = { on: true, off: true, cycle: true, softwareReboot: true };

export async function getPowerAvailability(store: Store, deviceId: number): Promise<PowerAvailability> {
  const row = await store
    .statement<[number], { power_on: number; power_off: number; power_cycle: number; software_reboot: number }>(
      'SELECT power_on, power_off, power_cycle, software_reboot FROM power_availability WHERE device_id = ?',
    )
    .get(deviceId);
  if (!row) return { ...ALL_AVAILABLE };
  return { on: row.power_on === 1, off: row.power_off === 1, cycle: row.power_cycle === 1, softwareReboot: row.software_reboot === 1 };
}

export async function setPowerAvailability(store: Store, deviceId: number, availability: Partial<PowerAvailability>): Promise<PowerAvailability> {
  const next = { ...await getPowerAvailability(store, deviceId), ...availability };
  await store
    .statement(
      `INSERT INTO power_availability (device_id, power_on, power_off, power_cycle, software_reboot) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (device_id) DO UPDATE SET power_on = excluded.power_on, power_off = excluded.power_off,
         power_cycle = excluded.power_cycle, software_reboot = excluded.software_reboot`,
    )
    .run(deviceId, Number(next.on), Number(next.off), Number(next.cycle), Number(next.softwareReboot));
  return next;
}

function isAvailable(availability: PowerAvailability, action: PowerAction): boolean {
  return action === 'software-reboot' ? availability.softwareReboot : availability[action];
}

/**
 * Performs (records) a power action on a device of an agent and logs it in the activity log,
 * in one transaction. Refused with CONFLICT when the device does not offer the action.
 */
export async function performPowerAction(
  store: Store,
  device: { agentId: number; id: number; displayName: string },
  action: PowerAction,
  user: string,
): Promise<PowerActionRow> {
  return await store.transaction(async () => {
    if (!isAvailable(await getPowerAvailability(store, device.id), action)) {
      throw new StoreError('CONFLICT', `power action ${action} is not available on device ${device.id}; getDevicePowerActions lists the available ones`);
    }
    const timestamp = store.now();
    const info = await store.statement('INSERT INTO power_actions (device_id, action, "user", timestamp) VALUES (?, ?, ?, ?)').insert(device.id, action, user, timestamp);
    await addActivity(store, {
      agentId: device.agentId,
      deviceId: device.id,
      type: POWER_ACTIVITY_TYPE[action],
      user,
      description: `power action ${action} on device "${device.displayName}" (recorded; driverbox drives no power outlet)`,
      details: { action },
      timestamp,
    });
    return { id: info, deviceId: device.id, action, user, timestamp };
  });
}

export async function listPowerActions(store: Store, deviceId: number): Promise<PowerActionRow[]> {
  return (await store
    .statement<[number], { id: number; device_id: number; action: PowerAction; user: string; timestamp: number }>(
      'SELECT * FROM power_actions WHERE device_id = ? ORDER BY timestamp, id',
    )
    .all(deviceId))
    .map((r) => ({ id: r.id, deviceId: r.device_id, action: r.action, user: r.user, timestamp: r.timestamp }));
}
