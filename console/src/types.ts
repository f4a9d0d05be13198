// The Public API records the console reads, taken from the server's own declarations so the
// two cannot drift apart (type-only imports: nothing of host/ ends up in the bundle).
export type { Agent } from '../../host/api/monitoring/schemas/agents.js';
export type { Device } from '../../host/api/monitoring/schemas/devices.js';
export type { Variable, VariableHistorySample } from '../../host/api/monitoring/schemas/variables.js';
export type { ErrorBody } from '../../host/api/monitoring/api-error.js';
export type { RunDetail, RunListAnswer, RunSummary, RecordedExchange as HttpExchange } from '../../host/api/driverbox/run-records.js';
export type { TrialRunAnswer, TrialRunRequest, TrialVariable, TrialTable } from '../../host/api/driverbox/run-records.js';
export type { CustomDriver, CustomDriverDetails, CustomDriverAssociation, CustomDriverUpdate } from '../../host/api/monitoring/schemas/custom-drivers.js';
export type { DeviceUptime, DeviceHistoryEvent } from '../../host/api/monitoring/schemas/history.js';
export type { ScheduleAnswer, ScheduleEntry, DeviceTable, SimulatedDeviceInfo } from '../../host/api/driverbox/run-records.js';
