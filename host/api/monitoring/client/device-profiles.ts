// Device-profile operations of MonitoringClient (1.14.0).
import type { DeviceProfile, DeviceProfileApplyRequest, DeviceProfileModule } from '../schemas/device-profiles.js';
import type { ClientCore } from './core.js';

export type { DeviceProfile, DeviceProfileApplyRequest, DeviceProfileModule };

export const deviceProfileOperations = {
  listDeviceProfiles(this: ClientCore): Promise<DeviceProfile[]> {
    return this.call('listDeviceProfiles', 'GET', '/device-profile');
  },
  applyDeviceProfile(this: ClientCore, deviceProfileId: number, body: DeviceProfileApplyRequest): Promise<void> {
    return this.call('applyDeviceProfile', 'POST', this.fillPath('/device-profile/{device_profile_id}/apply', { device_profile_id: deviceProfileId }), { body });
  },
};
