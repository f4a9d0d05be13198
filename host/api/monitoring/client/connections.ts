// Connection operations of MonitoringClient: consumption, VPN sessions, direct device connections.
import type {
  AgentVPNActiveConnection,
  AgentVPNConnection,
  ConnectionConsumption,
  ConnectionSession,
  DeviceConnection,
} from '../schemas/connections.js';
import type { ClientCore } from './core.js';

export type { AgentVPNActiveConnection, AgentVPNConnection, ConnectionConsumption, ConnectionSession, DeviceConnection };

export const connectionOperations = {
  getConnectionConsumption(this: ClientCore, agentId: number): Promise<ConnectionConsumption> {
    return this.call('getConnectionConsumption', 'GET', this.fillPath('/agent/{agent_id}/connection/consumption', { agent_id: agentId }));
  },
  getAgentVPNActiveConnections(this: ClientCore, agentId: number): Promise<AgentVPNActiveConnection[]> {
    return this.call('getAgentVPNActiveConnections', 'GET', this.fillPath('/agent/{agent_id}/connection/vpn-session', { agent_id: agentId }));
  },
  /** Answers the VPN configuration file text. */
  createAgentVPNConnection(this: ClientCore, agentId: number, body: AgentVPNConnection): Promise<string> {
    return this.call('createAgentVPNConnection', 'POST', this.fillPath('/agent/{agent_id}/connection/vpn-session', { agent_id: agentId }), {
      body,
      accept: 'text/plain',
    });
  },
  deleteAgentVPNConnection(this: ClientCore, agentId: number, vpnSessionId: number): Promise<void> {
    const path = this.fillPath('/agent/{agent_id}/connection/vpn-session/{vpn_session_id}', { agent_id: agentId, vpn_session_id: vpnSessionId });
    return this.call('deleteAgentVPNConnection', 'DELETE', path);
  },
  connectToDevice(this: ClientCore, agentId: number, deviceId: number, body: DeviceConnection): Promise<ConnectionSession> {
    return this.call('connectToDevice', 'POST', this.fillPath('/agent/{agent_id}/device/{device_id}/connection', { agent_id: agentId, device_id: deviceId }), { body });
  },
};
