// Power-outlet operations of MonitoringClient (1.14.0).
import type { DeviceOutlet, DeviceOutletUpdate, OutletActionValue } from '../schemas/outlets.js';
import type { ClientCore } from './core.js';

export type { DeviceOutlet, DeviceOutletUpdate, OutletActionValue };

const outlets = (core: ClientCore, agentId: number, deviceId: number, tail = '', extra: Record<string, string | number> = {}) =>
  core.fillPath(`/agent/{agent_id}/device/{device_id}/power-outlet${tail}`, { agent_id: agentId, device_id: deviceId, ...extra });

export const outletOperations = {
  getDeviceOutlets(this: ClientCore, agentId: number, deviceId: number): Promise<DeviceOutlet[]> {
    return this.call('getDeviceOutlets', 'GET', outlets(this, agentId, deviceId));
  },
  /** Sets the custom name; no body (or custom_name absent / null) removes it. */
  updateDeviceOutlet(this: ClientCore, agentId: number, deviceId: number, outletId: string, body?: DeviceOutletUpdate): Promise<void> {
    return this.call('updateDeviceOutlet', 'PUT', outlets(this, agentId, deviceId, '/{power_outlet_id}', { power_outlet_id: outletId }), body === undefined ? {} : { body });
  },
  /** Resolves once the action is accepted (202). */
  triggerOutletAction(this: ClientCore, agentId: number, deviceId: number, outletId: string, action: OutletActionValue): Promise<void> {
    const path = outlets(this, agentId, deviceId, '/{power_outlet_id}/action/{action}', { power_outlet_id: outletId, action });
    return this.call('triggerOutletAction', 'POST', path);
  },
  attachDeviceToOutlet(this: ClientCore, agentId: number, deviceId: number, outletId: string, attachedDeviceId: number): Promise<void> {
    const path = outlets(this, agentId, deviceId, '/{power_outlet_id}/attach/{attached_device_id}', { power_outlet_id: outletId, attached_device_id: attachedDeviceId });
    return this.call('attachDeviceToOutlet', 'POST', path);
  },
  detachDeviceFromOutlet(this: ClientCore, agentId: number, deviceId: number, outletId: string, attachedDeviceId: number): Promise<void> {
    const path = outlets(this, agentId, deviceId, '/{power_outlet_id}/attach/{attached_device_id}', { power_outlet_id: outletId, attached_device_id: attachedDeviceId });
    return this.call('detachDeviceFromOutlet', 'DELETE', path);
  },
};
