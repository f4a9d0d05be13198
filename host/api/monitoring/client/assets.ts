// assets, multimedia and usage operations of MonitoringClient: device types, camera
// snapshots, API usage and sensor usage.
import type { DetectedDeviceType, DeviceBaseType } from '../schemas/assets.js';
import type { APIUsageInformation, DomotzMetricUsageInformation } from '../schemas/usage.js';
import type { ClientCore } from './core.js';

export type { APIUsageInformation, DetectedDeviceType, DeviceBaseType, DomotzMetricUsageInformation };

export interface CameraSnapshotImage {
  /** image/jpeg, image/png… as the server said. */
  contentType: string;
  data: Buffer;
}

export const assetOperations = {
  listDeviceBaseTypes(this: ClientCore): Promise<DeviceBaseType[]> {
    return this.call('listDeviceBaseTypes', 'GET', '/type/device/base');
  },
  listDeviceDetectedTypes(this: ClientCore): Promise<DetectedDeviceType[]> {
    return this.call('listDeviceDetectedTypes', 'GET', '/type/device/detected');
  },
  onvifSnapshot(this: ClientCore, agentId: number, deviceId: number): Promise<CameraSnapshotImage> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/multimedia/camera/snapshot', { agent_id: agentId, device_id: deviceId });
    return this.binary('onvifSnapshot', path, 'image/*');
  },
  apiUsageInfo(this: ClientCore): Promise<APIUsageInformation> {
    return this.call('apiUsageInfo', 'GET', '/meta/usage');
  },
  MetricUsageInfo(this: ClientCore, agentId: number): Promise<DomotzMetricUsageInformation> {
    return this.call('MetricUsageInfo', 'GET', this.fillPath('/agent/{agent_id}/metric-statistics', { agent_id: agentId }));
  },
};
