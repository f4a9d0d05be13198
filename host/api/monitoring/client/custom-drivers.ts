// "Custom Drivers" operations of MonitoringClient. createCustomDriver, updateCustomDriver and
// deleteCustomDriver exist only on a driverbox server (the cloud API has no such operations).
import type { ClientCore } from './core.js';
import type {
  CustomDriver,
  CustomDriverAssociation,
  CustomDriverAssociationCreation,
  CustomDriverAssociationCreationResult,
  CustomDriverAssociationParameterCreation,
  CustomDriverCreation,
  CustomDriverDetails,
  CustomDriverExecutionResult,
  CustomDriverUpdate,
} from '../schemas/custom-drivers.js';

export const customDriverOperations = {
  listCustomDrivers(this: ClientCore): Promise<CustomDriver[]> {
    return this.call('listCustomDrivers', 'GET', '/custom-driver');
  },

  getCustomDriver(this: ClientCore, customDriverId: number): Promise<CustomDriverDetails> {
    return this.call('getCustomDriver', 'GET', this.fillPath('/custom-driver/{custom_driver_id}', { custom_driver_id: customDriverId }));
  },

  /** driverbox extension: adds a driver to the library. */
  createCustomDriver(this: ClientCore, body: CustomDriverCreation): Promise<CustomDriverDetails> {
    return this.call('createCustomDriver', 'POST', '/custom-driver', { body });
  },

  /** driverbox extension: new code makes a new version; fields left out keep their value. */
  updateCustomDriver(this: ClientCore, customDriverId: number, body: CustomDriverUpdate): Promise<CustomDriverDetails> {
    return this.call('updateCustomDriver', 'PUT', this.fillPath('/custom-driver/{custom_driver_id}', { custom_driver_id: customDriverId }), { body });
  },

  /** driverbox extension: refused (409) while the driver is applied to a device. */
  async deleteCustomDriver(this: ClientCore, customDriverId: number): Promise<void> {
    await this.call('deleteCustomDriver', 'DELETE', this.fillPath('/custom-driver/{custom_driver_id}', { custom_driver_id: customDriverId }));
  },

  listCustomDriverAssociations(this: ClientCore, agentId: number): Promise<CustomDriverAssociation[]> {
    return this.call('listCustomDriverAssociations', 'GET', this.fillPath('/custom-driver/agent/{agent_id}/association', { agent_id: agentId }));
  },

  createCustomDriverAssociation(
    this: ClientCore,
    customDriverId: number,
    agentId: number,
    deviceId: number,
    body: CustomDriverAssociationCreation = {},
  ): Promise<CustomDriverAssociationCreationResult> {
    const path = this.fillPath('/custom-driver/{custom_driver_id}/agent/{agent_id}/device/{device_id}/association', {
      custom_driver_id: customDriverId,
      agent_id: agentId,
      device_id: deviceId,
    });
    return this.call('createCustomDriverAssociation', 'POST', path, { body });
  },

  /** actionId N runs custom_N (1–30); 0 runs get_status on a driverbox server. */
  executeCustomDriverAction(this: ClientCore, customDriverId: number, agentId: number, deviceId: number, actionId: number): Promise<CustomDriverExecutionResult> {
    const path = this.fillPath('/custom-driver/{custom_driver_id}/agent/{agent_id}/device/{device_id}/execute/{action_id}', {
      custom_driver_id: customDriverId,
      agent_id: agentId,
      device_id: deviceId,
      action_id: actionId,
    });
    return this.call('executeCustomDriverAction', 'POST', path);
  },

  async deleteCustomDriverAssociation(this: ClientCore, customDriverId: number, associationId: number): Promise<void> {
    const path = this.fillPath('/custom-driver/{custom_driver_id}/association/{association_id}', { custom_driver_id: customDriverId, association_id: associationId });
    await this.call('deleteCustomDriverAssociation', 'DELETE', path);
  },

  async updateCustomDriverAssociationParameters(
    this: ClientCore,
    customDriverId: number,
    associationId: number,
    body: CustomDriverAssociationParameterCreation,
  ): Promise<void> {
    const path = this.fillPath('/custom-driver/{custom_driver_id}/association/{association_id}', { custom_driver_id: customDriverId, association_id: associationId });
    await this.call('updateCustomDriverAssociationParameters', 'PUT', path, { body });
  },
};
