// The supervised sandbox process: the RunExecutor of the agent and of `driverbox serve` that keeps isolated-vm out of their own process.
export { startSandboxProcess } from './sandbox-process.js';
export type { SandboxEvents, SandboxExitEvent, SandboxProcess, SandboxProcessStats, SandboxRestartEvent, SandboxState } from './api.js';
export type { SandboxProcessOptions } from './options.js';
export type { SandboxHostOptions, SandboxProcessMemory } from './protocol.js';
export type { BackoffOptions } from './backoff.js';
