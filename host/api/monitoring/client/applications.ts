// Application operations of MonitoringClient (Enterprise Plan agents only).
import type { AgentDeviceApplication, ApplicationQuery, DeviceApplication } from '../schemas/applications.js';
import type { ClientCore } from './core.js';

export type { AgentDeviceApplication, ApplicationQuery, DeviceApplication };

type Filter = Pick<ApplicationQuery, 'name' | 'device_ids'>;

export const applicationOperations = {
  listAgentDeviceApplications(this: ClientCore, agentId: number, query: ApplicationQuery = {}): Promise<AgentDeviceApplication[]> {
    return this.call('listAgentDeviceApplications', 'GET', this.fillPath('/agent/{agent_id}/device/application', { agent_id: agentId }), { query: { ...query } });
  },
  countAgentDeviceApplications(this: ClientCore, agentId: number, query: Filter = {}): Promise<number> {
    return this.count('countAgentDeviceApplications', this.fillPath('/agent/{agent_id}/device/application', { agent_id: agentId }), { ...query });
  },
  listDeviceApplications(this: ClientCore, agentId: number, deviceId: number, query: ApplicationQuery = {}): Promise<DeviceApplication[]> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/application', { agent_id: agentId, device_id: deviceId });
    return this.call('listDeviceApplications', 'GET', path, { query: { ...query } });
  },
  countDeviceApplications(this: ClientCore, agentId: number, deviceId: number, query: Filter = {}): Promise<number> {
    return this.count('countDeviceApplications', this.fillPath('/agent/{agent_id}/device/{device_id}/application', { agent_id: agentId, device_id: deviceId }), {
      ...query,
    });
  },
};
