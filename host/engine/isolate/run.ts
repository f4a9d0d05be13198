// Executes one driver run in a borrowed isolate, on a sandbox thread: a fresh context, the
// runtime bundle, the driver, its entry point, then every callback as its answer comes,
// until the driver ends the run, a limit ends it, or nothing is left that could ever end it.
// Calls into the isolate are synchronous: this thread exists to run them, and a thread
// hand-off per call would cost more than the driver's own code.
import { inIsolateCall } from '../threads/busy-slot.js';
import type ivm from 'isolated-vm';
import { loadIsolatedVm } from '../../platform/isolated-vm.js';
import type { DeviceInfo, ExternalDeviceCall, HostOp, HttpCall, LibName, LogMessage, ProtocolCall, QueuedOp, RunEnd, SandboxConfig, TlsCall } from '../../../runtime/protocol.js';
import { MIN_INTERVAL_MS } from '../../../runtime/constants.js';
import { CryptoSession } from '../../bridges/crypto/index.js';
import type { DeviceSpec } from '../../contract/device.js';
import { findImport } from '../../driver/checks.js';
import type { DriverSource } from '../../driver/load.js';
import type { ResolveMap } from '../../bridges/http/target.js';
import type { TranscriptMode } from '../../bridges/http/transcript.js';
import type { RunLimits } from '../../contract/limits.js';
import type { LimitName, RunResult } from '../../contract/run-result.js';
import { checkLog, checkRunEnd, cutMessage } from './check-report.js';
import { withHint, withLogHints } from './missing-hints.js';
import { checkCryptoCall, checkExternalCall, checkLibName, checkNetworkCall, checkProtocolCall, checkTimer, checkCancel, parsePayload, hostAnswerError } from './host-payloads.js';
import type { WarmIsolate } from './warm-isolate.js';

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

const MAX_WARNINGS = 200;

