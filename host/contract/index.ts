// The contract: the types every room of driverbox speaks (a run's request and result, the device,
// the limits, the kept device state, the recording format, the executor) and its error codes.
// It imports nothing else of host/, so any layer may depend on it and it on none of them.
export * from './device.js';
export * from './device-state.js';
export * from './driver-error-codes.js';
export * from './errors.js';
export * from './limits.js';
export * from './recording.js';
export * from './run-executor.js';
export * from './run-request.js';
export * from './run-result.js';
