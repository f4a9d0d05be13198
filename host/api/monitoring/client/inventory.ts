// Inventory operations of MonitoringClient.
import type { DeviceInventoryField, InventoryField, WriteInventoryField } from '../schemas/inventory.js';
import type { ClientCore } from './core.js';

export type { DeviceInventoryField, InventoryField, WriteInventoryField };

const fieldPath = (core: ClientCore, key: string) => core.fillPath('/inventory/{inventory_field}', { inventory_field: key });
const devicePath = (core: ClientCore, agentId: number, deviceId: number, key?: string) =>
  core.fillPath(`/agent/{agent_id}/device/{device_id}/inventory${key === undefined ? '' : '/{inventory_field}'}`, {
    agent_id: agentId,
    device_id: deviceId,
    ...(key === undefined ? {} : { inventory_field: key }),
  });

export const inventoryOperations = {
  getInventory(this: ClientCore): Promise<InventoryField[]> {
    return this.call('getInventory', 'GET', '/inventory');
  },
  deleteInventory(this: ClientCore): Promise<void> {
    return this.call('deleteInventory', 'DELETE', '/inventory');
  },
  createInventoryField(this: ClientCore, key: string, body: WriteInventoryField): Promise<void> {
    return this.call('createInventoryField', 'POST', fieldPath(this, key), { body });
  },
  updateInventoryField(this: ClientCore, key: string, body: WriteInventoryField): Promise<void> {
    return this.call('updateInventoryField', 'PUT', fieldPath(this, key), { body });
  },
  deleteInventoryField(this: ClientCore, key: string): Promise<void> {
    return this.call('deleteInventoryField', 'DELETE', fieldPath(this, key));
  },
  getDeviceInventory(this: ClientCore, agentId: number, deviceId: number): Promise<DeviceInventoryField[]> {
    return this.call('getDeviceInventory', 'GET', devicePath(this, agentId, deviceId));
  },
  /** The value is sent as a JSON string. */
  setDeviceInventoryFieldValue(this: ClientCore, agentId: number, deviceId: number, key: string, value: string): Promise<void> {
    return this.call('setDeviceInventoryFieldValue', 'PUT', devicePath(this, agentId, deviceId, key), { body: value });
  },
  deleteDeviceInventoryField(this: ClientCore, agentId: number, deviceId: number, key: string): Promise<void> {
    return this.call('deleteDeviceInventoryField', 'DELETE', devicePath(this, agentId, deviceId, key));
  },
};
