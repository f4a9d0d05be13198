// Monitoring-state and excluded-device operations of MonitoringClient (1.14.0).
import type { Device } from '../schemas/devices.js';
import type { DeviceMonitoringState, MinimalDevice, MonitoringStateValue } from '../schemas/device-monitoring.js';
import type { ClientCore } from './core.js';

export type { DeviceMonitoringState, MinimalDevice, MonitoringStateValue };

const excluded = (core: ClientCore, agentId: number, deviceId: number) =>
  core.fillPath('/agent/{agent_id}/network/excluded-device/{device_id}', { agent_id: agentId, device_id: deviceId });

export const deviceMonitoringOperations = {
  listUnmanagedDevices(this: ClientCore, agentId: number): Promise<MinimalDevice[]> {
    return this.call('listUnmanagedDevices', 'GET', this.fillPath('/agent/{agent_id}/device/monitoring-state/unmanaged', { agent_id: agentId }));
  },
  updateDeviceMonitoringState(this: ClientCore, agentId: number, deviceId: number, body: DeviceMonitoringState): Promise<void> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/monitoring-state', { agent_id: agentId, device_id: deviceId });
    return this.call('updateDeviceMonitoringState', 'PUT', path, { body });
  },
  listExcludedDevices(this: ClientCore, agentId: number): Promise<Device[]> {
    return this.call('listExcludedDevices', 'GET', this.fillPath('/agent/{agent_id}/network/excluded-device', { agent_id: agentId }));
  },
  addExcludedDevice(this: ClientCore, agentId: number, deviceId: number): Promise<void> {
    return this.call('addExcludedDevice', 'POST', excluded(this, agentId, deviceId));
  },
  deleteExcludedDevice(this: ClientCore, agentId: number, deviceId: number): Promise<void> {
    return this.call('deleteExcludedDevice', 'DELETE', excluded(this, agentId, deviceId));
  },
};
