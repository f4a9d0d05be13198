// networking and topology operations of MonitoringClient.
import type {
  AgentExternalHostScanPolicy,
  AgentInterfacesPolicy,
  AgentIPScanPolicy,
  AgentIpConflict,
  AgentRoutedNetwork,
  AllAgentInterfaces,
  DHCPDeviceDiscoverySetting,
  NetworkTopology,
} from '../schemas/networking.js';
import type { ClientCore } from './core.js';

const at = (core: ClientCore, agentId: number, rest: string) => core.fillPath(`/agent/{agent_id}${rest}`, { agent_id: agentId });

export const networkingOperations = {
  getAgentInterfaces(this: ClientCore, agentId: number): Promise<AllAgentInterfaces> {
    return this.call('getAgentInterfaces', 'GET', at(this, agentId, '/network/interfaces'));
  },
  createRoutedNetwork(this: ClientCore, agentId: number, body: AgentRoutedNetwork): Promise<void> {
    return this.call('createRoutedNetwork', 'POST', at(this, agentId, '/network/routed'), { body });
  },
  setDHCPDeviceDiscovery(this: ClientCore, agentId: number, body: DHCPDeviceDiscoverySetting): Promise<void> {
    return this.call('setDHCPDeviceDiscovery', 'PUT', at(this, agentId, '/network/dhcp-device-discovery'), { body });
  },
  getAgentInterfacesPolicy(this: ClientCore, agentId: number): Promise<AgentInterfacesPolicy> {
    return this.call('getAgentInterfacesPolicy', 'GET', at(this, agentId, '/network/interfaces-policy'));
  },
  setAgentInterfacesPolicy(this: ClientCore, agentId: number, body: AgentInterfacesPolicy): Promise<void> {
    return this.call('setAgentInterfacesPolicy', 'PUT', at(this, agentId, '/network/interfaces-policy'), { body });
  },
  deleteAgentInterfacesPolicy(this: ClientCore, agentId: number): Promise<void> {
    return this.call('deleteAgentInterfacesPolicy', 'DELETE', at(this, agentId, '/network/interfaces-policy'));
  },
  getAgentIPScanPolicy(this: ClientCore, agentId: number): Promise<AgentIPScanPolicy> {
    return this.call('getAgentIPScanPolicy', 'GET', at(this, agentId, '/network/ip-scan-policy'));
  },
  setAgentIPScanPolicy(this: ClientCore, agentId: number, body: AgentIPScanPolicy): Promise<void> {
    return this.call('setAgentIPScanPolicy', 'PUT', at(this, agentId, '/network/ip-scan-policy'), { body });
  },
  deleteAgentIPScanPolicy(this: ClientCore, agentId: number): Promise<void> {
    return this.call('deleteAgentIPScanPolicy', 'DELETE', at(this, agentId, '/network/ip-scan-policy'));
  },
  /** GET answers all three methods; a method left out of a PUT is disabled. */
  getAgentExternalHostScanPolicy(this: ClientCore, agentId: number): Promise<Required<AgentExternalHostScanPolicy>> {
    return this.call('getAgentExternalHostScanPolicy', 'GET', at(this, agentId, '/network/external-host-scan-policy'));
  },
  setAgentExternalHostScanPolicy(this: ClientCore, agentId: number, body: AgentExternalHostScanPolicy): Promise<void> {
    return this.call('setAgentExternalHostScanPolicy', 'PUT', at(this, agentId, '/network/external-host-scan-policy'), { body });
  },
  deleteAgentExternalHostScanPolicy(this: ClientCore, agentId: number): Promise<void> {
    return this.call('deleteAgentExternalHostScanPolicy', 'DELETE', at(this, agentId, '/network/external-host-scan-policy'));
  },
  getAgentIPConflicts(this: ClientCore, agentId: number): Promise<AgentIpConflict[]> {
    return this.call('getAgentIPConflicts', 'GET', at(this, agentId, '/ip-conflict'));
  },
  getNetworkTopology(this: ClientCore, agentId: number): Promise<NetworkTopology> {
    return this.call('getNetworkTopology', 'GET', at(this, agentId, '/network-topology'));
  },
};
