// createHost: the programmatic entry point. A host owns its sandbox threads (each with a
// pool of isolates and the HTTP sessions of the devices pinned to it) and the sessions of the
// runs whose network stays on the host thread (record, replay, deviceState, a run's own
// trustedCAs); host.run() executes one driver action and resolves to a RunResult.
import { X509Certificate } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { DEFAULT_SESSION_IDLE_MS, DeviceSessions } from '../bridges/http/sessions.js';
import { StateSessions } from '../bridges/http/state-sessions.js';
import { recordCapture, replayCapture, type RunCapture } from '../bridges/record/capture.js';
import type { RecordingFile } from '../contract/recording.js';
import type { ExternalHosts, RunRequest } from '../contract/run-request.js';
import type { ResolveMap } from '../bridges/core/target.js';
import { loadRecording } from '../bridges/record/load.js';
import type { TranscriptMode } from '../contract/run-request.js';
import { createTrustStore, type TrustStore } from '../bridges/tls/trust.js';
import type { DeviceSpec } from '../contract/device.js';
import { readDeviceState } from '../device-state.js';
import { type DeviceStateSnapshot } from '../contract/device-state.js';
import { ENTRY_POINT } from '../driver/entry-points.js';
import { loadDriver } from '../driver/load.js';
import { DriverboxError } from '../contract/errors.js';
import { resolveLimits, type RunLimits } from '../contract/limits.js';
import { readResolveOption } from '../bridges/core/resolve.js';
import { type ResolveOption } from '../contract/run-request.js';
import type { RunResult } from '../contract/run-result.js';
import { ByteBudget, DEFAULT_MAX_BUFFERED_BYTES } from '../bridges/core/buffer-budget.js';
import { canonicalHost } from '../bridges/core/host-name.js';
import { MAX_EXTERNAL_DEVICES, RunNetwork } from '../bridges/run-network.js';
import { maskRunText } from '../secrets/secret-mask.js';
import { parameterSecrets } from '../secrets/secret-names.js';
import { snmpSecrets } from '../snmp-settings.js';
import { assertNodeFlags } from '../platform/node-flags.js';
import type { PoolStats, SandboxMemory } from './figures.js';
import { SandboxThreads } from './threads/threads.js';

/** The isolate pool's counts over all sandbox threads, and the threads recycled so far. */
export interface HostStats extends PoolStats {
  threadsRecycled: number;
  /** Sandbox threads the watchdog stopped and replaced: a run was stuck far past its deadline. */
  threadsStopped: number;
  /** Spare sandbox threads made because every thread with room was held by a long call into an isolate (HostOptions.spareThreads). */
  spareThreadsMade: number;
  /** Sandbox threads inside one call into an isolate for 20 ms or more now (a driver spinning): new runs go elsewhere. */
  threadsHeld: number;
}

/** How long an idle warm isolate is kept, ms (HostOptions.warmIsolateIdleMs). */
const DEFAULT_WARM_IDLE_MS = 30_000;

