// What the store can tell of an agent's LAN from its devices alone: addresses two devices
// claim at once (IP conflicts, real), and an emulated topology (driverbox sees no switch
// tables or LLDP): in each /24 the devices hang off one hub.
import { baseTypeOf, HUB_TYPE_IDS } from './device-types.js';
import { listDevices, type DeviceRow } from './devices.js';
import { networkOf, parseIpv4 } from './ipv4.js';
import type { Store } from '../store.js';

export interface IpConflict {
  ip: string;
  devices: Array<{ id: number; mac: string | null }>;
}

/** Every address of the agent's devices (hidden ones too) that more than one device has. */
export async function listIpConflicts(store: Store, agentId: number): Promise<IpConflict[]> {
  const holders = new Map<string, DeviceRow[]>();
  for (const device of await listDevices(store, agentId, { showHidden: true })) {
    if (device.protocol !== 'IP') continue;
    const addresses = new Set([...(device.ip ? [device.ip] : []), ...device.ipAddresses]);
    for (const ip of addresses) holders.set(ip, [...(holders.get(ip) ?? []), device]);
  }
  return [...holders.entries()]
    .filter(([, devices]) => devices.length > 1)
    .sort(([a], [b]) => (parseIpv4(a) ?? Infinity) - (parseIpv4(b) ?? Infinity) || a.localeCompare(b))
    .map(([ip, devices]) => ({ ip, devices: devices.map((d) => ({ id: d.id, mac: d.macAddress })) }));
}

export interface TopologyEdge {
  from: number;
  to: number;
}

/**
 * The emulated topology of an agent's visible IPv4 devices: grouped by /24; in each group the
 * hub is a gateway, router, firewall, switch or access point (in that order of preference,
 * the lowest address first), else the device at .1; every other device of the group is an
 * edge from the hub. A group without a hub has no edges, and neither do hubs of two groups.
 */
export async function networkTopology(store: Store, agentId: number): Promise<TopologyEdge[]> {
  const groups = new Map<number, Array<{ device: DeviceRow; address: number }>>();
  for (const device of await listDevices(store, agentId)) {
    const address = device.protocol === 'IP' && device.ip ? parseIpv4(device.ip) : null;
    if (address === null) continue;
    const network = networkOf(address, 24);
    groups.set(network, [...(groups.get(network) ?? []), { device, address }]);
  }
  const edges: TopologyEdge[] = [];
  for (const [network, members] of [...groups.entries()].sort(([a], [b]) => a - b)) {
    members.sort((a, b) => a.address - b.address || a.device.id - b.device.id);
    const rank = (m: { device: DeviceRow }) => {
      const type = baseTypeOf(m.device);
      const index = type === undefined ? -1 : HUB_TYPE_IDS.indexOf(type);
      return index < 0 ? Infinity : index;
    };
    const byType = [...members].sort((a, b) => rank(a) - rank(b))[0];
    const hub = byType && rank(byType) !== Infinity ? byType : members.find((m) => m.address === network + 1);
    if (!hub) continue;
    for (const member of members) if (member !== hub) edges.push({ from: hub.device.id, to: member.device.id });
  }
  return edges;
}
