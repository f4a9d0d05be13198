// The RunRequest for an action of a library driver on an associated device, built from the
// store: the device's address and port map, its sealed driver credentials, the association's
// parameter values. The API's execute operation and the agent's scheduled runs both use it.
import type { DeviceSpec, SnmpSettings } from '../../contract/device.js';
import type { RunRequest } from '../../contract/run-request.js';
import type { RunLimits } from '../../contract/limits.js';
import { runParameters, type AssociationRow } from '../drivers/associations.js';
import { getDeviceCredentials, type DeviceCredentials } from '../fleet/credentials.js';
import type { CustomDriverRow } from '../drivers/custom-drivers.js';
import { getSnmpAuthentication, type DeviceRow } from '../fleet/devices.js';
import { snmpSettingsFromApi, type ApiSnmpAuthentication } from '../../snmp-settings.js';
import type { Store } from '../store.js';

export interface PlannedRun {
  driver: CustomDriverRow;
  association: AssociationRow;
  device: DeviceRow;
  /** get_status, validate, backup or custom_N. */
  action: string;
}

/** The device as the sandbox reaches it: its address, port map, driver credentials and SNMP settings. */
export async function deviceSpecOf(store: Store, device: DeviceRow): Promise<DeviceSpec> {
  const credentials = await getDeviceCredentials(store, device.id);
  return deviceSpecFrom(device, credentials, snmpSettingsFromApi(await getSnmpAuthentication<ApiSnmpAuthentication>(store, device.id)));
}

/** deviceSpecOf of what was read already: the device row, its driver credentials, its SNMP settings. */
export function deviceSpecFrom(device: DeviceRow, credentials: DeviceCredentials | undefined, snmp: SnmpSettings | null): DeviceSpec {
  const portMap: Record<number, number> = {};
  for (const [from, to] of Object.entries(device.portMap)) portMap[Number(from)] = to;
  return {
    // Keeps the device's cookie jar and connections between runs.
    id: `agent-${device.agentId}-device-${device.id}`,
    ip: device.ip,
    host: device.hostName,
    portMap,
    username: credentials?.username ?? null,
    password: credentials?.password ?? null,
    macAddress: device.macAddress,
    serial: device.details.serial ?? null,
    // As set through the Public API (PUT …/snmp-authentication) or an inventory; none: v2c "public".
    snmp,
  };
}

/** What building a run's request takes: a PlannedRun, or the narrower rows a scheduled run reads. */
export interface RunPlan {
  driver: Pick<CustomDriverRow, 'id' | 'name' | 'source'>;
  association: Pick<AssociationRow, 'parameters'>;
  device: DeviceRow;
  action: string;
}

/** A file name for the driver's stack frames and messages. */
export function driverFilename(driver: Pick<CustomDriverRow, 'id' | 'name'>): string {
  return `${driver.name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || `custom-driver-${driver.id}`}.js`;
}

export async function buildRunRequest(store: Store, plan: RunPlan, limits?: Partial<RunLimits>): Promise<RunRequest> {
  return runRequestOf(plan, await deviceSpecOf(store, plan.device), limits);
}

/** buildRunRequest with the device's spec made already (a scheduled run reads it with the device row). */
export function runRequestOf(plan: Omit<RunPlan, 'device'>, device: DeviceSpec, limits?: Partial<RunLimits>): RunRequest {
  return {
    source: plan.driver.source,
    filename: driverFilename(plan.driver),
    action: plan.action,
    device,
    parameters: runParameters(plan.association),
    ...(limits ? { limits } : {}),
  };
}
