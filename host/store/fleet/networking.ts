// An agent's network settings and what it monitors: the scan policies and the DHCP discovery
// switch the API sets (kept as the API shows them; no row means the default), the interfaces
// recorded for it and the routed networks added to it. The API layer validates the values;
// these functions store and read them.
import { parseJsonColumn } from '../db/json-column.js';
import { StoreError } from '../../contract/errors.js';
import type { Store } from '../store.js';

export interface InterfacesPolicy {
  policy: 'allow' | 'deny';
  rules: string[];
}

export interface IpScanPolicy {
  forced_ip_addresses: string[];
  forced_ip_ranges: Array<{ start: string; end: string }>;
}

export interface ExternalHostScanPolicy {
  icmp: { enabled: boolean };
  tcp_syn: { enabled: boolean; ports: number[] };
  tcp_ack: { enabled: boolean; ports: number[] };
}

export interface NetworkSettings {
  interfaces_policy: InterfacesPolicy;
  ip_scan_policy: IpScanPolicy;
  external_host_scan_policy: ExternalHostScanPolicy;
  dhcp_device_discovery: boolean;
}

export type NetworkSettingName = keyof NetworkSettings;

/**
 * What an agent has until a setting is written, and again after it is deleted: every
 * interface scanned (a deny list with no rules), no forced addresses, external hosts probed
 * with ICMP only, no devices made from failed DHCP requests.
 */
export function defaultNetworkSetting<K extends NetworkSettingName>(name: K): NetworkSettings[K] {
  const defaults: NetworkSettings = {
    interfaces_policy: { policy: 'deny', rules: [] },
    ip_scan_policy: { forced_ip_addresses: [], forced_ip_ranges: [] },
    external_host_scan_policy: { icmp: { enabled: true }, tcp_syn: { enabled: false, ports: [] }, tcp_ack: { enabled: false, ports: [] } },
    dhcp_device_discovery: false,
  };
  return defaults[name];
}

export async function getNetworkSetting<K extends NetworkSettingName>(store: Store, agentId: number, name: K): Promise<NetworkSettings[K]> {
  const row = await store
    .statement<[number, string], { value: string }>('SELECT value FROM agent_network_settings WHERE agent_id = ? AND name = ?')
    .get(agentId, name);
  return row ? parseJsonColumn(row.value, defaultNetworkSetting(name)) : defaultNetworkSetting(name);
}

export async function setNetworkSetting<K extends NetworkSettingName>(store: Store, agentId: number, name: K, value: NetworkSettings[K]): Promise<void> {
  await store
    .statement(
      `INSERT INTO agent_network_settings (agent_id, name, value, update_time) VALUES (?, ?, ?, ?)
       ON CONFLICT (agent_id, name) DO UPDATE SET value = excluded.value, update_time = excluded.update_time`,
    )
    .run(agentId, name, JSON.stringify(value), store.now());
}

/** Back to the default. */
export async function resetNetworkSetting(store: Store, agentId: number, name: NetworkSettingName): Promise<void> {
  await store.statement('DELETE FROM agent_network_settings WHERE agent_id = ? AND name = ?').run(agentId, name);
}

// ---- interfaces and routed networks -----------------------------------------------------

export interface AgentInterface {
  name: string;
  /** The agent's address on the interface. */
  address?: string;
  /** Prefix length (24 for 255.255.255.0). */
  netmask?: number;
  macAddress?: string;
}

/** Replaces the interfaces recorded for an agent (what its host reports; an import, a test). */
export async function setAgentInterfaces(store: Store, agentId: number, interfaces: readonly AgentInterface[]): Promise<void> {
  await store.transaction(async () => {
    await store.statement('DELETE FROM agent_interfaces WHERE agent_id = ?').run(agentId);
    const insert = store.statement('INSERT INTO agent_interfaces (agent_id, name, address, netmask, mac_address) VALUES (?, ?, ?, ?, ?)');
    for (const i of interfaces) await insert.run(agentId, i.name, i.address ?? null, i.netmask ?? null, i.macAddress ?? null);
  });
}

/** The recorded interfaces, or undefined when none were ever recorded for the agent. */
export async function getAgentInterfaces(store: Store, agentId: number): Promise<AgentInterface[] | undefined> {
  const rows = await store
    .statement<[number], { name: string; address: string | null; netmask: number | null; mac_address: string | null }>(
      'SELECT name, address, netmask, mac_address FROM agent_interfaces WHERE agent_id = ? ORDER BY id',
    )
    .all(agentId);
  if (rows.length === 0) return undefined;
  return rows.map((r) => ({
    name: r.name,
    ...(r.address !== null ? { address: r.address } : {}),
    ...(r.netmask !== null ? { netmask: r.netmask } : {}),
    ...(r.mac_address !== null ? { macAddress: r.mac_address } : {}),
  }));
}

export interface RoutedNetwork {
  name: string;
  address: string;
  netmask: number;
}

/** Adds a routed network; CONFLICT when the agent has one of that name or that address and mask. */
export async function addRoutedNetwork(store: Store, agentId: number, network: RoutedNetwork): Promise<void> {
  await store.transaction(async () => {
    const same = await store
      .statement<[number, string, string, number], { name: string; address: string; netmask: number }>(
        'SELECT name, address, netmask FROM agent_routed_networks WHERE agent_id = ? AND (name = ? OR (address = ? AND netmask = ?))',
      )
      .get(agentId, network.name, network.address, network.netmask);
    if (same) {
      throw new StoreError('CONFLICT', `agent ${agentId} already has the routed network "${same.name}" (${same.address}/${same.netmask})`);
    }
    await store
      .statement('INSERT INTO agent_routed_networks (agent_id, name, address, netmask, creation_time) VALUES (?, ?, ?, ?, ?)')
      .run(agentId, network.name, network.address, network.netmask, store.now());
  });
}

export async function listRoutedNetworks(store: Store, agentId: number): Promise<RoutedNetwork[]> {
  return await store
    .statement<[number], RoutedNetwork>('SELECT name, address, netmask FROM agent_routed_networks WHERE agent_id = ? ORDER BY id')
    .all(agentId);
}

/** A case-insensitive interface name rule where * matches any run of characters. */
export function interfaceRuleMatches(rule: string, name: string): boolean {
  const pattern = rule
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 'i').test(name);
}

/** Whether the agent's interfaces policy lets it scan an interface of that name. */
export function interfaceScanned(policy: InterfacesPolicy, name: string): boolean {
  const matched = policy.rules.some((rule) => interfaceRuleMatches(rule, name));
  return policy.policy === 'allow' ? matched : !matched;
}

/** The id of the agent standing for this driverbox process, if one was made (ensureLocalAgent). */
export async function localAgentId(store: Store): Promise<number | undefined> {
  const row = await store.statement<[], { value: string }>(`SELECT value FROM meta WHERE key = 'local_agent_id'`).get();
  return row ? Number(row.value) : undefined;
}
