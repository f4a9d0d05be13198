// Power operations of MonitoringClient.
import type { DevicePowerAction, PowerActionField } from '../schemas/power.js';
import type { ClientCore } from './core.js';

export type { DevicePowerAction, PowerActionField };

export const powerOperations = {
  getDevicePowerActions(this: ClientCore, agentId: number, deviceId: number): Promise<DevicePowerAction> {
    return this.call('getDevicePowerActions', 'GET', this.fillPath('/agent/{agent_id}/device/{device_id}/action/power', { agent_id: agentId, device_id: deviceId }));
  },
  powerActionOnDevice(this: ClientCore, agentId: number, deviceId: number, field: PowerActionField): Promise<void> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/action/power/{field}', { agent_id: agentId, device_id: deviceId, field });
    return this.call('powerActionOnDevice', 'POST', path);
  },
};
