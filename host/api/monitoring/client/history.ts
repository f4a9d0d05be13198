// Uptime and status-history operations of MonitoringClient (tag "metrics").
import type { AgentHistoryEvent, AgentUptime, DeviceHistoryEvent, DeviceUptime, TimeWindowQuery } from '../schemas/history.js';
import type { ClientCore } from './core.js';

export const historyOperations = {
  getAgentListUptime(this: ClientCore, query?: TimeWindowQuery): Promise<AgentUptime[]> {
    return this.call('getAgentListUptime', 'GET', '/agent/uptime', { query: { ...query } });
  },
  getAgentUptime(this: ClientCore, agentId: number, query?: TimeWindowQuery): Promise<AgentUptime> {
    return this.call('getAgentUptime', 'GET', this.fillPath('/agent/{agent_id}/uptime', { agent_id: agentId }), { query: { ...query } });
  },
  getAgentStatusHistory(this: ClientCore, agentId: number, query?: TimeWindowQuery): Promise<AgentHistoryEvent[]> {
    const path = this.fillPath('/agent/{agent_id}/history/network/event', { agent_id: agentId });
    return this.call('getAgentStatusHistory', 'GET', path, { query: { ...query } });
  },
  getDeviceStatusHistory(this: ClientCore, agentId: number, deviceId: number, query?: TimeWindowQuery): Promise<DeviceHistoryEvent[]> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/history/network/event', { agent_id: agentId, device_id: deviceId });
    return this.call('getDeviceStatusHistory', 'GET', path, { query: { ...query } });
  },
  getDeviceUptime(this: ClientCore, agentId: number, deviceId: number, query?: TimeWindowQuery): Promise<DeviceUptime> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/uptime', { agent_id: agentId, device_id: deviceId });
    return this.call('getDeviceUptime', 'GET', path, { query: { ...query } });
  },
};
