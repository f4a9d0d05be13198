// Devices operations of MonitoringClient (tag "device").
import type {
  Device,
  DeviceCredentialsRequest,
  EditableField,
  ExternalHost,
  SnmpAuthentication,
  SnmpCommunity,
} from '../schemas/devices.js';
import type { ClientCore } from './core.js';

const DEVICE = '/agent/{agent_id}/device/{device_id}';

export const deviceOperations = {
  listDevices(this: ClientCore, agentId: number, query?: { show_hidden?: boolean; show_excluded?: boolean }): Promise<Device[]> {
    return this.call('listDevices', 'GET', this.fillPath('/agent/{agent_id}/device', { agent_id: agentId }), { query: { ...query } });
  },
  /** Deletes every DOWN device of IP protocol of the agent. */
  deleteDownDevices(this: ClientCore, agentId: number): Promise<void> {
    return this.call('deleteDownDevices', 'DELETE', this.fillPath('/agent/{agent_id}/device', { agent_id: agentId }));
  },
  createExternalHost(this: ClientCore, agentId: number, body: ExternalHost): Promise<void> {
    return this.call('createExternalHost', 'POST', this.fillPath('/agent/{agent_id}/device/external-host', { agent_id: agentId }), { body });
  },
  getDevice(this: ClientCore, agentId: number, deviceId: number): Promise<Device> {
    return this.call('getDevice', 'GET', this.fillPath(DEVICE, { agent_id: agentId, device_id: deviceId }));
  },
  deleteDevice(this: ClientCore, agentId: number, deviceId: number): Promise<void> {
    return this.call('deleteDevice', 'DELETE', this.fillPath(DEVICE, { agent_id: agentId, device_id: deviceId }));
  },
  /**
   * Changes one field; the body is a JSON string (user_data/type: an integer, sent as a
   * string or a number), or null to remove a user_data / details entry.
   */
  editDevice(this: ClientCore, agentId: number, deviceId: number, field: EditableField, value: string | number | null): Promise<void> {
    const path = this.fillPath(`${DEVICE}/{field}`, { agent_id: agentId, device_id: deviceId, field });
    return this.call('editDevice', 'PUT', path, { body: typeof value === 'number' ? String(value) : value });
  },
  /** Hides a DOWN device (any other status answers 409). */
  hideDevice(this: ClientCore, agentId: number, deviceId: number): Promise<void> {
    return this.call('hideDevice', 'DELETE', this.fillPath(`${DEVICE}/visibility`, { agent_id: agentId, device_id: deviceId }));
  },
  setCredentials(this: ClientCore, agentId: number, deviceId: number, body: DeviceCredentialsRequest): Promise<void> {
    return this.call('setCredentials', 'PUT', this.fillPath(`${DEVICE}/credentials`, { agent_id: agentId, device_id: deviceId }), { body });
  },
  getSNMPAuthentication(this: ClientCore, agentId: number, deviceId: number): Promise<SnmpAuthentication> {
    return this.call('getSNMPAuthentication', 'GET', this.fillPath(`${DEVICE}/snmp-authentication`, { agent_id: agentId, device_id: deviceId }));
  },
  setSNMPAuthentication(this: ClientCore, agentId: number, deviceId: number, body: SnmpAuthentication): Promise<void> {
    return this.call('setSNMPAuthentication', 'PUT', this.fillPath(`${DEVICE}/snmp-authentication`, { agent_id: agentId, device_id: deviceId }), { body });
  },
  /** @deprecated use setSNMPAuthentication */
  setSnmpCommunity(this: ClientCore, agentId: number, deviceId: number, body: SnmpCommunity): Promise<void> {
    return this.call('setSnmpCommunity', 'PUT', this.fillPath(`${DEVICE}/snmp-community`, { agent_id: agentId, device_id: deviceId }), { body });
  },
};
