// The driver library as the console shows it, from the Public API's Custom Drivers operations:
// every driver with its details (parameters, actions, version), and where each is applied
// (listCustomDriverAssociations of every agent, with the devices' names).
import { apiGet } from './api.js';
import type { Agent, CustomDriver, CustomDriverAssociation, CustomDriverDetails, Device } from './types.js';

export interface PlacedAssociation extends CustomDriverAssociation {
  agent: Agent;
  deviceName: string;
}

export type LibraryDriver = CustomDriverDetails & Pick<CustomDriver, 'device_ids'>;

export async function loadLibrary(key: string, signal: AbortSignal): Promise<LibraryDriver[]> {
  const drivers = await apiGet<CustomDriver[]>('/custom-driver', key, { signal });
  return await Promise.all(drivers.map(async (d) => ({ ...(await apiGet<CustomDriverDetails>(`/custom-driver/${d.id}`, key, { signal })), device_ids: d.device_ids })));
}

/** The associations of every agent (of driver `driverId` only, when given), with the devices' names. */
export async function loadAssociations(key: string, signal: AbortSignal, driverId?: number): Promise<PlacedAssociation[]> {
  const agents = await apiGet<Agent[]>('/agent?page_size=100', key, { signal });
  const perAgent = await Promise.all(
    agents.map(async (agent) => {
      const associations = (await apiGet<CustomDriverAssociation[]>(`/custom-driver/agent/${agent.id}/association`, key, { signal })).filter(
        (a) => driverId === undefined || a.custom_driver_id === driverId,
      );
      if (associations.length === 0) return [];
      const devices = await apiGet<Device[]>(`/agent/${agent.id}/device`, key, { signal });
      const names = new Map(devices.map((d) => [d.id, d.display_name]));
      return associations.map((a) => ({ ...a, agent, deviceName: names.get(a.device_id) ?? `device ${a.device_id}` }));
    }),
  );
  return perAgent.flat();
}

export function parameterValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return Array.isArray(value) ? value.join(', ') : String(value);
}
