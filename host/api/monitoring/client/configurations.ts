// Configuration Management operations of MonitoringClient.
import type { DeviceConfiguration, DeviceConfigurationCreate, DeviceConfigurationMetadata } from '../schemas/configurations.js';
import type { ClientCore } from './core.js';

export type { DeviceConfiguration, DeviceConfigurationCreate, DeviceConfigurationMetadata };

const path = (core: ClientCore, tail: string, agentId: number, deviceId: number, extra: Record<string, string> = {}) =>
  core.fillPath(`/agent/{agent_id}/device/{device_id}/configuration-management/${tail}`, { agent_id: agentId, device_id: deviceId, ...extra });

export const configurationOperations = {
  /** Runs the device's backup(); resolves once the run is recorded (202). */
  backupDeviceConfiguration(this: ClientCore, agentId: number, deviceId: number): Promise<void> {
    return this.call('backupDeviceConfiguration', 'POST', path(this, 'backup', agentId, deviceId));
  },
  deviceConfigurationHistoryList(this: ClientCore, agentId: number, deviceId: number): Promise<DeviceConfigurationMetadata[]> {
    return this.call('deviceConfigurationHistoryList', 'GET', path(this, 'history', agentId, deviceId));
  },
  /** `running` / `startup` are base64 (see toBase64Configuration). */
  createDeviceConfiguration(this: ClientCore, agentId: number, deviceId: number, body: DeviceConfigurationCreate): Promise<void> {
    return this.call('createDeviceConfiguration', 'POST', path(this, 'history', agentId, deviceId), { body });
  },
  /** `timestamp`: "latest" or a history entry's timestamp (yyyy-mm-ddThh:mm:ss+00:00). */
  getDeviceConfiguration(this: ClientCore, agentId: number, deviceId: number, timestamp: string): Promise<DeviceConfiguration> {
    return this.call('getDeviceConfiguration', 'GET', path(this, 'history/{configuration_timestamp}', agentId, deviceId, { configuration_timestamp: timestamp }));
  },
};
