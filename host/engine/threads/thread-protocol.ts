// Messages between the host thread and a sandbox thread. Each side sends arrays of them,
// one array per turn of its event loop, so that many runs share one hand-off.
import type { MessagePort } from 'node:worker_threads';
import type { ExternalDeviceCall } from '../../../runtime/protocol.js';
import type { RunResult } from '../../contract/run-result.js';
import type { PoolOptions, PoolStats, SandboxMemory } from '../figures.js';
import type { NetworkCall, NetworkOp, RunPlan } from '../isolate/run-plan.js';

/** workerData of a sandbox thread. */
export interface ThreadConfig {
  pool: PoolOptions;
  /** dist/runtime of the host's package (see locateRuntimeDir); null when the host found none. */
  runtimeDir: string | null;
  /** Memory size (MB) of the isolates to warm up at start. */
  prewarmMemoryMb: number;
  /** Where synchronous answers come back (see SyncReply); the flag is an Int32Array on a SharedArrayBuffer. */
  syncPort: MessagePort;
  syncFlag: SharedArrayBuffer;
  /** Where a run's result waits when its driver ends it (report-slot.ts). */
  reportSlot: SharedArrayBuffer;
  /** Where the thread says it is inside a call into an isolate (busy-slot.ts). */
  busySlot: SharedArrayBuffer;
  /** What the thread's own network (its runs' HTTP, TLS and protocol calls) is made of; null: runs do theirs on the host thread. */
  network: ThreadNetworkConfig | null;
}

/** thread-network.ts: the thread's sessions, trust store and share of the host's answer bytes. */
export interface ThreadNetworkConfig {
  trustedCAs: string[] | undefined;
  /** Device sessions this thread keeps (its share of HostOptions.maxDeviceSessions). */
  maxDeviceSessions: number;
  /** HostOptions.deviceSessionIdleMs: how long an idle device's cookie jar is kept. */
  deviceSessionIdleMs: number;
  /** HostOptions.tlsSessionReuse: resume a device's TLS sessions across its runs. */
  tlsSessionReuse: boolean;
  /** The host's ByteBudget (its `shared` count and bound): one bound over every thread. */
  buffers: SharedArrayBuffer;
  maxBufferedBytes: number;
}

export type ToThread =
  | { t: 'run'; run: number; plan: RunPlan }
  /** The answer's JSON text: what the isolate gets, as it is. */
  | { t: 'answer'; run: number; id: number; json: string }
  /** What the thread's heap and its isolates' heaps hold now (host.memory()). */
  | { t: 'memory'; id: number; gc: boolean }
  | { t: 'close' };

export type FromThread =
  /** The thread's modules are loaded (the network's too): runs handed to it from now on start at once. */
  | { t: 'ready' }
  | { t: 'net'; run: number; id: number; op: NetworkOp; call: NetworkCall }
  | ({ t: 'ended'; run: number; stats: PoolStats } & ThreadReport)
  /** The driver ended the run and its result did not fit the report slot (see SandboxNetwork.reported). */
  | ({ t: 'reported'; run: number } & ThreadReport)
  /**
   * The run could not go on. `ofRun`: because of something in the run (a message of it that could
   * not be handled or sent): the run gets a failed RunResult; otherwise host.run rejects.
   */
  | { t: 'failed'; run: number; message: string; stats: PoolStats; ofRun?: boolean }
  | { t: 'stats'; stats: PoolStats }
  | { t: 'memory'; id: number; memory: SandboxMemory }
  /** Sent alone and answered on syncPort while the thread waits: D.createExternalDevice. */
  | { t: 'external'; run: number; call: ExternalDeviceCall }
  /**
   * Sent alone and answered on syncPort, for a run whose network is on its thread: may it reach
   * this host (D.createExternalDevice), may a redirect lead there? The caller's policy may be a
   * function, so it is asked where it lives.
   */
  | { t: 'policy'; run: number; kind: PolicyKind; host: string };

export type PolicyKind = 'reach' | 'redirect';

/** The answer to an 'external' message (the target number) or a 'policy' one (allowed), or the refusal's text. */
export type SyncReply = { ok: true; value: number | boolean } | { ok: false; message: string };

/** What a run's result comes with when its network was on its thread: the secrets to mask it with. */
export interface ThreadReport {
  result: RunResult;
  /** Every secret the run's network knew (RunNetwork.secrets); none when the network was the host's. */
  secrets?: string[];
}