export interface HostOptions {
  /** Defaults for every run of this host; each run may override them. */
  limits?: Partial<RunLimits>;
  /** Idle isolates kept warm (default 2). */
  warmIsolates?: number;
  /**
   * An idle isolate unused this long is disposed, ms (default 30000): a warm isolate holds the
   * garbage of its runs, and those kept for a burst of runs go once it is over.
   */
  warmIsolateIdleMs?: number;
  /** Runs executing at once; more wait for a free isolate (default 16). */
  maxIsolates?: number;
  /**
   * Sandbox threads: driver code runs on these worker threads, never on the host's event
   * loop, and so does a run's network with networkInThreads (default: CPU cores - 1,
   * at least 1; never more than maxIsolates).
   */
  threads?: number;
  /**
   * Spare sandbox threads at most (default: as many as `threads`; 0: none). A run that every
   * thread with room would put behind a long call into an isolate (a driver spinning to its
   * deadline) goes to a spare instead; a spare ends once idle and no thread is held.
   */
  spareThreads?: number;
  /**
   * Where a run's network (HTTP, TLS reads, SSH / Telnet / SNMP / WinRM) is done: on its sandbox
   * thread, which keeps the sessions of the devices pinned to it (true), or on the host thread,
   * each call and answer a message between the two (default false: it measured no faster, see
   * docs/ARCHITECTURE.md). Runs with record, replay, deviceState or trustedCAs of their own
   * always do theirs on the host thread.
   */
  networkInThreads?: boolean;
  /** Replace an isolate after this many runs (default 1000). */
  recycleAfterRuns?: number;
  /**
   * Replace a sandbox thread after it has started this many runs, 0 for never (default 0).
   * Bounds what a long-lived thread accumulates outside any one isolate.
   */
  recycleThreadAfterRuns?: number;
  /**
   * Which hosts D.createExternalDevice may reach, and a redirect may lead to: a list of host
   * names / IPs ("*.example.com": any name under example.com; "*": any host for
   * D.createExternalDevice, but redirects only to the hosts named), or a predicate asked about
   * both. Default: D.createExternalDevice any host, redirects to another host none.
   */
  externalHosts?: ExternalHosts;
  /**
   * Extra certificate authorities (PEM) that HTTPS requests and getTLSCertificate trust,
   * on top of Node's bundled roots and the system bundle.
   */
  trustedCAs?: string[];
  /**
   * Devices whose HTTP session (cookie jar, keep-alive connections) is kept between runs;
   * the least recently used beyond this are dropped (default 10000).
   */
  maxDeviceSessions?: number;
  /**
   * How long a device's cookie jar is kept after its last request, ms (default 3600000, 1 h).
   * Its connections are closed after 12 s idle whatever this says, and a session without
   * cookies or TLS sessions goes with them: what the host keeps of an idle device is a jar that
   * has cookies, and the TLS sessions its next connections resume (tlsSessionReuse).
   */
  deviceSessionIdleMs?: number;
  /**
   * Resume a device's TLS sessions across its runs (default true): a run's new HTTPS connection
   * offers the session of the device's last one, and skips a full handshake when the device takes
   * it. Kept per device, per origin and per verification mode (rejectUnauthorized), with the
   * device's cookie jar (deviceSessionIdleMs, maxDeviceSessions); never for runs with trustedCAs
   * of their own. false: every new connection makes a full handshake.
   */
  tlsSessionReuse?: boolean;
  /**
   * Bytes of device answers all runs may hold in memory at once (default 256 MiB); a request
   * whose answer would pass it fails with HOST_BUFFERS_FULL.
   */
  maxBufferedBytes?: number;
}


export interface Host {
  run(request: RunRequest): Promise<RunResult>;
  stats(): HostStats;
  /**
   * Heap figures of the sandbox threads and of the driver isolates in their pools, in bytes:
   * what RSS holds besides the host thread's own heap (process.memoryUsage()). With `gc`, each
   * sandbox thread first collects its own garbage, where node runs with --expose-gc.
   */
  memory(options?: { gc?: boolean }): Promise<SandboxMemory>;
  close(): Promise<void>;
}

/** The run's pins as a recording keeps them. */
function pinsOf(resolve: ResolveMap): RecordingFile['resolve'] {
  return Object.fromEntries([...resolve].map(([name, pin]) => [name, { ip: pin.ip, portMap: Object.fromEntries(Object.entries(pin.portMap)) }]));
}

/** The run's result masked with every secret its network (on the host thread) knew: maskRunText. */
function maskWithNetwork(result: RunResult, network: RunNetwork | null): RunResult {
  return maskRunText(result, network?.secrets() ?? []);
}

/**
 * The result with the state the run left in its sessions, when it was given one
 * (RunRequest.deviceState). Not masked: it is what the device set, needed as it is.
 */
