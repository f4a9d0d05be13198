// What a run's network is made of (RunNetwork's plan): the device, the run's limits, the sessions
// and trust store of the host, the wire (live, recording or replay), the transcript's mode, the
// policies for external hosts and redirects, the pinned names, the driver and the secrets to mask.
import type { DeviceSpec } from '../contract/device.js';
import type { RunLimits } from '../contract/limits.js';
import type { TranscriptMode } from '../contract/run-request.js';
import type { ByteBudget } from './core/buffer-budget.js';
import type { ResolveMap } from './core/target.js';
import type { SessionSource } from './http/sessions.js';
import type { NetworkWire } from './record/wire.js';
import type { TrustStore } from './tls/trust.js';

export interface NetworkPlan {
  device: DeviceSpec;
  limits: RunLimits;
  sessions: SessionSource;
  trust: TrustStore;
  /** Where exchanges go: the device (default), or a recorder / a replay of a recording. */
  wire?: NetworkWire;
  /** 'full' records headers and bodies of every exchange (redacted). */
  transcript: TranscriptMode;
  /** May the driver reach this external host? (D.createExternalDevice) */
  allowExternal: (host: string) => boolean;
  /** May a redirect lead to this host (canonical name), another than the target's? Default: none. */
  allowRedirect?: (host: string) => boolean;
  /** Host names this run dials at a given address (RunRequest.resolve). */
  resolve: ResolveMap;
  /**
   * The driver the run runs: part of its sessions' keys, so that a jar one driver logged in
   * is never another driver's. Without it, the run's sessions are those of drivers without one.
   */
  driver?: { filename: string; source: string };
  /** The host's bound on answer bytes held at once by all its runs (HostOptions.maxBufferedBytes). */
  buffers?: ByteBudget;
  /**
   * The run's other secrets (its parameters' secrets, the device's SNMP community and keys):
   * masked in the transcript and, like passwords, in a recording.
   */
  secrets?: ReadonlyArray<string>;
  /**
   * When the run started, as performance.timeOrigin + now (RunPlan.startedAt): the clock of its
   * deadline and transcript. Default: when this object is made.
   */
  startedAt?: number;
}
