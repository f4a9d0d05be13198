// The embedded store's public surface.
export { DEFAULT_STORE_BOUNDS, openStore, Store, type StoreBounds, type StoreOptions } from './store.js';
export { StoreError, type StoreErrorCode } from '../contract/errors.js';
export { defaultDataDir, defaultStorePath, resolveStorePath } from './data-dir.js';
export { SCHEMA_VERSION } from './migrations.js';
// What an embedding program feeds the store with (what a real agent would discover or measure).
export { createAgentRecord, ensureLocalAgent, getAgent, type AgentRow, type NewAgent } from './agents.js';
export { createDevice, getDevice, findDeviceByAddress, type DeviceRow, type NewDevice } from './devices.js';
export { setAgentStatus, setDeviceStatus } from './status-history.js';
export { setDeviceCredentials, getDeviceCredentials, type DeviceCredentials } from './credentials.js';
export { createCustomDriver } from './custom-drivers.js';
export { setAgentVariable } from './variables.js';
export { setHistoryRetention, pruneVariableHistory } from './variable-history.js';
export { writeRunResult, type ReportTarget, type ReportedRun, type WriteRunOptions } from './report-run.js';
export { addActivity, type NewActivity } from './activity-log.js';
export { recordSnmpSample } from './sensors.js';
export { recordApplications } from './applications.js';
export { recordSpeedSample } from './rtd-speed.js';
export { addConnectionBytes } from './connections.js';
export { setPowerAvailability } from './power.js';
export { setAgentLimits } from './monitoring-limits.js';
export { setMonitoringState, setDeviceExcluded, isDeviceMonitored } from './device-monitoring.js';
export { defineDeviceOutlets, type OutletDefinition } from './outlets.js';
export { addDeviceProfile, type NewDeviceProfile } from './device-profiles.js';
export { disableAssociation, type DisabledReason } from './association-status.js';
export { createAlertProfile, type NewAlertProfile, type AlertProfileRow } from './alert-profiles.js';
export { setAgentInterfaces, type AgentInterface } from './networking.js';
export { recordCameraSnapshot } from './camera-snapshots.js';
export { setDeviceType, DEVICE_BASE_TYPES, DETECTED_DEVICE_TYPES } from './device-types.js';
export {
  setMarketplaceUsage,
  getMarketplaceAccount,
  listMarketplaceAccounts,
  type MarketplaceAccountRow,
  type AccountModel,
  type AccountStatus,
  type ProductKey,
} from './marketplace.js';
