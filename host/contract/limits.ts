// Per-run limits: defaults, and checking of what callers pass.
import { DriverboxError } from './errors.js';

export interface RunLimits {
  /** Wall-clock deadline of the whole run, ms. Neither D.success nor D.failure by then: TIMEOUT_ERROR. */
  timeoutMs: number;
  /** CPU time the driver's own code may use, ms (isolate CPU time). */
  cpuTimeMs: number;
  /** Heap limit of the isolate, MB (V8 may overshoot it before it is enforced). */
  memoryMb: number;
  /** Variables one D.success may report; more fail the run with TOO_MANY_VARIABLES_ERROR. */
  maxVariables: number;
  /** Records one table may hold; insertRecord past it throws in the driver. */
  maxTableRows: number;
  /** Characters of console output kept per run; the rest is dropped with a warning. */
  maxLogChars: number;
  /** HTTP requests (and TLS reads) one run may make; more get a TOO_MANY_REQUESTS error. */
  maxHttpRequests: number;
  /** Requests (and TLS reads) of one run in flight at once; more wait their turn. */
  maxConcurrentRequests: number;
  /** Response bodies larger than this are refused with BODY_TOO_LARGE, bytes. */
  maxResponseBytes: number;
  /** Connections (SSH, Telnet, WinRM shells, SNMP sessions) one run may open; more get TOO_MANY_SESSIONS. */
  maxProtocolSessions: number;
  /** Commands and SNMP requests one run may send over those; more get TOO_MANY_COMMANDS. */
  maxProtocolCommands: number;
  /** Output one SSH / Telnet / WinRM command or SNMP request may return, bytes; more: OUTPUT_TOO_LARGE. */
  maxOutputBytes: number;
  /** Timers one run may start (setTimeout, setInterval, q's delay / timeout); an interval counts once. More throw a RangeError in the driver. */
  maxTimers: number;
}

export const defaultLimits: Readonly<RunLimits> = Object.freeze({
  timeoutMs: 60_000,
  cpuTimeMs: 30_000,
  memoryMb: 128,
  maxVariables: 500,
  maxTableRows: 1_000,
  maxLogChars: 1_000_000,
  maxHttpRequests: 1_000,
  maxConcurrentRequests: 6,
  maxResponseBytes: 16 * 1024 * 1024,
  maxProtocolSessions: 32,
  maxProtocolCommands: 1_000,
  maxOutputBytes: 4 * 1024 * 1024,
  maxTimers: 1_000,
});

const minimums: Record<keyof RunLimits, number> = {
  timeoutMs: 1,
  cpuTimeMs: 1,
  memoryMb: 8,
  maxVariables: 0,
  maxTableRows: 0,
  maxLogChars: 0,
  maxHttpRequests: 0,
  maxConcurrentRequests: 1,
  maxResponseBytes: 0,
  maxProtocolSessions: 0,
  maxProtocolCommands: 0,
  maxOutputBytes: 0,
  maxTimers: 0,
};

/** Timers cannot wait longer (Node's setTimeout fires at once past it): deadlines are capped here. */
const MAX_TIMER_MS = 2_147_483_647;
const maximums: Partial<Record<keyof RunLimits, number>> = { timeoutMs: MAX_TIMER_MS, cpuTimeMs: MAX_TIMER_MS };

export function resolveLimits(...layers: Array<Partial<RunLimits> | undefined>): RunLimits {
  const limits: RunLimits = { ...defaultLimits };
  for (const layer of layers) {
    if (!layer) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (!(key in defaultLimits)) {
        throw new DriverboxError('INVALID_OPTIONS', `unknown limit "${key}"; known limits: ${Object.keys(defaultLimits).join(', ')}`);
      }
      const name = key as keyof RunLimits;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < minimums[name]) {
        throw new DriverboxError('INVALID_OPTIONS', `limit ${name} must be an integer >= ${minimums[name]} (got ${JSON.stringify(value)})`);
      }
      const max = maximums[name];
      if (max !== undefined && value > max) {
        throw new DriverboxError('INVALID_OPTIONS', `limit ${name} must be at most ${max} ms (about 24.8 days; got ${value})`);
      }
      limits[name] = value;
    }
  }
  return limits;
}
