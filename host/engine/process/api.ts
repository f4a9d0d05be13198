// What the caller of startSandboxProcess holds: the SandboxProcess (a RunExecutor with
// counters and events), its stats, and the events it emits when its child exits or restarts.
import type { EventEmitter } from 'node:events';
import type { RunExecutor } from '../../contract/run-executor.js';
import type { PoolStats } from '../figures.js';
import type { SandboxProcessMemory } from './protocol.js';

export type SandboxState = 'starting' | 'ready' | 'restarting' | 'closing' | 'closed';

export interface SandboxProcessStats {
  /** The current child's pid; null while none is running. */
  pid: number | null;
  state: SandboxState;
  /** Children started after the first one. */
  restarts: number;
  /** Runs sent to the child and not answered yet. */
  inFlight: number;
  /** Runs accepted and waiting to be sent (at maxInFlight, or while the child restarts). */
  queued: number;
  /** How long the current child has been serving runs, ms; 0 while none is. */
  uptimeMs: number;
  /** Runs that ended as failed because the child died or was killed under them. */
  lostRuns: number;
  /** The child's isolate pool, as of its last answer; null before any. */
  pool: PoolStats | null;
  /** The child's resident memory now, bytes (Linux /proc); null without a child or off Linux. */
  rssBytes: number | null;
  /** Children killed because a run overstayed its deadline plus overstayMarginMs. */
  overstayKills: number;
  /** Why the supervisor last killed a child (overstay, IPC failure, close()'s grace), and when; null if it never did. */
  lastKill: { reason: string; at: string } | null;
}

export interface SandboxExitEvent {
  pid: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when close() stopped it; false for a crash. */
  expected: boolean;
  /** Runs in flight that ended as failed because of this exit. */
  lostRuns: number;
  /** Why the supervisor killed it (e.g. a run overstayed its deadline); null when it exited on its own. */
  killedBecause: string | null;
  /** True when it was killed because a run overstayed its deadline plus the margin. */
  overstay: boolean;
}

export interface SandboxRestartEvent {
  /** The new child's pid, now ready for runs. */
  pid: number;
  previousPid: number;
  restarts: number;
  /** The backoff waited before forking it, ms. */
  delayMs: number;
}

export type SandboxEvents = { exit: [SandboxExitEvent]; restart: [SandboxRestartEvent] };

/** A RunExecutor with counters, and an EventEmitter of 'exit' and 'restart'. */
export interface SandboxProcess extends RunExecutor, EventEmitter<SandboxEvents> {
  stats(): SandboxProcessStats;
  /** Where the child's memory is (its heaps, its isolates'); null without a ready child or when it does not answer within 5 s. */
  memory(): Promise<SandboxProcessMemory | null>;
}