function withDeviceState(result: RunResult, sessions: StateSessions | null): RunResult {
  if (!sessions) return result;
  const { state, warnings } = sessions.exportChanged();
  return { ...result, deviceState: state, ...(warnings.length > 0 ? { warnings: [...result.warnings, ...warnings] } : {}) };
}

function integerOption(value: number | undefined, fallback: number, name: string, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new DriverboxError('INVALID_OPTIONS', `${name} must be an integer >= ${min} (got ${JSON.stringify(value)})`);
  }
  return value;
}



/**
 * What an allow-list lets a run reach beyond its device: `reach` for D.createExternalDevice,
 * `redirect` for a redirect to another host. A redirect is the device's choice, not the
 * driver's: it goes only to hosts the caller named (a name, `*.domain`, or a predicate saying
 * yes), never through the bare "*" (any host) nor the default, which allow every host to reach.
 */
export interface ExternalRules {
  reach(host: string): boolean;
  redirect(host: string): boolean;
}

/** Without a list: any host for D.createExternalDevice, no redirect to another host. */
const DEFAULT_RULES: ExternalRules = { reach: () => true, redirect: () => false };

/**
 * An allow-list (names compared case-insensitively; "*" any host; "*.example.com" any name under
 * example.com) or predicate; none given: the fallback decides.
 */
function externalRules(allow: ExternalHosts | undefined, fallback: ExternalRules): ExternalRules {
  if (allow === undefined) return fallback;
  if (typeof allow === 'function') return { reach: allow, redirect: allow };
  if (!Array.isArray(allow) || allow.some((h) => typeof h !== 'string')) {
    throw new DriverboxError('INVALID_OPTIONS', 'externalHosts must be a list of host names / IPs or a function (host) => boolean');
  }
  const any = allow.includes('*');
  const suffixes = allow.filter((h) => h.startsWith('*.') && h.length > 2).map((h) => h.slice(1).toLowerCase());
  // Listed as they are spelled and as the canonical form RunNetwork asks about (127.1 → 127.0.0.1).
  const names = new Set(allow.flatMap((h) => [h.toLowerCase(), canonicalHost(h) ?? h.toLowerCase()]));
  const named = (host: string) => {
    const lower = host.toLowerCase();
    return names.has(lower) || suffixes.some((suffix) => lower.endsWith(suffix));
  };
  return { reach: (host) => any || named(host), redirect: named };
}

/**
 * The trust of a run given CAs of its own (RunRequest.trustedCAs): the host's and those; null
 * without any, when the host's own store serves it.
 */
function trustOfRun(runCAs: unknown, hostCAs: readonly string[] | undefined): TrustStore | null {
  if (runCAs === undefined) return null;
  if (!Array.isArray(runCAs) || runCAs.some((pem) => typeof pem !== 'string' || !pem.includes('-----BEGIN CERTIFICATE-----'))) {
    throw new DriverboxError('INVALID_OPTIONS', 'trustedCAs must be a list of PEM certificates ("-----BEGIN CERTIFICATE-----…")');
  }
  if (runCAs.length === 0) return null;
  try {
    for (const pem of runCAs) new X509Certificate(pem); // node:tls would skip one it cannot read
    return createTrustStore([...(hostCAs ?? []), ...runCAs]);
  } catch (error) {
    throw new DriverboxError('INVALID_OPTIONS', `trustedCAs: a certificate could not be read (${(error as Error).message})`);
  }
}

