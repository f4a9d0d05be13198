// MonitoringClient: a typed client of the Monitoring Public API v1, for the real cloud base
// URL or a local `driverbox serve`. Method names are the reference's operation ids; each
// operation group is a module of methods mixed into the class.
import { activityLogOperations } from './activity-log.js';
import { alertProfileOperations } from './alert-profiles.js';
import { agentOperations } from './agents.js';
import { applicationOperations } from './applications.js';
import { associationReEnableOperations } from './association-re-enable.js';
import { companyOperations } from './company.js';
import { assetOperations } from './assets.js';
import { configurationOperations } from './configurations.js';
import { deviceMonitoringOperations } from './device-monitoring.js';
import { deviceProfileOperations } from './device-profiles.js';
import { outletOperations } from './outlets.js';
import { connectionOperations } from './connections.js';
import { ClientCore, type MonitoringClientOptions } from './core.js';
import { customDriverOperations } from './custom-drivers.js';
import { deviceOperations } from './devices.js';
import { historyOperations } from './history.js';
import { inventoryOperations } from './inventory.js';
import { networkingOperations } from './networking.js';
import { powerOperations } from './power.js';
import { rtdSpeedOperations } from './rtd-speed.js';
import { sensorOperations } from './sensors.js';
import { variableOperations } from './variables.js';

const operations = {
  ...agentOperations,
  ...deviceOperations,
  ...historyOperations,
  ...rtdSpeedOperations,
  ...variableOperations,
  ...activityLogOperations,
  ...customDriverOperations,
  ...sensorOperations,
  ...applicationOperations,
  ...connectionOperations,
  ...powerOperations,
  ...configurationOperations,
  ...deviceMonitoringOperations,
  ...outletOperations,
  ...deviceProfileOperations,
  ...associationReEnableOperations,
  ...inventoryOperations,
  ...companyOperations,
  ...alertProfileOperations,
  ...networkingOperations,
  ...assetOperations,
  getOpenApiDefinition(this: ClientCore): Promise<Record<string, unknown>> {
    return this.call('getOpenApiDefinition', 'GET', '/meta/open-api-definition');
  },
};

type Operations = typeof operations;

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface MonitoringClient extends Operations {}

export class MonitoringClient extends ClientCore {
  constructor(options: MonitoringClientOptions) {
    super(options);
  }
}

Object.assign(MonitoringClient.prototype, operations);

/** The operation ids the client implements (checked against the server's in the tests). */
export const clientOperationIds: readonly string[] = Object.keys(operations);
