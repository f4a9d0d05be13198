// Alert-profile operations of MonitoringClient.
import type { AlertProfile, AlertProfileAgentBinding, AlertProfileDeviceBinding } from '../schemas/alert-profiles.js';
import type { ClientCore } from './core.js';

export type { AlertProfile, AlertProfileAgentBinding, AlertProfileDeviceBinding };

const agentBinding = (core: ClientCore, profileId: number, agentId: number) =>
  core.fillPath('/alert-profile/{alert_profile_id}/binding/agent/{agent_id}', { alert_profile_id: profileId, agent_id: agentId });
const deviceBinding = (core: ClientCore, profileId: number, agentId: number, deviceId: number) =>
  core.fillPath('/alert-profile/{alert_profile_id}/binding/agent/{agent_id}/device/{device_id}', { alert_profile_id: profileId, agent_id: agentId, device_id: deviceId });

export const alertProfileOperations = {
  getAlertProfiles2(this: ClientCore): Promise<AlertProfile[]> {
    return this.call('getAlertProfiles2', 'GET', '/alert-profile');
  },
  /** @deprecated the reference's older form of getAlertProfiles2, for the key's user (getUser().id). */
  getAlertProfiles(this: ClientCore, userId: number): Promise<AlertProfile[]> {
    return this.call('getAlertProfiles', 'GET', this.fillPath('/user/{user_id}/alert-profile', { user_id: userId }));
  },
  getAgentAlertProfile(this: ClientCore, agentId: number): Promise<AlertProfileAgentBinding[]> {
    return this.call('getAgentAlertProfile', 'GET', this.fillPath('/alert-profile/binding/agent/{agent_id}', { agent_id: agentId }));
  },
  getDevicesAlertProfile(this: ClientCore, agentId: number): Promise<AlertProfileDeviceBinding[]> {
    return this.call('getDevicesAlertProfile', 'GET', this.fillPath('/alert-profile/binding/agent/{agent_id}/device', { agent_id: agentId }));
  },
  bindAlertProfileToAgent(this: ClientCore, profileId: number, agentId: number): Promise<void> {
    return this.call('bindAlertProfileToAgent', 'POST', agentBinding(this, profileId, agentId));
  },
  unbindAlertProfileFromAgent(this: ClientCore, profileId: number, agentId: number): Promise<void> {
    return this.call('unbindAlertProfileFromAgent', 'DELETE', agentBinding(this, profileId, agentId));
  },
  bindAlertProfileToDevice(this: ClientCore, profileId: number, agentId: number, deviceId: number): Promise<void> {
    return this.call('bindAlertProfileToDevice', 'POST', deviceBinding(this, profileId, agentId, deviceId));
  },
  unbindAlertProfileFromDevice(this: ClientCore, profileId: number, agentId: number, deviceId: number): Promise<void> {
    return this.call('unbindAlertProfileFromDevice', 'DELETE', deviceBinding(this, profileId, agentId, deviceId));
  },
};
