// The supervised sandbox process: the RunExecutor of the agent and of `driverbox serve` that keeps isolated-vm out of their own process.
export {
  startSandboxProcess,
  type SandboxEvents,
  type SandboxExitEvent,
  type SandboxProcess,
  type SandboxProcessOptions,
  type SandboxProcessStats,
  type SandboxRestartEvent,
  type SandboxState,
} from './sandbox-process.js';
export type { SandboxHostOptions, SandboxProcessMemory } from './protocol.js';
export type { BackoffOptions } from './backoff.js';
