// Records of the networking and topology tags (reference 1.14.0): the agent's interfaces, its
// scan policies, routed networks, IP conflicts and topology. TypeScript shapes for the client,
// JSON schemas for validation, serialization and the OpenAPI document.
import type { ExternalHostScanPolicy, InterfacesPolicy, IpScanPolicy, RoutedNetwork } from '../../../store/fleet/networking.js';

export type AgentInterfacesPolicy = InterfacesPolicy;
export type AgentIPScanPolicy = IpScanPolicy;
export type AgentRoutedNetwork = RoutedNetwork;

/** A method the request leaves out is configured as disabled. */
export interface AgentExternalHostScanPolicy {
  icmp?: ExternalHostScanPolicy['icmp'];
  tcp_syn?: ExternalHostScanPolicy['tcp_syn'];
  tcp_ack?: ExternalHostScanPolicy['tcp_ack'];
}

export interface AllAgentInterfaces {
  attached: Array<{ name: string; address?: string; netmask?: number; mac_address?: string }>;
  routed: Array<{ name: string; address?: string; netmask?: number }>;
}

export interface DHCPDeviceDiscoverySetting {
  dhcp_device_discovery: boolean;
}

export interface AgentIpConflict {
  ip: string;
  conflicting_devices: Array<{ id: number; mac?: string }>;
}

export interface NetworkTopology {
  edges: Array<{ from: number; to: number }>;
}

/** Bounds of the lists a policy may hold: enough for any LAN, small enough for one store row. */
export const MAX_POLICY_ITEMS = 1000;

const prefixLength = { type: 'integer', minimum: 0, maximum: 32, description: 'Prefix length (24 for 255.255.255.0)' } as const;

export const allAgentInterfacesSchema = {
  type: 'object',
  required: ['attached', 'routed'],
  properties: {
    attached: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, address: { type: 'string' }, netmask: prefixLength, mac_address: { type: 'string' } },
      },
    },
    routed: {
      type: 'array',
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, address: { type: 'string' }, netmask: prefixLength } },
    },
  },
} as const;

export const interfacesPolicySchema = {
  type: 'object',
  required: ['policy', 'rules'],
  properties: {
    policy: { type: 'string', enum: ['allow', 'deny'], description: 'allow: only interfaces matching a rule are scanned; deny: those are ignored' },
    rules: {
      type: 'array',
      maxItems: MAX_POLICY_ITEMS,
      items: { type: 'string', minLength: 1, maxLength: 255, description: 'An interface name, case-insensitive; * matches any run of characters' },
    },
  },
} as const;

export const ipScanPolicySchema = {
  type: 'object',
  required: ['forced_ip_addresses', 'forced_ip_ranges'],
  properties: {
    forced_ip_addresses: {
      type: 'array',
      maxItems: MAX_POLICY_ITEMS,
      items: { type: 'string', description: 'A private IPv4 address in dotted decimal notation' },
    },
    forced_ip_ranges: {
      type: 'array',
      maxItems: MAX_POLICY_ITEMS,
      items: {
        type: 'object',
        required: ['start', 'end'],
        properties: { start: { type: 'string', description: 'e.g. 192.168.1.1' }, end: { type: 'string', description: 'e.g. 192.168.1.10' } },
      },
    },
  },
} as const;

const tcpMethod = {
  type: 'object',
  required: ['enabled', 'ports'],
  properties: {
    enabled: { type: 'boolean' },
    ports: {
      type: 'array',
      maxItems: MAX_POLICY_ITEMS,
      items: { type: 'integer', minimum: 1, maximum: 65535 },
      description: 'TCP ports probed; not empty when the method is enabled',
    },
  },
} as const;

export const externalHostScanPolicySchema = {
  type: 'object',
  properties: {
    icmp: { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } } },
    tcp_syn: tcpMethod,
    tcp_ack: tcpMethod,
  },
} as const;

export const dhcpDeviceDiscoverySchema = {
  type: 'object',
  required: ['dhcp_device_discovery'],
  properties: { dhcp_device_discovery: { type: 'boolean' } },
} as const;

export const routedNetworkSchema = {
  type: 'object',
  required: ['address', 'name', 'netmask'],
  properties: {
    address: { type: 'string', description: 'IPv4 address of the network, dotted decimal' },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    netmask: prefixLength,
  },
} as const;

export const ipConflictSchema = {
  type: 'object',
  required: ['ip', 'conflicting_devices'],
  properties: {
    ip: { type: 'string' },
    conflicting_devices: {
      type: 'array',
      items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, mac: { type: 'string' } } },
    },
  },
} as const;

export const networkTopologySchema = {
  type: 'object',
  required: ['edges'],
  properties: {
    edges: {
      type: 'array',
      description: 'Device ids of the connected devices',
      items: { type: 'object', required: ['from', 'to'], properties: { from: { type: 'integer' }, to: { type: 'integer' } } },
    },
  },
} as const;
