// Executes one driver run in a borrowed isolate, on a sandbox thread: a fresh context, the
// runtime bundle, the driver, its entry point, then every callback as its answer comes,
// until the driver ends the run, a limit ends it, or nothing is left that could ever end it.
// Calls into the isolate are synchronous: this thread exists to run them, and a thread
// hand-off per call would cost more than the driver's own code.
import type ivm from 'isolated-vm';
import { MIN_INTERVAL_MS } from '../../../runtime/constants.js';
import type { HostOp, LogMessage, RunEnd } from '../../../runtime/protocol.js';
import { CryptoSession } from '../../crypto/index.js';
import type { RunLimits } from '../../contract/limits.js';
import type { RunResult } from '../../contract/run-result.js';
import { findImport } from '../../driver/checks.js';
import { loadIsolatedVm } from '../../platform/isolated-vm.js';
import { checkLog, checkRunEnd, cutMessage } from './check-report.js';
import { checkCancel, checkCryptoCall, checkExternalCall, checkLibName, checkLogDropped, checkNetworkCall, checkProtocolCall, checkTimer, hostAnswerError, parsePayload } from './host-payloads.js';
import { withHint, withLogHints } from './missing-hints.js';
import { describeSyntaxError, failure, isSandboxLimit, limitEnding, withBackup, type Ending } from './run-ending.js';
import { sandboxConfig, type NetworkCall, type NetworkOp, type RunOutcome, type RunPlan, type SandboxNetwork } from './run-plan.js';
import type { WarmIsolate } from './warm-isolate.js';

const MAX_WARNINGS = 200;

