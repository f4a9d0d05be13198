// networking and topology (reference 1.14.0): the agent's interfaces and routed networks, its
// scan policies and DHCP discovery switch (stored: GET answers what PUT gave, DELETE restores
// the default), IP conflicts (real, from the store's devices) and an emulated topology.
import { networkInterfaces } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { isPrivateIpv4, parseIpv4, PRIVATE_RANGES_TEXT } from '../../../store/fleet/ipv4.js';
import {
  addRoutedNetwork,
  getAgentInterfaces as recordedInterfaces,
  getNetworkSetting,
  interfaceScanned,
  listRoutedNetworks,
  localAgentId,
  resetNetworkSetting,
  setNetworkSetting,
  type AgentInterface,
  type ExternalHostScanPolicy,
  type NetworkSettingName,
} from '../../../store/fleet/networking.js';
import { listIpConflicts, networkTopology } from '../../../store/fleet/topology.js';
import { requireAgent } from '../access.js';
import { invalid } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import {
  allAgentInterfacesSchema,
  dhcpDeviceDiscoverySchema,
  externalHostScanPolicySchema,
  interfacesPolicySchema,
  ipConflictSchema,
  ipScanPolicySchema,
  networkTopologySchema,
  routedNetworkSchema,
  type AgentExternalHostScanPolicy,
  type AgentInterfacesPolicy,
  type AgentIPScanPolicy,
  type AgentIpConflict,
  type AgentRoutedNetwork,
  type AllAgentInterfaces,
  type DHCPDeviceDiscoverySetting,
  type NetworkTopology,
} from '../schemas/networking.js';

const TAGS = ['networking'];
const route = (schema: ApiRouteSchema) => ({ schema });
const noContent = { 204: { type: 'null' } } as const;
type AgentPath = { agent_id: number };

/** The machine's IPv4 interfaces (loopback left out): what the local agent monitors. */
function machineInterfaces(): AgentInterface[] {
  const out: AgentInterface[] = [];
  for (const [name, entries] of Object.entries(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family !== 'IPv4' || entry.internal) continue;
      const prefix = entry.cidr ? Number(entry.cidr.split('/')[1]) : undefined;
      out.push({
        name,
        address: entry.address,
        ...(prefix !== undefined && Number.isInteger(prefix) ? { netmask: prefix } : {}),
        ...(entry.mac && entry.mac !== '00:00:00:00:00:00' ? { macAddress: entry.mac } : {}),
      });
    }
  }
  return out;
}

/** A dotted-decimal private IPv4 address, or a 422 located at loc. */
function privateAddress(text: string, loc: Array<string | number>): number {
  const value = parseIpv4(text);
  if (value === null) throw invalid(loc, `"${text}" is not an IPv4 address in dotted decimal notation`, 'value_error.ipv4');
  if (!isPrivateIpv4(value)) throw invalid(loc, `${text} is not in a private network (${PRIVATE_RANGES_TEXT})`, 'value_error.ipv4.private');
  return value;
}

function checkIpScanPolicy(policy: AgentIPScanPolicy): AgentIPScanPolicy {
  policy.forced_ip_addresses.forEach((ip, i) => privateAddress(ip, ['body', 'forced_ip_addresses', i]));
  policy.forced_ip_ranges.forEach((range, i) => {
    const start = privateAddress(range.start, ['body', 'forced_ip_ranges', i, 'start']);
    const end = privateAddress(range.end, ['body', 'forced_ip_ranges', i, 'end']);
    if (start > end) throw invalid(['body', 'forced_ip_ranges', i], `start ${range.start} is after end ${range.end}`, 'value_error.ip_range');
  });
  return {
    forced_ip_addresses: [...new Set(policy.forced_ip_addresses)],
    forced_ip_ranges: policy.forced_ip_ranges.map((r) => ({ start: r.start, end: r.end })),
  };
}