export function createHost(options: HostOptions = {}): Host {
  assertNodeFlags();
  const defaults = resolveLimits(options.limits);
  if (options.networkInThreads !== undefined && typeof options.networkInThreads !== 'boolean') {
    throw new DriverboxError('INVALID_OPTIONS', `networkInThreads must be true or false (got ${JSON.stringify(options.networkInThreads)})`);
  }
  const networkInThreads = options.networkInThreads ?? false;
  const buffers = new ByteBudget(integerOption(options.maxBufferedBytes, DEFAULT_MAX_BUFFERED_BYTES, 'maxBufferedBytes', 1));
  // Checked before the threads start, so a wrong value leaves nothing running.
  const sessionBounds = {
    maxSessions: integerOption(options.maxDeviceSessions, 10_000, 'maxDeviceSessions', 1),
    sessionIdleMs: integerOption(options.deviceSessionIdleMs, DEFAULT_SESSION_IDLE_MS, 'deviceSessionIdleMs', 1),
    tlsSessionReuse: options.tlsSessionReuse ?? true,
  };
  if (typeof sessionBounds.tlsSessionReuse !== 'boolean') {
    throw new DriverboxError('INVALID_OPTIONS', `tlsSessionReuse must be true or false (got ${JSON.stringify(sessionBounds.tlsSessionReuse)})`);
  }
  const sandboxes = new SandboxThreads({
    threads: integerOption(options.threads, Math.max(1, availableParallelism() - 1), 'threads', 1),
    pool: {
      warm: integerOption(options.warmIsolates, 2, 'warmIsolates', 0),
      max: integerOption(options.maxIsolates, 16, 'maxIsolates', 1),
      recycleAfterRuns: integerOption(options.recycleAfterRuns, 1000, 'recycleAfterRuns', 1),
      warmIdleMs: integerOption(options.warmIsolateIdleMs, DEFAULT_WARM_IDLE_MS, 'warmIsolateIdleMs', 1),
    },
    prewarmMemoryMb: defaults.memoryMb,
    recycleThreadAfterRuns: integerOption(options.recycleThreadAfterRuns, 0, 'recycleThreadAfterRuns', 0),
    spareThreads: options.spareThreads === undefined ? undefined : integerOption(options.spareThreads, 0, 'spareThreads', 0),
    network: networkInThreads ? { trustedCAs: options.trustedCAs, maxDeviceSessions: sessionBounds.maxSessions, deviceSessionIdleMs: sessionBounds.sessionIdleMs, tlsSessionReuse: sessionBounds.tlsSessionReuse, buffers: buffers.shared, maxBufferedBytes: buffers.max } : null,
  });
  const trust = createTrustStore(options.trustedCAs);
  const sessions = new DeviceSessions(trust, sessionBounds);
  const hostRules = externalRules(options.externalHosts, DEFAULT_RULES);
  let closed = false;

  return {
    async run(request) {
      if (closed) throw new DriverboxError('HOST_CLOSED', 'the host is closed');
      if (request.record !== undefined && request.replay !== undefined) {
        throw new DriverboxError('INVALID_OPTIONS', 'record and replay cannot be used in the same run');
      }
      if (request.record !== undefined && (typeof request.record !== 'string' || request.record === '')) {
        throw new DriverboxError('INVALID_OPTIONS', `record must be the path of the file to write (got ${JSON.stringify(request.record)})`);
      }
      // Checked before anything is read or reserved; the jars are built from it as the run uses them.
      const kept = request.deviceState === undefined ? undefined : request.deviceState === null ? null : readDeviceState(request.deviceState);
      if (kept !== undefined && request.replay !== undefined) {
        throw new DriverboxError('INVALID_OPTIONS', 'deviceState and replay cannot be used in the same run: a replay answers from its recording, with jars of its own');
      }
      const recording = request.replay === undefined ? null : await loadRecording(request.replay);
      const action = request.action ?? recording?.action ?? 'get_status';
      if (!ENTRY_POINT.test(action)) {
        throw new DriverboxError('UNKNOWN_ACTION', `unknown action "${action}": use validate, get_status, backup or custom_1, custom_2, …`);
      }
      const parameters = request.parameters ?? {};
      if (typeof parameters !== 'object' || Array.isArray(parameters) || parameters === null) {
        throw new DriverboxError('INVALID_OPTIONS', 'parameters must be an object of name → value');
      }
      const limits = request.limits === undefined ? { ...defaults } : resolveLimits(defaults, request.limits); // defaults: checked once
      const transcript = request.transcript ?? 'summary';
      if (transcript !== 'summary' && transcript !== 'full') {
        throw new DriverboxError('INVALID_OPTIONS', `transcript must be 'summary' or 'full' (got ${JSON.stringify(transcript)})`);
      }
      const runTrust = trustOfRun(request.trustedCAs, options.trustedCAs);
      const driver = await loadDriver(request);
      const rules = externalRules(request.externalHosts, hostRules);
      const allowExternal = rules.reach;
      // A replay dials the URLs it recorded: through the host-name pins of the recorded run.
      const resolve = readResolveOption(request.resolve ?? recording?.resolve);
      // A host the run pins is one its caller named; a replay follows the redirects its recording did.
      const followed = new Set(recording?.redirectHosts ?? []);
      const allowRedirect = (host: string) => resolve.has(host) || followed.has(host) || rules.redirect(host);
      // Last, once everything else is known to be right: recording reserves its file here.
      let capture: RunCapture | null = null;
      if (recording) capture = replayCapture(recording, request.device, limits);
      else if (request.record !== undefined) capture = await recordCapture(request.record, { driver: driver.filename, action, device: request.device ?? {}, resolve: pinsOf(resolve) });
      // Secrets besides the device's password: masked in the transcript, a recording and the result.
      const runDevice = capture?.device ?? request.device;
      const secrets = [...parameterSecrets(parameters), ...snmpSecrets(runDevice?.snmp)];
      // user:password too, so that a Basic token (whose base64 straddles both) is masked whole.
      if (runDevice?.username && runDevice.password) secrets.push(`${runDevice.username}:${runDevice.password}`);
      let network: RunNetwork | null = null;
      // A run with CAs of its own has sessions of its own: no connection it verified is shared.
      const ownSessions = runTrust ? new DeviceSessions(runTrust, { maxSessions: MAX_EXTERNAL_DEVICES + 1 }) : null;
      const runTrustStore = runTrust ?? trust;
      const stateSessions = kept === undefined ? null : new StateSessions(ownSessions ?? sessions, kept);
      if (!capture && !stateSessions && !ownSessions && networkInThreads) {
        // The run's sandbox thread does its network and masks its result (active-run.ts).
        const network = { transcript, resolve, secrets };
        return sandboxes.run({ driver, action, device: request.device ?? {}, parameters, limits, network }, { policy: { reach: allowExternal, redirect: allowRedirect } });
      }
      try {
        if (!capture) {
          const device = request.device ?? {};
          const runSessions = stateSessions ?? ownSessions ?? sessions;
          const result = await sandboxes.run({ driver, action, device, parameters, limits }, {
            network: () => (network = new RunNetwork({ device, limits, sessions: runSessions, transcript, trust: runTrustStore, allowExternal, allowRedirect, resolve, driver, buffers, secrets })),
          });
          return withDeviceState(maskWithNetwork(result, network), stateSessions);
        }
        const { device, wire } = capture;
        const runSessions = capture.sessions ?? stateSessions ?? ownSessions ?? sessions;
        let result: RunResult;
        try {
          result = await sandboxes.run({ driver, action, device, parameters, limits }, {
            network: () => (network = new RunNetwork({ device, limits, sessions: runSessions, transcript, trust: runTrustStore, allowExternal, allowRedirect, resolve, wire, driver, buffers, secrets })),
          });
        } catch (error) {
          await capture.abandon();
          throw error;
        }
        return withDeviceState(maskWithNetwork(await capture.finish(result), network), stateSessions);
      } finally {
        await ownSessions?.close();
      }
    },
    stats: () => ({ ...sandboxes.stats(), threadsRecycled: sandboxes.recycledThreads, threadsStopped: sandboxes.stoppedThreads, spareThreadsMade: sandboxes.spareThreadsMade, threadsHeld: sandboxes.heldThreads }),
    memory: (options) => sandboxes.memory(options?.gc === true),
    async close() {
      closed = true;
      await sandboxes.close();
      await sessions.close();
    },
  };
}