/** An operation's name for a message, whatever the runtime was made to send as one. */
const opName = (op: unknown): string => (typeof op === 'string' ? JSON.stringify(op.slice(0, 20)) : `of type ${op === null ? 'null' : typeof op}`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

type Ending = { end: RunEnd; limit: LimitName | null; discard: boolean };

function failure(errorType: string, message: string): RunEnd {
  return { status: 'failure', errorType, message, variables: [], tables: [] };
}

/** The run's backup in its result, with its sizes; a backup() that succeeded without one is warned about. */
function withBackup(result: RunResult, end: RunEnd, action: string): RunResult {
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
function isSandboxLimit(error: unknown, disposed: boolean, usedItsTime: boolean): boolean {
  if (disposed) return true;
  return usedItsTime && error instanceof Error && error.message === 'Script execution timed out.';
}

/** "Unexpected token [drv.js:3:5]" → a message with the position and the offending line. */
function describeSyntaxError(error: Error, driver: DriverSource): string {
  const match = /^(.*) \[(.*):(\d+):(\d+)\]$/.exec(error.message);
  if (!match) return `${error.name}: ${error.message}`;
  const [, text, file, line, column] = match;
  const source = driver.source.split('\n')[Number(line) - 1] ?? '';
  const caret = `${' '.repeat(Math.max(0, Number(column) - 1))}^`;
  return `SyntaxError: ${text} at ${file}:${line}:${column}\n    ${line} | ${source}\n    ${' '.repeat(line.length)} | ${caret}`;
}

/**
 * The function the isolate calls, as a forwarder made outside the run's scope. isolated-vm
 * holds a global handle on a Callback's function that a disposed isolate never gives back;
 * holding the run's own closure there kept every discarded run's state (~5 KB) forever.
 */
function detachableHostCall(target: (op: HostOp, json: string) => string | undefined): { call: (op: HostOp, json: string) => string | undefined; detach(): void } {
  let current: typeof target | null = target;
  return {
    call: (op, json) => (current ? current(op, json) : undefined),
    detach: () => {
      current = null;
    },
  };
}

export async function executeRun(warm: WarmIsolate, plan: RunPlan, network: SandboxNetwork): Promise<RunOutcome> {
  const { limits, driver } = plan;
  const now = performance.now();
  const started = plan.startedAt === undefined ? now : Math.min(now, plan.startedAt - performance.timeOrigin);
  const deadline = started + limits.timeoutMs;
  const cpuStart = warm.isolate.cpuTime;
  const logs: LogMessage[] = [];
  const warnings: string[] = [];
  // A pbkdf2 that would outlast the run is refused before it starts: host work holds this thread.
  const crypto = new CryptoSession({ timeLeftMs: () => deadline - performance.now() });
  const pending = new Map<number, () => void>();
  let logChars = 0;
  let timersStarted = 0;
  let lateTimerWarned = false;
  let entryStarted = false; // before the entry point is called, an empty queue means nothing
  let reported: RunEnd | null = null;
  let ending: Ending | null = null;
  let context: ivm.Context | null = null;
  let dispatchRef: ivm.Reference | null = null;
  let settle!: (ending: Ending) => void;
  const settled = new Promise<Ending>((resolve) => (settle = resolve));

  const cpuUsedMs = () => Number(warm.isolate.isDisposed ? 0n : warm.isolate.cpuTime - cpuStart) / 1e6;
  const budgetMs = () => Math.max(1, Math.ceil(Math.min(deadline - performance.now(), limits.cpuTimeMs - cpuUsedMs())));

  const finish = (next: Ending) => {
    if (ending) return;
    ending = next;
    clearTimeout(deadlineTimer);
    network.close();
    for (const cancel of pending.values()) cancel();
    pending.clear();
    settle(ending);
  };

  // Fires only between calls (a call in progress keeps this thread): the driver is waiting on
  // I/O or timers. A call that runs into the deadline is stopped by its own timeout instead.
  const timeUp = () =>
    finish({
      end: failure('TIMEOUT_ERROR', `the driver did not call D.success or D.failure within the ${limits.timeoutMs} ms deadline`),
      limit: 'timeout',
      discard: false,
    });
  const deadlineTimer = setTimeout(timeUp, Math.max(0, deadline - now));

  const limitEnding = (error: unknown): Ending => {
    const message = error instanceof Error ? error.message : String(error);
    if (warm.isolate.isDisposed || /memory limit/i.test(message)) {
      return { end: failure('GENERIC_ERROR', `the driver exceeded the memory limit of ${limits.memoryMb} MB`), limit: 'memory', discard: true };
    }
    if (/timed out/i.test(message)) {
      if (cpuUsedMs() >= limits.cpuTimeMs) {
        return { end: failure('TIMEOUT_ERROR', `the driver used more than its CPU time limit of ${limits.cpuTimeMs} ms`), limit: 'cpu', discard: true };
      }
      return {
        end: failure('TIMEOUT_ERROR', `the driver's code was still running at the ${limits.timeoutMs} ms deadline (an endless loop?)`),
        limit: 'timeout',
        discard: true,
      };
    }
    return { end: failure('GENERIC_ERROR', `the sandbox failed: ${message}`), limit: null, discard: true };
  };

  /** After each call into the isolate: has the run ended, or can it never end? */
  const checkpoint = () => {
    if (ending) return;
    if (cpuUsedMs() > limits.cpuTimeMs) {
      finish({ end: failure('TIMEOUT_ERROR', `the driver used more than its CPU time limit of ${limits.cpuTimeMs} ms`), limit: 'cpu', discard: true });
    } else if (reported) {
      finish({ end: reported, limit: null, discard: false });
    } else if (entryStarted && pending.size === 0) {
      finish({
        end: failure(
          'TIMEOUT_ERROR',
          `${plan.action}() returned without calling D.success or D.failure, and no request or timer is pending: ` +
            `the run could never end (it would time out after ${limits.timeoutMs} ms)`,
        ),
        limit: null,
        discard: false,
      });
    }
  };

  /** Every entry into the isolate goes through here: timed, counted, and classified on error. */
  const enter = (call: () => unknown, onDriverError?: (error: unknown) => Ending): boolean => {
    if (ending) return false;
    // This thread may have been busy with other runs past the deadline (before the run began, or
    // while an answer waited behind them, ahead of the deadline timer): too late all the same.
    if (performance.now() >= deadline) {
      timeUp();
      return false;
    }
    const calledAt = performance.now();
    const allowedMs = budgetMs(); // what the call's own timeout is (it computes the same just after)
    let queued: unknown;
    try {
      queued = inIsolateCall(call); // marked, so the host places new runs on another thread meanwhile
    } catch (error) {
      if (!ending) {
        const limit = isSandboxLimit(error, warm.isolate.isDisposed, performance.now() - calledAt >= allowedMs - 1);
        if (reported) {
          // e.g. require() threw after ending the run, or its code went on until stopped
          if (limit) warnings.push(`the driver's code was still running after it ended the run, until its time limit; it was stopped`);
          finish({ end: reported, limit: null, discard: limit });
        } else {
          finish(!limit && onDriverError ? onDriverError(error) : limitEnding(error));
        }
      }
      return false;
    }
    // Run and answer calls return the operations the driver queued meanwhile (DispatchKind).
    try {
      if (typeof queued === 'string') takeQueued(queued);
    } catch (error) {
      // The runtime's text was malformed (a driver broke it): this run only ends.
      const message = error instanceof Error ? error.message : 'malformed';
      finish({ end: failure('GENERIC_ERROR', `the driver broke the runtime's operations (${message.slice(0, 200)})`), limit: null, discard: true });
      return false;
    }
    checkpoint();
    return true;
  };

  /** Hands the answer (JSON text) of an async operation to the driver's callback. */
  const deliver = (id: number, json: string) => {
    if (ending || !pending.delete(id) || !dispatchRef) return;
    const ref = dispatchRef;
    enter(() => ref.applySync(undefined, ['done', id, json], { timeout: budgetMs() }));
  };

  const startNetwork = (op: NetworkOp, call: NetworkCall) => {
    pending.set(call.id, () => {});
    network.start(op, call, (json) => deliver(call.id, json));
  };

  // Every operation of the runtime: a synchronous host call (hostCall), or queued during a dispatch.
  // The payload is whatever the runtime was made to send (it runs in the driver's context): each
  // is checked here before use, and a bad one is refused, never cast.
  const handle = (op: HostOp, payload: unknown): string | undefined => {
    if (ending) return undefined;
    switch (op) {
      case 'log': {
        const entry = checkLog(payload);
        logChars += entry.message.length;
        if (logChars <= limits.maxLogChars + 1_000) logs.push(entry);
        return undefined;
      }
      case 'warn':
        if (warnings.length < MAX_WARNINGS) warnings.push(typeof payload === 'string' ? cutMessage(payload)! : 'the runtime sent a warning that is not text');
        return undefined;
      case 'end': {
        if (!reported) {
          const checked = checkRunEnd(payload, limits);
          reported =
            typeof checked === 'string'
              ? failure('GENERIC_ERROR', `the run's report to the host was refused (did the driver replace JSON or define toJSON?): ${checked}`)
              : checked;
        }
        // Always from inside a call, which may yet go on: the host gets the outcome now.
        network.reported(resultOf({ end: reported, limit: null, discard: false }));
        return undefined;
      }
      case 'loadLib': {
        const name = checkLibName(payload);
        if (!context) return hostAnswerError('the run has no context');
        // The library's own top level: it sets its exports and completes with undefined (an IIFE).
        warm.lib(name).runSync(context, { timeout: budgetMs() });
        return '{"ok":true}';
      }
      case 'crypto':
        return JSON.stringify(crypto.call(checkCryptoCall(payload)));
      case 'external':
        return JSON.stringify({ ok: true, target: network.external(checkExternalCall(payload)) });
      case 'http':
      case 'tls':
      case 'proto': {
        const call = op === 'proto' ? checkProtocolCall(payload) : checkNetworkCall(payload);
        if (typeof call === 'string') {
          // Answered as a failed request, after this call: the driver's callback runs as for any other answer.
          const id = isRecord(payload) && Number.isSafeInteger(payload.id) ? (payload.id as number) : null;
          if (id !== null) {
            pending.set(id, () => {});
            setImmediate(() => deliver(id, JSON.stringify({ error: { code: 'INVALID_OPTIONS', message: call }, response: null })));
          }
          return undefined;
        }
        startNetwork(op, call);
        return undefined;
      }
      case 'timer': {
        const { id, ms, again } = checkTimer(payload);
        // The runtime refuses timers past maxTimers in the driver, and re-arms an interval at
        // MIN_INTERVAL_MS or more; this holds if the runtime's own state was broken.
        if (again ? ms < MIN_INTERVAL_MS : ++timersStarted > limits.maxTimers) {
          throw new Error(again ? `an interval re-armed at ${ms} ms (the least is ${MIN_INTERVAL_MS} ms)` : `more than maxTimers (${limits.maxTimers}) timers`);
        }
        // A timer due after the deadline can never fire in this run: it only keeps the run waiting.
        if (ms >= deadline - performance.now()) {
          if (!lateTimerWarned && warnings.length < MAX_WARNINGS) {
            lateTimerWarned = true;
            warnings.push(`a timer of ${ms} ms is due after the run's ${limits.timeoutMs} ms deadline: it never fires (the run ends at its deadline unless the driver ends it first)`);
          }
          pending.set(id, () => {});
        } else {
          // 0 ms: the next turn of this thread's loop, not Node's 1 ms timer floor (a chain of
          // setTimeout(fn, 0) is bounded by maxTimers, and an interval by its 10 ms clamp).
          if (ms === 0) {
            const immediate = setImmediate(() => deliver(id, 'null'));
            pending.set(id, () => clearImmediate(immediate));
          } else {
            const timer = setTimeout(() => deliver(id, 'null'), ms);
            pending.set(id, () => clearTimeout(timer));
          }
        }
        return undefined;
      }
      case 'cancel': {
        const { id } = checkCancel(payload);
        pending.get(id)?.();
        pending.delete(id);
        return undefined;
      }
      default:
        throw new Error(`unknown operation ${opName(op)}`);
    }
  };

  /**
   * The one function the runtime may call. It runs on this thread while the isolate waits, and
   * never throws: an error thrown into the isolate would carry this thread's stack (install
   * paths) to the driver. A refused operation answers {ok:false} where the runtime awaits an
   * answer (crypto, external, loadLib), and is dropped with a warning elsewhere.
   */
  const hostCall = (op: HostOp, json: string): string | undefined => {
    if (ending) return undefined;
    let answer: string | undefined;
    try {
      answer = handle(op, parsePayload(json));
    } catch (error) {
      const message = error instanceof Error ? error.message : 'the operation failed';
      if (op === 'crypto' || op === 'external' || op === 'loadLib') answer = hostAnswerError(message);
      else if (warnings.length < MAX_WARNINGS) warnings.push(`the host refused an operation of the runtime (${opName(op)}): ${message}`);
    }
    // Time spent here (hashing, a library's first load) is the run's: past its deadline, it ends.
    // (Only these operations do work of any length here; the others just take note.)
    if ((op === 'crypto' || op === 'external' || op === 'loadLib') && !ending && performance.now() >= deadline) {
      finish({
        end: failure('TIMEOUT_ERROR', `the run passed its ${limits.timeoutMs} ms deadline during host work (${opName(op)}) it asked for`),
        limit: 'timeout',
        discard: true, // the isolate is still inside the call; its own timeout stops it
      });
    }
    return answer;
  };

  /** Starts the async operations the driver queued during a dispatch. */
  const takeQueued = (text: string) => {
    if (ending) return;
    const ops = parsePayload(text);
    if (!Array.isArray(ops)) throw new Error('the runtime answered a dispatch with something other than a list of operations');
    for (const entry of ops) {
      if (!Array.isArray(entry) || entry.length !== 2) throw new Error('the runtime queued a malformed operation');
      const [op, payload] = entry as [unknown, unknown];
      if (op !== 'http' && op !== 'tls' && op !== 'proto' && op !== 'timer' && op !== 'cancel') throw new Error(`unexpected queued operation ${opName(op)}`);
      handle(op, payload);
      if (ending) return;
    }
  };

  const deviceInfo: DeviceInfo = {
    ip: plan.device.ip ?? null,
    host: plan.device.host ?? null,
    username: plan.device.username ?? null,
    password: plan.device.password ?? null,
    serial: plan.device.serial ?? null,
    macAddress: plan.device.macAddress ?? null,
  };
  const config: SandboxConfig = {
    action: plan.action,
    device: deviceInfo,
    parameters: plan.parameters,
    limits: { maxVariables: limits.maxVariables, maxTableRows: limits.maxTableRows, maxLogChars: limits.maxLogChars, maxTimers: limits.maxTimers },
    driverFilename: driver.filename,
  };

  function resultOf({ end, limit }: Ending): RunResult {
    const failed = end.status === 'failure';
    const result: RunResult = {
      status: end.status,
      errorType: end.errorType,
      // Only a failed run's message is looked at: a run that succeeds pays nothing for hints.
      message: failed ? withHint(cutMessage(end.message), driver.source) : cutMessage(end.message),
      variables: end.variables,
      tables: end.tables,
      logs: [...logs],
      warnings: failed ? withLogHints(warnings, logs, end.message) : [...warnings],
      http: [], // filled in by the host thread, which saw the exchanges (RunNetwork.close)
      action: plan.action,
      limitExceeded: limit,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    };
    return withBackup(result, end, plan.action);
  }

  // A Callback reaches the context as a plain function; a Reference would make V8 build
  // isolated-vm's Reference class in every new context (~35-80 us a run).
  const host = detachableHostCall(hostCall);
  const hostFn = new (loadIsolatedVm().ivm).Callback(host.call);
  const refs: Array<{ release(): void }> = [];
  try {
    const problem = findImport(driver.source, driver.filename);
    if (problem) {
      finish({ end: failure(problem.errorType, problem.message), limit: null, discard: false });
    } else {
      let script: ivm.Script | null = null;
      try {
        script = warm.driver(driver.source, driver.filename);
      } catch (error) {
        finish({ end: failure('GENERIC_ERROR', describeSyntaxError(error as Error, driver)), limit: null, discard: false });
      }
      if (script) {
        const ctx = warm.isolate.createContextSync();
        context = ctx;
        refs.push(ctx);
        const ok = enter(() => {
          warm.core.runSync(ctx, { timeout: budgetMs() });
          // Only leaves the driver's function for install to take (host/driver/wrap.ts): no driver code runs here.
          script!.runSync(ctx, { timeout: budgetMs() });
          const install = ctx.global.getSync('__driverboxInstall', { reference: true }) as ivm.Reference;
          refs.push(install);
          dispatchRef = install.applySync(undefined, [hostFn, JSON.stringify(config)], { timeout: budgetMs(), result: { reference: true } }) as ivm.Reference;
          refs.push(dispatchRef);
        });
        if (ok && !ending && dispatchRef) {
          // The runtime runs the driver's top level and then its entry point, inside its own
          // guard: what the driver throws becomes text there, and only text comes back here.
          const ref: ivm.Reference = dispatchRef;
          entryStarted = true;
          enter(() => ref.applySync(undefined, ['run', 0, ''], { timeout: budgetMs() }));
        }
      }
    }
  } catch (error) {
    finish(limitEnding(error));
  }

  const final = await settled;
  // isolated-vm keeps the Callback's function alive for as long as it likes (for good, when the
  // isolate is disposed); cut it loose from this run so it does not keep the run's state too.
  host.detach();
  if (!final.discard) {
    for (const ref of refs.reverse()) {
      try {
        ref.release();
      } catch {
        // already released with its isolate
      }
    }
  }
  return { discard: final.discard, result: resultOf(final) };
}
