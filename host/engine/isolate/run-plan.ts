// What a run on a sandbox thread is given: its plan (plain data from the host thread) and its
// way to the network; what the runtime in the isolate is told of it; and what it gives back.
// The run's steps are run-steps.ts.
import type { DeviceInfo, ExternalDeviceCall, HttpCall, ProtocolCall, SandboxConfig, TlsCall } from '../../../runtime/protocol.js';
import type { ResolveMap } from '../../bridges/core/target.js';
import type { TranscriptMode } from '../../contract/run-request.js';
import type { DeviceSpec } from '../../contract/device.js';
import type { RunLimits } from '../../contract/limits.js';
import type { RunResult } from '../../contract/run-result.js';
import type { DriverSource } from '../../driver/load.js';

/** What a sandbox thread needs to run a driver: plain data, sent from the host thread. */
export interface RunPlan {
  driver: DriverSource;
  action: string;
  device: DeviceSpec;
  parameters: Record<string, unknown>;
  limits: RunLimits;
  /**
   * When the host started the run (made its network), as performance.timeOrigin + now: the
   * deadline counts from then on both threads, so a sandbox thread that gets to the run late
   * (busy with other runs) does not stretch it past the host's bound on the run's requests.
   */
  startedAt?: number;
  /**
   * Given: the run does its network on its own sandbox thread (thread-network.ts), with these;
   * absent: on the host thread, which the thread sends each call to (sandbox-thread.ts).
   */
  network?: ThreadRunNetwork;
}

/** What a run's network needs besides the plan's device, limits and driver, when its thread does it. */
export interface ThreadRunNetwork {
  transcript: TranscriptMode;
  resolve: ResolveMap;
  /** The run's secrets besides the device's password (RunNetwork's NetworkPlan.secrets). */
  secrets: string[];
}

/** The asynchronous operations served on the host thread, and their calls. */
export type NetworkOp = 'http' | 'tls' | 'proto';
export type NetworkCall = (HttpCall | TlsCall | ProtocolCall) & { id: number };

/** The run's way to the network (host/bridges/run-network.ts): on this thread, or the host thread's. */
export interface SandboxNetwork {
  /** Starts an HTTP exchange, TLS read or protocol call; `answer` is called once (with JSON text), unless the run ended first. */
  start(op: NetworkOp, call: NetworkCall, answer: (json: string) => void): void;
  /** D.createExternalDevice: the target number, synchronously; throws when the host refuses. */
  external(call: ExternalDeviceCall): number;
  /** The run is over: requests in flight are dropped. */
  close(): void;
  /**
   * The driver ended the run from inside a call that is still going: this thread is busy
   * until that call returns or hits its limit, so the host may answer with this result
   * meanwhile (after a grace period).
   */
  reported(result: RunResult): void;
}

export interface RunOutcome {
  result: RunResult;
  /** The isolate must not serve another run (it hit a limit or may still be running). */
  discard: boolean;
}

/** What the runtime is told of the run when it is installed in the run's context. */
export function sandboxConfig(plan: RunPlan): SandboxConfig {
  const { device, limits } = plan;
  const deviceInfo: DeviceInfo = {
    ip: device.ip ?? null,
    host: device.host ?? null,
    username: device.username ?? null,
    password: device.password ?? null,
    serial: device.serial ?? null,
    macAddress: device.macAddress ?? null,
  };
  return {
    action: plan.action,
    device: deviceInfo,
    parameters: plan.parameters,
    limits: { maxVariables: limits.maxVariables, maxTableRows: limits.maxTableRows, maxLogChars: limits.maxLogChars, maxTimers: limits.maxTimers },
    driverFilename: plan.driver.filename,
  };
}
