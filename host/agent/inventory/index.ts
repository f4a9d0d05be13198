// The agent's inventory file: devices, drivers and associations to schedule (see docs/reference/agent/inventory.md).
export { loadInventory, parseInventory, type ParseInventoryOptions } from './load.js';
export { InventoryError } from '../../contract/errors.js';
export { formatOfFile, type InventoryFormat } from './parse-text.js';
export { syncInventory, type ChangeSet, type InventorySyncResult, type NamedId, type ScheduledAssociation } from './sync.js';
export {
  DEFAULT_ACTIONS,
  DEFAULT_SAMPLE_PERIOD,
  INVENTORY_VERSION,
  associationKey,
  type Inventory,
  type InventoryAssociation,
  type InventoryDevice,
  type InventoryDriver,
  type InventoryParameter,
} from './types.js';
