// Public API of driverbox.
export { createHost, type Host, type HostOptions, type RunRequest } from './host.js';
export type { DeviceSpec } from './device.js';
export { defaultLimits, type RunLimits } from './limits.js';
export type { RunResult, HttpExchange, LimitName, LogMessage, TableRecord, VariableRecord } from './run-result.js';
export { DriverboxError, type DriverboxErrorCode } from './errors.js';
export { listEntryPoints, type EntryPoint } from './driver/entry-points.js';
export type { RecordingFile, RecordedExchange, RecordedHttp, RecordedTls, RecordedBody, RecordedDevice } from './bridges/record/format.js';
