// The options of startSandboxProcess, checked and resolved with their defaults: bad ones are
// refused at once with INVALID_OPTIONS, before any child is forked.
import { DriverboxError } from '../../contract/errors.js';
import type { BackoffOptions } from './backoff.js';
import { assertSendable } from './plain-data.js';
import type { SandboxHostOptions } from './protocol.js';

export interface SandboxProcessOptions {
  /** createHost options for the child (externalHosts only as a list: a function cannot be sent). */
  host?: SandboxHostOptions;
  /** Runs sent to the child at once; more wait here, safe from a crash (default host.maxIsolates, else 16). */
  maxInFlight?: number;
  /** Restart delays when the child keeps dying (defaults 100 ms, 30 s, 60 s). */
  restart?: Partial<BackoffOptions>;
  /** close(): how long runs already accepted may take to finish before the child is killed, ms (default 10 s). */
  closeGraceMs?: number;
  /**
   * Extra Node flags for the child (e.g. --max-old-space-size=512). --no-node-snapshot is always
   * given, and driverbox's heap flags (platform/v8-heap-flags.ts) before these, so a flag here can change one.
   */
  execArgv?: string[];
  /**
   * A run still unanswered this long after its deadline (limits.timeoutMs) means the child is
   * wedged: it is killed and restarted, that run ends with TIMEOUT_ERROR, ms (default 5000).
   */
  overstayMarginMs?: number;
}

/** The options with their defaults, restart's apart (for RestartBackoff). */
export type ResolvedOptions = Required<Omit<SandboxProcessOptions, 'restart' | 'host'>> & { host: SandboxHostOptions };

function integer(value: number | undefined, fallback: number, name: string, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new DriverboxError('INVALID_OPTIONS', `sandbox process: ${name} must be an integer >= ${min} (got ${JSON.stringify(value)})`);
  }
  return value;
}

export function resolveOptions(options: SandboxProcessOptions): { resolved: ResolvedOptions; restart: BackoffOptions } {
  const host = options.host ?? {};
  assertSendable(host, 'host', 'sandbox process options');
  const resolved: ResolvedOptions = {
    host,
    maxInFlight: integer(options.maxInFlight, host.maxIsolates ?? 16, 'maxInFlight', 1),
    closeGraceMs: integer(options.closeGraceMs, 10_000, 'closeGraceMs', 0),
    execArgv: options.execArgv ?? [],
    overstayMarginMs: integer(options.overstayMarginMs, 5_000, 'overstayMarginMs', 0),
  };
  if (!Array.isArray(resolved.execArgv) || resolved.execArgv.some((a) => typeof a !== 'string')) {
    throw new DriverboxError('INVALID_OPTIONS', 'sandbox process: execArgv must be a list of Node flags');
  }
  const restart = options.restart ?? {};
  return {
    resolved,
    restart: {
      initialDelayMs: integer(restart.initialDelayMs, 100, 'restart.initialDelayMs', 0),
      maxDelayMs: integer(restart.maxDelayMs, 30_000, 'restart.maxDelayMs', 0),
      stableAfterMs: integer(restart.stableAfterMs, 60_000, 'restart.stableAfterMs', 0),
    },
  };
}
