// The embedded store's public surface.
export { DEFAULT_STORE_BOUNDS, openStore, Store, type StoreBounds, type StoreOptions } from './store.js';
export { StoreError, type StoreErrorCode } from '../contract/errors.js';
export { defaultDataDir, defaultStorePath, resolveStorePath } from './db/data-dir.js';
export { SCHEMA_VERSION } from './db/migrations.js';
// What an embedding program feeds the store with (what a real agent would discover or measure).
export { createAgentRecord, ensureLocalAgent, getAgent, type AgentRow, type NewAgent } from './fleet/agents.js';
export { createDevice, getDevice, findDeviceByAddress, type DeviceRow, type NewDevice } from './fleet/devices.js';
export { setAgentStatus, setDeviceStatus } from './fleet/status-history.js';
export { setDeviceCredentials, getDeviceCredentials, type DeviceCredentials } from './fleet/credentials.js';
export { createCustomDriver } from './drivers/custom-drivers.js';
export { setAgentVariable } from './results/variables.js';
export { setHistoryRetention, pruneVariableHistory } from './results/variable-history.js';
export { writeRunResult, type ReportTarget, type ReportedRun, type WriteRunOptions } from './runs/report-run.js';
export { addActivity, type NewActivity } from './fleet/activity-log.js';
export { recordSnmpSample } from './monitoring/sensors.js';
export { recordApplications } from './monitoring/applications.js';
export { recordSpeedSample } from './monitoring/rtd-speed.js';
export { addConnectionBytes } from './monitoring/connections.js';
export { setPowerAvailability } from './monitoring/power.js';
export { setAgentLimits } from './monitoring/monitoring-limits.js';
export { setMonitoringState, setDeviceExcluded, isDeviceMonitored } from './fleet/device-monitoring.js';
export { defineDeviceOutlets, type OutletDefinition } from './monitoring/outlets.js';
export { addDeviceProfile, type NewDeviceProfile } from './account/device-profiles.js';
export { disableAssociation, type DisabledReason } from './drivers/association-status.js';
export { createAlertProfile, type NewAlertProfile, type AlertProfileRow } from './account/alert-profiles.js';
export { setAgentInterfaces, type AgentInterface } from './fleet/networking.js';
export { recordCameraSnapshot } from './monitoring/camera-snapshots.js';
export { setDeviceType, DEVICE_BASE_TYPES, DETECTED_DEVICE_TYPES } from './fleet/device-types.js';
export {
  setMarketplaceUsage,
  getMarketplaceAccount,
  listMarketplaceAccounts,
  type MarketplaceAccountRow,
  type AccountModel,
  type AccountStatus,
  type ProductKey,
} from './marketplace/accounts.js';