/** An operation's name for a message, whatever the runtime was made to send as one. */
const opName = (op: unknown): string => (typeof op === 'string' ? JSON.stringify(op.slice(0, 20)) : `of type ${op === null ? 'null' : typeof op}`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Wraps each synchronous call into the isolate (a sandbox thread marks it busy: threads/busy-slot.ts). */
export type IsolateCallWrapper = <T>(call: () => T) => T;

/**
 * The function the isolate calls, as a forwarder made outside the run's scope. isolated-vm
 * holds a global handle on a Callback's function that a disposed isolate never gives back;
 * holding the run itself there kept every discarded run's state (~5 KB) forever.
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

/** One run's steps and state: made for the run, used once (run()). */
export class RunSteps {
  readonly #warm: WarmIsolate;
  readonly #plan: RunPlan;
  readonly #network: SandboxNetwork;
  readonly #limits: RunLimits;
  readonly #inIsolate: IsolateCallWrapper;
  /** When the run began and its deadline, on this thread's performance.now() clock. */
  readonly #started: number;
  readonly #deadline: number;
  readonly #cpuStart: bigint;
  readonly #logs: LogMessage[] = [];
  readonly #warnings: string[] = [];
  readonly #crypto: CryptoSession;
  /** The driver's operations awaiting an answer (requests, timers), each with how to cancel it. */
  readonly #pending = new Map<number, () => void>();
  #logChars = 0;
  /** What the console dropped past the log limit, as the runtime last counted it (null: the limit was not reached). */
  #logDropped: { lines: number; chars: number; final: boolean } | null = null;
  #timersStarted = 0;
  #lateTimerWarned = false;
  /** Before the entry point is called, an empty queue means nothing. */
  #entryStarted = false;
  /** What the driver ended the run with (D.success / D.failure), once it has. */
  #reported: RunEnd | null = null;
  #ending: Ending | null = null;
  #context: ivm.Context | null = null;
  #dispatchRef: ivm.Reference | null = null;
  /** What the run holds in the isolate, released when the isolate serves on. */
  readonly #refs: Array<{ release(): void }> = [];
  readonly #deadlineTimer: NodeJS.Timeout;
  #settle!: (ending: Ending) => void;
  readonly #settled = new Promise<Ending>((resolve) => (this.#settle = resolve));

  constructor(warm: WarmIsolate, plan: RunPlan, network: SandboxNetwork, inIsolate: IsolateCallWrapper = (call) => call()) {
    this.#warm = warm;
    this.#plan = plan;
    this.#network = network;
    this.#limits = plan.limits;
    this.#inIsolate = inIsolate;
    const now = performance.now();
    this.#started = plan.startedAt === undefined ? now : Math.min(now, plan.startedAt - performance.timeOrigin);
    this.#deadline = this.#started + this.#limits.timeoutMs;
    this.#cpuStart = warm.isolate.cpuTime;
    // A pbkdf2 that would outlast the run is refused before it starts: host work holds this thread.
    this.#crypto = new CryptoSession({ timeLeftMs: () => this.#deadline - performance.now() });
    // Fires only between calls (a call in progress keeps this thread): the driver is waiting on
    // I/O or timers. A call that runs into the deadline is stopped by its own timeout instead.
    this.#deadlineTimer = setTimeout(() => this.#timeUp(), Math.max(0, this.#deadline - now));
  }

  /** The run: load the driver into a fresh context, call its entry point, wait for its end, let go of the isolate. */
  async run(): Promise<RunOutcome> {
    // A Callback reaches the context as a plain function; a Reference would make V8 build
    // isolated-vm's Reference class in every new context (~35-80 us a run).
    const host = detachableHostCall((op, json) => this.#hostCall(op, json));
    const hostFn = new (loadIsolatedVm().ivm).Callback(host.call);
    try {
      if (this.#load(hostFn)) this.#callEntry();
    } catch (error) {
      this.#finish(this.#limitEnding(error));
    }
    const final = await this.#settled;
    // isolated-vm keeps the Callback's function alive for as long as it likes (for good, when the
    // isolate is disposed); cut it loose from this run so it does not keep the run's state too.
    host.detach();
    if (!final.discard) this.#release();
    return { discard: final.discard, result: this.#resultOf(final) };
  }

  /**
   * Checks the driver's imports, compiles it, and installs the runtime and the driver in a fresh
   * context: true when its entry point may be called, false when the run ended instead.
   */
  #load(hostFn: ivm.Callback): boolean {
    const { driver } = this.#plan;
    const problem = findImport(driver.source, driver.filename);
    if (problem) {
      this.#finish({ end: failure(problem.errorType, problem.message), limit: null, discard: false });
      return false;
    }
    let script: ivm.Script;
    try {
      script = this.#warm.driver(driver.source, driver.filename);
    } catch (error) {
      this.#finish({ end: failure('GENERIC_ERROR', describeSyntaxError(error as Error, driver)), limit: null, discard: false });
      return false;
    }
    const ctx = this.#warm.isolate.createContextSync();
    this.#context = ctx;
    this.#refs.push(ctx);
    const ok = this.#enter(() => {
      this.#warm.core.runSync(ctx, { timeout: this.#budgetMs() });
      // Only leaves the driver's function for install to take (host/driver/wrap.ts): no driver code runs here.
      script.runSync(ctx, { timeout: this.#budgetMs() });
      const install = ctx.global.getSync('__driverboxInstall', { reference: true }) as ivm.Reference;
      this.#refs.push(install);
      const dispatch = install.applySync(undefined, [hostFn, JSON.stringify(sandboxConfig(this.#plan))], { timeout: this.#budgetMs(), result: { reference: true } }) as ivm.Reference;
      this.#dispatchRef = dispatch;
      this.#refs.push(dispatch);
    });
    return ok && !this.#ending && this.#dispatchRef !== null;
  }

  /**
   * The runtime runs the driver's top level and then its entry point, inside its own guard:
   * what the driver throws becomes text there, and only text comes back here.
   */
  #callEntry(): void {
    const ref = this.#dispatchRef!;
    this.#entryStarted = true;
    this.#enter(() => ref.applySync(undefined, ['run', 0, ''], { timeout: this.#budgetMs() }));
  }

  /** After a run that did not hit a limit, what it held in the isolate goes (the isolate serves on). */
  #release(): void {
    for (const ref of this.#refs.reverse()) {
      try {
        ref.release();
      } catch {
        // already released with its isolate
      }
    }
  }

  #cpuUsedMs(): number {
    const isolate = this.#warm.isolate;
    return Number(isolate.isDisposed ? 0n : isolate.cpuTime - this.#cpuStart) / 1e6;
  }

  /** What the next call into the isolate may take: the time to the deadline or the CPU left, whichever is less. */
  #budgetMs(): number {
    return Math.max(1, Math.ceil(Math.min(this.#deadline - performance.now(), this.#limits.cpuTimeMs - this.#cpuUsedMs())));
  }

  #finish(next: Ending): void {
    if (this.#ending) return;
    this.#ending = next;
    clearTimeout(this.#deadlineTimer);
    this.#network.close();
    for (const cancel of this.#pending.values()) cancel();
    this.#pending.clear();
    this.#settle(next);
  }

  #timeUp(): void {
    this.#finish({
      end: failure('TIMEOUT_ERROR', `the driver did not call D.success or D.failure within the ${this.#limits.timeoutMs} ms deadline`),
      limit: 'timeout',
      discard: false,
    });
  }

  #limitEnding(error: unknown): Ending {
    return limitEnding(error, this.#warm.isolate.isDisposed, () => this.#cpuUsedMs(), this.#limits, this.#plan.driver.filename);
  }

  /** After each call into the isolate: has the run ended, or can it never end? */
  #checkpoint(): void {
    if (this.#ending) return;
    const limits = this.#limits;
    if (this.#cpuUsedMs() > limits.cpuTimeMs) {
      this.#finish({ end: failure('TIMEOUT_ERROR', `the driver used more than its CPU time limit of ${limits.cpuTimeMs} ms`), limit: 'cpu', discard: true });
    } else if (this.#reported) {
      this.#finish({ end: this.#reported, limit: null, discard: false });
    } else if (this.#entryStarted && this.#pending.size === 0) {
      this.#finish({
        end: failure(
          'TIMEOUT_ERROR',
          `${this.#plan.action}() returned without calling D.success or D.failure, and no request or timer is pending: ` +
            `the run could never end (it would time out after ${limits.timeoutMs} ms)`,
        ),
        limit: null,
        discard: false,
      });
    }
  }

  /** Every entry into the isolate goes through here: timed, counted, and classified on error. */
  #enter(call: () => unknown): boolean {
    if (this.#ending) return false;
    // This thread may have been busy with other runs past the deadline (before the run began, or
    // while an answer waited behind them, ahead of the deadline timer): too late all the same.
    if (performance.now() >= this.#deadline) {
      this.#timeUp();
      return false;
    }
    const calledAt = performance.now();
    const allowedMs = this.#budgetMs(); // what the call's own timeout is (it computes the same just after)
    let queued: unknown;
    try {
      queued = this.#inIsolate(call); // marked, so the host places new runs on another thread meanwhile
    } catch (error) {
      if (!this.#ending) {
        const limit = isSandboxLimit(error, this.#warm.isolate.isDisposed, performance.now() - calledAt >= allowedMs - 1);
        if (this.#reported) {
          // e.g. require() threw after ending the run, or its code went on until stopped
          if (limit) this.#warnings.push(`the driver's code was still running after it ended the run, until its time limit; it was stopped`);
          this.#finish({ end: this.#reported, limit: null, discard: limit });
        } else {
          this.#finish(this.#limitEnding(error));
        }
      }
      return false;
    }
    // Run and answer calls return the operations the driver queued meanwhile (DispatchKind).
    try {
      if (typeof queued === 'string') this.#takeQueued(queued);
    } catch (error) {
      // The runtime's text was malformed (a driver broke it): this run only ends.
      const message = error instanceof Error ? error.message : 'malformed';
      this.#finish({ end: failure('GENERIC_ERROR', `the driver broke the runtime's operations (${message.slice(0, 200)})`), limit: null, discard: true });
      return false;
    }
    this.#checkpoint();
    return true;
  }

  /** Hands the answer (JSON text) of an async operation to the driver's callback. */
  #deliver(id: number, json: string): void {
    if (this.#ending || !this.#pending.delete(id) || !this.#dispatchRef) return;
    const ref = this.#dispatchRef;
    this.#enter(() => ref.applySync(undefined, ['done', id, json], { timeout: this.#budgetMs() }));
  }

  /**
   * The one function the runtime may call. It runs on this thread while the isolate waits, and
   * never throws: an error thrown into the isolate would carry this thread's stack (install
   * paths) to the driver. A refused operation answers {ok:false} where the runtime awaits an
   * answer (crypto, external, loadLib), and is dropped with a warning elsewhere.
   */
  #hostCall(op: HostOp, json: string): string | undefined {
    if (this.#ending) return undefined;
    let answer: string | undefined;
    try {
      answer = this.#handle(op, parsePayload(json));
    } catch (error) {
      const message = error instanceof Error ? error.message : 'the operation failed';
      if (op === 'crypto' || op === 'external' || op === 'loadLib') answer = hostAnswerError(message);
      else if (this.#warnings.length < MAX_WARNINGS) this.#warnings.push(`the host refused an operation of the runtime (${opName(op)}): ${message}`);
    }
    // Time spent here (hashing, a library's first load; the others only take note) is the run's: past its deadline, it ends.
    if ((op === 'crypto' || op === 'external' || op === 'loadLib') && !this.#ending && performance.now() >= this.#deadline) {
      this.#finish({
        end: failure('TIMEOUT_ERROR', `the run passed its ${this.#limits.timeoutMs} ms deadline during host work (${opName(op)}) it asked for`),
        limit: 'timeout',
        discard: true, // the isolate is still inside the call; its own timeout stops it
      });
    }
    return answer;
  }

  /** Starts the async operations the driver queued during a dispatch. */
  #takeQueued(text: string): void {
    if (this.#ending) return;
    const ops = parsePayload(text);
    if (!Array.isArray(ops)) throw new Error('the runtime answered a dispatch with something other than a list of operations');
    for (const entry of ops) {
      if (!Array.isArray(entry) || entry.length !== 2) throw new Error('the runtime queued a malformed operation');
      const [op, payload] = entry as [unknown, unknown];
      if (op !== 'http' && op !== 'tls' && op !== 'proto' && op !== 'timer' && op !== 'cancel') throw new Error(`unexpected queued operation ${opName(op)}`);
      this.#handle(op, payload);
      if (this.#ending) return;
    }
  }

  // Every operation of the runtime: a synchronous host call (hostCall), or queued during a dispatch.
  // The payload is whatever the runtime was made to send (it runs in the driver's context): each
  // is checked here before use, and a bad one is refused, never cast.
  #handle(op: HostOp, payload: unknown): string | undefined {
    if (this.#ending) return undefined;
    switch (op) {
      case 'log': {
        const entry = checkLog(payload);
        this.#logChars += entry.message.length;
        if (this.#logChars <= this.#limits.maxLogChars + 1_000) this.#logs.push(entry);
        return undefined;
      }
      case 'logDropped':
        this.#logDropped = checkLogDropped(payload);
        return undefined;
      case 'warn':
        if (this.#warnings.length < MAX_WARNINGS) this.#warnings.push(typeof payload === 'string' ? cutMessage(payload)! : 'the runtime sent a warning that is not text');
        return undefined;
      case 'end':
        return this.#end(payload);
      case 'loadLib': {
        const name = checkLibName(payload);
        if (!this.#context) return hostAnswerError('the run has no context');
        // The library's own top level: it sets its exports and completes with undefined (an IIFE).
        this.#warm.lib(name).runSync(this.#context, { timeout: this.#budgetMs() });
        return '{"ok":true}';
      }
      case 'crypto':
        return JSON.stringify(this.#crypto.call(checkCryptoCall(payload)));
      case 'external':
        return JSON.stringify({ ok: true, target: this.#network.external(checkExternalCall(payload)) });
      case 'http':
      case 'tls':
      case 'proto':
        return this.#startNetwork(op, payload);
      case 'timer':
        return this.#startTimer(payload);
      case 'cancel': {
        const { id } = checkCancel(payload);
        this.#pending.get(id)?.();
        this.#pending.delete(id);
        return undefined;
      }
      default:
        throw new Error(`unknown operation ${opName(op)}`);
    }
  }

  /** D.success / D.failure: the first report stands, checked; the host gets the outcome now. */
  #end(payload: unknown): undefined {
    if (!this.#reported) {
      const checked = checkRunEnd(payload, this.#limits);
      this.#reported =
        typeof checked === 'string'
          ? failure('GENERIC_ERROR', `the run's report to the host was refused (did the driver replace JSON or define toJSON?): ${checked}`)
          : checked;
    }
    // Always from inside a call, which may yet go on: the host gets the outcome now.
    this.#network.reported(this.#resultOf({ end: this.#reported, limit: null, discard: false }));
    return undefined;
  }

  /** An HTTP exchange, TLS read or protocol call: handed to the run's network, answered as it comes. */
  #startNetwork(op: NetworkOp, payload: unknown): undefined {
    const call = op === 'proto' ? checkProtocolCall(payload) : checkNetworkCall(payload);
    if (typeof call === 'string') {
      // Answered as a failed request, after this call: the driver's callback runs as for any other answer.
      const id = isRecord(payload) && Number.isSafeInteger(payload.id) ? (payload.id as number) : null;
      if (id !== null) {
        this.#pending.set(id, () => {});
        setImmediate(() => this.#deliver(id, JSON.stringify({ error: { code: 'INVALID_OPTIONS', message: call }, response: null })));
      }
      return undefined;
    }
    this.#pending.set(call.id, () => {});
    this.#network.start(op, call as NetworkCall, (json) => this.#deliver(call.id, json));
    return undefined;
  }

  /** A timer (setTimeout, setInterval's next beat): fires on this thread's loop, unless it is due after the deadline. */
  #startTimer(payload: unknown): undefined {
    const { id, ms, again } = checkTimer(payload);
    const limits = this.#limits;
    // The runtime refuses timers past maxTimers and re-arms intervals at MIN_INTERVAL_MS or more; this holds if its state was broken.
    if (again ? ms < MIN_INTERVAL_MS : ++this.#timersStarted > limits.maxTimers) {
      throw new Error(again ? `an interval re-armed at ${ms} ms (the least is ${MIN_INTERVAL_MS} ms)` : `more than maxTimers (${limits.maxTimers}) timers`);
    }
    // A timer due after the deadline can never fire in this run: it only keeps the run waiting.
    if (ms >= this.#deadline - performance.now()) {
      if (!this.#lateTimerWarned && this.#warnings.length < MAX_WARNINGS) {
        this.#lateTimerWarned = true;
        this.#warnings.push(`a timer of ${ms} ms is due after the run's ${limits.timeoutMs} ms deadline: it never fires (the run ends at its deadline unless the driver ends it first)`);
      }
      this.#pending.set(id, () => {});
    } else if (ms === 0) {
      // 0 ms: the next turn of this thread's loop, not Node's 1 ms timer floor (a chain of
      // setTimeout(fn, 0) is bounded by maxTimers, and an interval by its 10 ms clamp).
      const immediate = setImmediate(() => this.#deliver(id, 'null'));
      this.#pending.set(id, () => clearImmediate(immediate));
    } else {
      const timer = setTimeout(() => this.#deliver(id, 'null'), ms);
      this.#pending.set(id, () => clearTimeout(timer));
    }
    return undefined;
  }

  /** The run's warnings, and the log limit's with what it dropped: "at least" when the run ended before the runtime's last count. */
  #warningsWithLogLimit(): string[] {
    const warnings = [...this.#warnings];
    const dropped = this.#logDropped;
    if (dropped) {
      const atLeast = dropped.final ? '' : 'at least ';
      const lines = `${atLeast}${dropped.lines} later line${dropped.lines === 1 ? '' : 's'}`;
      warnings.push(`log limit of ${this.#limits.maxLogChars} characters reached: ${lines} and ${atLeast}${dropped.chars} characters of console output were dropped`);
    }
    return warnings;
  }

  #resultOf({ end, limit }: Ending): RunResult {
    const { driver, action } = this.#plan;
    const failed = end.status === 'failure';
    const result: RunResult = {
      status: end.status,
      errorType: end.errorType,
      // Only a failed run's message is looked at: a run that succeeds pays nothing for hints.
      message: failed ? withHint(cutMessage(end.message), driver.source) : cutMessage(end.message),
      variables: end.variables,
      tables: end.tables,
      logs: [...this.#logs],
      warnings: failed ? withLogHints(this.#warningsWithLogLimit(), this.#logs, end.message) : this.#warningsWithLogLimit(),
      http: [], // filled in by the host thread, which saw the exchanges (RunNetwork.close)
      action,
      limitExceeded: limit,
      durationMs: Math.round((performance.now() - this.#started) * 100) / 100,
    };
    return withBackup(result, end, action);
  }
}
