// How a run ends, as run-steps.ts decides it: the ending (the runtime's RunEnd, the limit it
// hit, whether its isolate may serve again), the failures the host itself reports (a limit, a
// syntax error with its line), and the backup a successful backup() carries into the result.
import type { RunEnd } from '../../../runtime/protocol.js';
import type { RunLimits } from '../../contract/limits.js';
import type { LimitName, RunResult } from '../../contract/run-result.js';
import type { DriverSource } from '../../driver/load.js';

/** How a run ended; `discard`: its isolate must not serve another run (it hit a limit or may still be running). */
export type Ending = { end: RunEnd; limit: LimitName | null; discard: boolean };

export function failure(errorType: string, message: string): RunEnd {
  return { status: 'failure', errorType, message, variables: [], tables: [] };
}

/** The run's backup in its result, with its sizes; a backup() that succeeded without one is warned about. */
export function withBackup(result: RunResult, end: RunEnd, action: string): RunResult {
  if (end.backup) {
    const { label, running, startup } = end.backup;
    result.backup = { label, running, startup, runningBytes: Buffer.byteLength(running), startupBytes: startup === null ? null : Buffer.byteLength(startup) };
  } else if (action === 'backup' && end.status === 'success') {
    result.warnings.push('backup() succeeded without a configuration: pass D.createBackup({label, running, startup}) to D.success; nothing was backed up');
  }
  return result;
}

/**
 * Did isolated-vm stop the call (its timeout, a memory limit, disposal), as opposed to the
 * driver throwing? A disposed isolate says so by itself. For a timeout, isolated-vm's error may
 * carry the driver's frame where it was interrupted, so it is told from a driver's look-alike
 * by time: only a call that used up the time it was given can have timed out.
 */
export function isSandboxLimit(error: unknown, disposed: boolean, usedItsTime: boolean): boolean {
  if (disposed) return true;
  return usedItsTime && error instanceof Error && error.message === 'Script execution timed out.';
}

/** Frames of the driver named where a limit stopped it: the innermost and its two callers. */
const STOPPED_FRAMES = 3;
/** Longest frame kept: a driver names its functions (a computed method name may be any text). */
const MAX_FRAME_CHARS = 200;

/**
 * Where the driver was when isolated-vm stopped it: its timeout error carries the isolate's
 * stack at the interruption ("at helper (driver.js:10:3)"); only the driver's own frames are
 * kept, so never a line of driverbox's. "" when none (CPU used up over many short calls).
 */
export function stoppedAt(error: unknown, driverFilename: string): string {
  let stack: unknown;
  try {
    stack = error instanceof Error ? error.stack : undefined;
  } catch {
    return '';
  }
  if (typeof stack !== 'string') return '';
  const frames: string[] = [];
  for (const raw of stack.split('\n').slice(1)) {
    const line = raw.trim();
    if (!line.startsWith('at ')) continue;
    if (!line.includes(`(${driverFilename}:`) && !line.startsWith(`at ${driverFilename}:`)) continue;
    frames.push(line.slice(3, 3 + MAX_FRAME_CHARS));
    if (frames.length === STOPPED_FRAMES) break;
  }
  if (frames.length === 0) return '';
  const [first, ...callers] = frames;
  return `; it was stopped in ${first}${callers.length ? `, called from ${callers.join(', called from ')}` : ''}`;
}

/** The ending of a run whose call into the isolate was stopped: which limit, by isolated-vm's word and the CPU the run used. */
export function limitEnding(error: unknown, disposed: boolean, cpuUsedMs: () => number, limits: RunLimits, driverFilename: string): Ending {
  const message = error instanceof Error ? error.message : String(error);
  if (disposed || /memory limit/i.test(message)) {
    return { end: failure('GENERIC_ERROR', `the driver exceeded the memory limit of ${limits.memoryMb} MB`), limit: 'memory', discard: true };
  }
  if (/timed out/i.test(message)) {
    if (cpuUsedMs() >= limits.cpuTimeMs) {
      return { end: failure('TIMEOUT_ERROR', `the driver used more than its CPU time limit of ${limits.cpuTimeMs} ms${stoppedAt(error, driverFilename)}`), limit: 'cpu', discard: true };
    }
    return {
      end: failure('TIMEOUT_ERROR', `the driver's code was still running at the ${limits.timeoutMs} ms deadline (an endless loop?)${stoppedAt(error, driverFilename)}`),
      limit: 'timeout',
      discard: true,
    };
  }
  return { end: failure('GENERIC_ERROR', `the sandbox failed: ${message}`), limit: null, discard: true };
}

/** "Unexpected token [drv.js:3:5]" → a message with the position and the offending line. */
export function describeSyntaxError(error: Error, driver: DriverSource): string {
  const match = /^(.*) \[(.*):(\d+):(\d+)\]$/.exec(error.message);
  if (!match) return `${error.name}: ${error.message}`;
  const [, text, file, line, column] = match;
  const source = driver.source.split('\n')[Number(line) - 1] ?? '';
  const caret = `${' '.repeat(Math.max(0, Number(column) - 1))}^`;
  return `SyntaxError: ${text} at ${file}:${line}:${column}\n    ${line} | ${source}\n    ${' '.repeat(line.length)} | ${caret}`;
}
