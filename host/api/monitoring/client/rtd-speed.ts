// Round-trip delay and speed-test operations of MonitoringClient.
import type { DeviceRTDHistorySample, DeviceRTDStatistics, NetworkSpeedSample } from '../schemas/rtd-speed.js';
import type { ClientCore } from './core.js';

export type { DeviceRTDHistorySample, DeviceRTDStatistics, NetworkSpeedSample };

/** from / to: yyyy-mm-ddThh:mm:ss in UTC; defaults one week back to now. */
type Window = { from?: string; to?: string };

export const rtdSpeedOperations = {
  getAgentRTDStats(this: ClientCore, agentId: number): Promise<DeviceRTDStatistics[]> {
    return this.call('getAgentRTDStats', 'GET', this.fillPath('/agent/{agent_id}/device/rtd', { agent_id: agentId }));
  },
  getDeviceRTDHistory(this: ClientCore, agentId: number, deviceId: number, query: Window = {}): Promise<DeviceRTDHistorySample[]> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/history/rtd', { agent_id: agentId, device_id: deviceId });
    return this.call('getDeviceRTDHistory', 'GET', path, { query: { ...query } });
  },
  getSpeedTestHistory(this: ClientCore, agentId: number, query: Window = {}): Promise<NetworkSpeedSample[]> {
    return this.call('getSpeedTestHistory', 'GET', this.fillPath('/agent/{agent_id}/history/network/speed', { agent_id: agentId }), { query: { ...query } });
  },
};
