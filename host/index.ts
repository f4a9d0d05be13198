// Public API of driverbox.
export type { HeapFigures, SandboxMemory } from './engine/figures.js';
export { createHost, type Host, type HostOptions, type HostStats } from './engine/host.js';
export { type RunRequest } from './contract/run-request.js';
export type { ResolveOption } from './contract/run-request.js';
export { tuneProcessHeap, V8_HEAP_FLAGS } from './platform/v8-heap-flags.js';
export type { DeviceSpec } from './contract/device.js';
export { defaultLimits, type RunLimits } from './contract/limits.js';
export type { RunResult, HttpExchange, LimitName, LogMessage, TableRecord, VariableRecord } from './contract/run-result.js';
export { DriverboxError, type DriverboxErrorCode } from './contract/errors.js';
export { listEntryPoints, type EntryPoint } from './driver/entry-points.js';
export { loadFixture } from './simulator/load-fixture.js';
export { parseFixture, type ParseFixtureOptions } from './simulator/parse-fixture.js';
export { FixtureError } from './contract/errors.js';
export { FIXTURE_VERSION, type Fixture, type FixtureSpec, type RouteSpec, type ResponseSpec, type FixtureRoute, type FixtureResponse } from './simulator/fixture-types.js';
export { startSimulator, type Simulator, type SimulatorOptions, type SimulatedDevice, type SimulatedRequest, type RequestOutcome } from './simulator/simulator.js';
export type { RecordingFile, RecordedExchange, RecordedHttp, RecordedTls, RecordedBody, RecordedDevice } from './contract/recording.js';
// The embedded store and the local Monitoring Public API v1 (docs/reference/monitoring-api.md).
export * from './store/index.js';
export { createMonitoringApi, startMonitoringServer, type MonitoringApiOptions, type RunningMonitoringServer } from './api/monitoring/server.js';
export * from './api/monitoring/client/index.js';
export { reportRun, type ReportRunInput, type ReportedLocalRun } from './store/runs/report-local-run.js';
// Agent mode: an inventory's drivers on schedule in a supervised sandbox process (docs/agent/).
export { Agent } from './agent/agent.js';
export { DEFAULT_GRACE_MS, type AgentEvents, type AgentRunStarted, type AgentRunFinished, type AgentRunSkipped, type AgentState, type AgentStats, type AgentStopResult } from './agent/agent-types.js';
export { createAgent, type AgentOptions, type AgentApiOptions } from './server/agent-server.js';
export { loadInventory, parseInventory, syncInventory, InventoryError, type Inventory, type InventorySyncResult } from './agent/inventory/index.js';
export { startSandboxProcess, type SandboxProcess, type SandboxProcessOptions, type SandboxProcessStats, type SandboxProcessMemory } from './engine/process/index.js';
export { createScheduler } from './agent/scheduler/scheduler.js';
export type { SchedulerJob } from './agent/scheduler/job.js';
export type { SchedulerOptions, SchedulerStats } from './agent/scheduler/types.js';
export { createAgentMetrics, type AgentMetrics, type AgentMetricsOptions } from './agent/metrics.js';
// Scale-out: agents on a shared Redis queue and PostgreSQL store (docs/architecture/scale-out.md).
export type { AgentQueueOptions } from './agent/queue-runs.js';
export { ScaleOutError, type ScaleOutErrorCode, type QueueFiguresSnapshot, type RunCounters } from './scale-out/index.js';
export { StoreDeviceStates } from './store/runs/device-states.js';
export type { RunExecutor } from './contract/run-executor.js';
// Per-device kept state (cookie jars) as plain data, for the scale-out mode's shared store.
export { withSharedDeviceState, MemoryDeviceStateStore, mergeDeviceState, readDeviceState, storeDeviceId, type SharedDeviceStateOptions } from './device-state.js';
export { DEVICE_STATE_VERSION, MAX_DEVICE_STATE_BYTES, MAX_DEVICE_STATE_SESSIONS, type DeviceStateStore, type DeviceStateSnapshot, type DeviceSessionState, type StoredCookie } from './contract/device-state.js';
// The Marketplace API emulator and its client (docs/reference/marketplace-api.md).
export { marketplaceRoutes, DEFAULT_AGREEMENTS, type MarketplaceRoutesOptions } from './api/marketplace/marketplace-routes.js';
export * from './api/marketplace/client/index.js';