/** The policy to store: a method left out is disabled, ports deduplicated and sorted. */
function checkExternalHostScanPolicy(body: AgentExternalHostScanPolicy): ExternalHostScanPolicy {
  const tcp = (name: 'tcp_syn' | 'tcp_ack') => {
    const method = body[name];
    if (!method) return { enabled: false, ports: [] };
    if (method.enabled && method.ports.length === 0) throw invalid(['body', name, 'ports'], 'must list at least one TCP port when the method is enabled');
    return { enabled: method.enabled, ports: [...new Set(method.ports)].sort((a, b) => a - b) };
  };
  return { icmp: { enabled: body.icmp?.enabled ?? false }, tcp_syn: tcp('tcp_syn'), tcp_ack: tcp('tcp_ack') };
}

export function registerNetworkingRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  app.get<{ Params: AgentPath }>(
    '/agent/:agent_id/network/interfaces',
    route({
      operationId: 'getAgentInterfaces',
      tags: TAGS,
      summary: "The networks the agent monitors: its interfaces the interfaces policy lets it scan, and its routed networks",
      description:
        'attached: the interfaces recorded for the agent in the store; for the local agent (the driverbox process) without recorded ones, this machine\'s IPv4 interfaces. routed: the networks added with createRoutedNetwork.',
      params: idParams('agent_id'),
      response: { 200: allAgentInterfacesSchema },
    }),
    async (request): Promise<AllAgentInterfaces> => {
      const agent = await requireAgent(store, request.params.agent_id);
      const interfaces = await recordedInterfaces(store, agent.id) ?? (await localAgentId(store) === agent.id ? machineInterfaces() : []);
      const policy = await getNetworkSetting(store, agent.id, 'interfaces_policy');
      return {
        attached: interfaces
          .filter((i) => interfaceScanned(policy, i.name))
          .map((i) => ({
            name: i.name,
            ...(i.address !== undefined ? { address: i.address } : {}),
            ...(i.netmask !== undefined ? { netmask: i.netmask } : {}),
            ...(i.macAddress !== undefined ? { mac_address: i.macAddress } : {}),
          })),
        routed: await listRoutedNetworks(store, agent.id),
      };
    },
  );

  app.post<{ Params: AgentPath; Body: AgentRoutedNetwork }>(
    '/agent/:agent_id/network/routed',
    route({
      operationId: 'createRoutedNetwork',
      tags: TAGS,
      summary: 'Adds a routed network for the agent to monitor (409 when it has one of that name or that address and prefix)',
      params: idParams('agent_id'),
      body: routedNetworkSchema,
      response: { 201: { type: 'null' } },
    }),
    async (request, reply) => {
      const agent = await requireAgent(store, request.params.agent_id);
      const { address, name, netmask } = request.body;
      if (parseIpv4(address) === null) throw invalid(['body', 'address'], `"${address}" is not an IPv4 address in dotted decimal notation`, 'value_error.ipv4');
      await addRoutedNetwork(store, agent.id, { name, address, netmask });
      return reply.code(201).send();
    },
  );

  app.put<{ Params: AgentPath; Body: DHCPDeviceDiscoverySetting }>(
    '/agent/:agent_id/network/dhcp-device-discovery',
    route({
      operationId: 'setDHCPDeviceDiscovery',
      tags: TAGS,
      summary: 'Switches on or off making devices of hosts whose DHCP requests fail (stored)',
      params: idParams('agent_id'),
      body: dhcpDeviceDiscoverySchema,
      response: noContent,
    }),
    async (request, reply) => {
      const agent = await requireAgent(store, request.params.agent_id);
      await setNetworkSetting(store, agent.id, 'dhcp_device_discovery', request.body.dhcp_device_discovery);
      return reply.code(204).send();
    },
  );

  // The three stored policies: GET answers the stored one or the default, PUT checks and stores, DELETE resets.
  const policy = <K extends Exclude<NetworkSettingName, 'dhcp_device_discovery'>, B>(options: {
    path: string;
    name: K;
    ids: [string, string, string];
    what: string;
    schema: Record<string, unknown>;
    check: (body: B) => Awaited<ReturnType<typeof getNetworkSetting<K>>>;
  }) => {
    const [getId, setId, deleteId] = options.ids;
    app.get<{ Params: AgentPath }>(
      options.path,
      route({ operationId: getId, tags: TAGS, summary: `The agent's ${options.what}`, params: idParams('agent_id'), response: { 200: options.schema } }),
      async (request) => getNetworkSetting(store, (await requireAgent(store, request.params.agent_id)).id, options.name),
    );
    app.put<{ Params: AgentPath; Body: B }>(
      options.path,
      route({ operationId: setId, tags: TAGS, summary: `Replaces the agent's ${options.what}`, params: idParams('agent_id'), body: options.schema, response: noContent }),
      async (request, reply) => {
        const agent = await requireAgent(store, request.params.agent_id);
        await setNetworkSetting(store, agent.id, options.name, options.check(request.body as B));
        return reply.code(204).send();
      },
    );
    app.delete<{ Params: AgentPath }>(
      options.path,
      route({ operationId: deleteId, tags: TAGS, summary: `Restores the default ${options.what}`, params: idParams('agent_id'), response: noContent }),
      async (request, reply) => {
        await resetNetworkSetting(store, (await requireAgent(store, request.params.agent_id)).id, options.name);
        return reply.code(204).send();
      },
    );
  };

  policy<'interfaces_policy', AgentInterfacesPolicy>({
    path: '/agent/:agent_id/network/interfaces-policy',
    name: 'interfaces_policy',
    ids: ['getAgentInterfacesPolicy', 'setAgentInterfacesPolicy', 'deleteAgentInterfacesPolicy'],
    what: 'interfaces policy (default: deny with no rules, every interface scanned)',
    schema: interfacesPolicySchema,
    check: (body) => ({ policy: body.policy, rules: [...body.rules] }),
  });
  policy<'ip_scan_policy', AgentIPScanPolicy>({
    path: '/agent/:agent_id/network/ip-scan-policy',
    name: 'ip_scan_policy',
    ids: ['getAgentIPScanPolicy', 'setAgentIPScanPolicy', 'deleteAgentIPScanPolicy'],
    what: 'IP scan policy: private addresses and ranges always scanned (default: none)',
    schema: ipScanPolicySchema,
    check: checkIpScanPolicy,
  });
  policy<'external_host_scan_policy', AgentExternalHostScanPolicy>({
    path: '/agent/:agent_id/network/external-host-scan-policy',
    name: 'external_host_scan_policy',
    ids: ['getAgentExternalHostScanPolicy', 'setAgentExternalHostScanPolicy', 'deleteAgentExternalHostScanPolicy'],
    what: 'external host scan policy (a method left out of a PUT is disabled; default: ICMP only)',
    schema: externalHostScanPolicySchema,
    check: checkExternalHostScanPolicy,
  });

  app.get<{ Params: AgentPath }>(
    '/agent/:agent_id/ip-conflict',
    route({
      operationId: 'getAgentIPConflicts',
      tags: TAGS,
      summary: "Addresses more than one of the agent's devices has (hidden devices included)",
      params: idParams('agent_id'),
      response: { 200: { type: 'array', items: ipConflictSchema } },
    }),
    async (request): Promise<AgentIpConflict[]> => {
      const agent = await requireAgent(store, request.params.agent_id);
      return (await listIpConflicts(store, agent.id)).map((c) => ({
        ip: c.ip,
        conflicting_devices: c.devices.map((d) => ({ id: d.id, ...(d.mac !== null ? { mac: d.mac } : {}) })),
      }));
    },
  );

  app.get<{ Params: AgentPath }>(
    '/agent/:agent_id/network-topology',
    route({
      operationId: 'getNetworkTopology',
      tags: ['topology'],
      summary: "The agent's network topology (emulated from its devices' addresses and types)",
      description: 'In each /24 of the visible devices, edges from the hub (a gateway, router, firewall, switch or access point, else the device at .1) to every other device.',
      params: idParams('agent_id'),
      response: { 200: networkTopologySchema },
    }),
    async (request): Promise<NetworkTopology> => ({ edges: await networkTopology(store, (await requireAgent(store, request.params.agent_id)).id) }),
  );
}
