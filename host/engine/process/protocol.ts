// Messages between the agent and its sandbox process over the fork IPC channel
// (serialization 'advanced': structured clone, so only plain data crosses).
import type { HostOptions } from '../host.js';
import type { RunRequest } from '../../contract/run-request.js';
import type { RunResult } from '../../contract/run-result.js';
import type { HeapFigures, PoolStats, SandboxMemory } from '../figures.js';

/** Host options that can cross the process boundary: externalHosts as a list, not a predicate. */
export type SandboxHostOptions = Omit<HostOptions, 'externalHosts'> & { externalHosts?: string[] };

/** A thrown DriverboxError (or any error) as plain data. */
export interface WireError {
  code: string | null;
  message: string;
}

export type ToChild =
  | { t: 'init'; host: SandboxHostOptions }
  /** A request's deviceState goes as it is; the result's comes back checked (returned-state.ts). */
  | { t: 'run'; id: number; request: RunRequest }
  /** What the child's memory holds now (SandboxProcess.memory()). */
  | { t: 'memory'; id: number }
  | { t: 'close' };

export type FromChild =
  /** createHost succeeded: runs may come. */
  | { t: 'ready' }
  /** createHost failed: the child exits after sending this. */
  | { t: 'init-failed'; error: WireError }
  | { t: 'result'; id: number; result: RunResult; pool: PoolStats }
  | { t: 'error'; id: number; error: WireError; pool: PoolStats }
  | { t: 'memory'; id: number; memory: SandboxProcessMemory };

/** Where the sandbox process's memory is, in bytes. */
export interface SandboxProcessMemory {
  rss: number;
  /** The child's main thread (the host: sessions, messages): its V8 heap. */
  mainHeap: HeapFigures;
  /** Its sandbox threads' own heaps, and the driver isolates' heaps (idle and running). */
  sandbox: SandboxMemory;
}
