// startSandboxProcess: a RunExecutor whose runs execute in a forked child holding the isolate
// pool, so that a catastrophic isolate error kills that child and not the agent or the API.
// The parent side supervises it: runs in flight when it dies end as failed results naming the
// exit code or signal, it is restarted (with backoff when it keeps dying), and runs not yet
// sent wait for the new child. Only maxInFlight runs are sent at once, so a crash loses no
// more. A run that overstays its deadline plus overstayMarginMs means the child is wedged (a
// spinning or stopped thread the in-process watchdog could not end): the child is killed,
// that run ends with TIMEOUT_ERROR and the child is restarted.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { DriverboxError, type DriverboxErrorCode } from '../../contract/errors.js';
import { resolveLimits } from '../../contract/limits.js';
import type { RunRequest } from '../../contract/run-request.js';
import type { RunResult } from '../../contract/run-result.js';
import type { PoolStats } from '../figures.js';
import type { SandboxEvents, SandboxProcess, SandboxProcessStats, SandboxState } from './api.js';
import { RestartBackoff } from './backoff.js';
import { lostRunResult, overstayRunResult } from './crash-result.js';
import { sandboxEntryPath } from './entry-path.js';
import { forkChild, type Child } from './forked-child.js';
import { resolveOptions, type ResolvedOptions, type SandboxProcessOptions } from './options.js';
import { assertSendable } from './plain-data.js';
import type { FromChild, SandboxProcessMemory, ToChild } from './protocol.js';
import { residentMemoryBytes } from './resident-memory.js';
import { checkReturnedState } from './returned-state.js';

interface PendingRun {
  id: number;
  request: RunRequest;
  resolve(result: RunResult): void;
  reject(error: Error): void;
  sentAt: number;
  /** The run's deadline, ms (its limits over the host's); the overstay watchdog adds the margin. */
  timeoutMs: number;
  /** Fires at sentAt + timeoutMs + margin: the child is wedged. */
  watchdog: NodeJS.Timeout | null;
  /** Set when this run is the one that overstayed: it ends with TIMEOUT_ERROR. */
  overstayed: boolean;
}

/** setTimeout fires at once past this (about 24.8 days): a longer deadline is watched up to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long memory() waits for the child's answer, ms (it is asked between runs' messages). */
const MEMORY_ANSWER_MS = 5_000;
/** After close() sends 'close', how long the child may take to close its host and exit, ms. */
const EXIT_WAIT_MS = 5_000;

function describeRun(request: RunRequest): string {
  return request?.path ?? request?.filename ?? 'an inline driver';
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

class SupervisedSandbox extends EventEmitter<SandboxEvents> implements SandboxProcess {
  readonly #options: ResolvedOptions;
  #overstayKills = 0;
  #lastKill: { reason: string; at: string } | null = null;
  readonly #backoff: RestartBackoff;
  readonly #entry: string;
  readonly #queue: PendingRun[] = [];
  readonly #inFlight = new Map<number, PendingRun>();
  #child: Child | null = null;
  #state: SandboxState = 'starting';
  #nextId = 1;
  #restarts = 0;
  #lostRuns = 0;
  #pool: PoolStats | null = null;
  /** memory() questions awaiting the child's answer, by id: answered null when the child goes. */
  readonly #memoryAsked = new Map<number, (memory: SandboxProcessMemory | null) => void>();
  #memoryIds = 0;
  #restartTimer: NodeJS.Timeout | null = null;
  #closing: Promise<void> | null = null;
  /** Wakes close() when the last accepted run is answered, or the child is gone. */
  #onIdle: (() => void) | null = null;
  #onChildGone: (() => void) | null = null;
  /** The first child: startSandboxProcess resolves once it is ready, or rejects with why it is not. */
  readonly started: Promise<void>;
  #startSettled = false;
  #startResolve!: () => void;
  #startReject!: (error: Error) => void;

  constructor(options: SandboxProcessOptions) {
    super();
    const { resolved, restart } = resolveOptions(options);
    this.#options = resolved;
    this.#backoff = new RestartBackoff(restart);
    this.#entry = sandboxEntryPath();
    this.started = new Promise<void>((resolve, reject) => {
      this.#startResolve = resolve;
      this.#startReject = reject;
    });
    this.#spawn();
  }

  run(request: RunRequest): Promise<RunResult> {
    if (this.#state === 'closing' || this.#state === 'closed') {
      return Promise.reject(new DriverboxError('HOST_CLOSED', 'the sandbox process is closed'));
    }
    try {
      assertSendable(request, 'request', `run of ${describeRun(request)}`);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<RunResult>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, request, resolve, reject, sentAt: 0, timeoutMs: this.#deadlineOf(request), watchdog: null, overstayed: false });
      this.#pump();
    });
  }

  stats(): SandboxProcessStats {
    const child = this.#child;
    return {
      pid: child?.pid ?? null,
      state: this.#state,
      restarts: this.#restarts,
      inFlight: this.#inFlight.size,
      queued: this.#queue.length,
      uptimeMs: child?.ready ? Math.round(performance.now() - child.readyAt) : 0,
      lostRuns: this.#lostRuns,
      pool: this.#pool,
      rssBytes: child?.pid ? residentMemoryBytes(child.pid) : null,
      overstayKills: this.#overstayKills,
      lastKill: this.#lastKill,
    };
  }

  memory(): Promise<SandboxProcessMemory | null> {
    const child = this.#child;
    if (!child?.ready || child.killedBecause !== null) return Promise.resolve(null);
    const id = ++this.#memoryIds;
    return new Promise((resolve) => {
      const timer = setTimeout(() => answer(null), MEMORY_ANSWER_MS);
      const answer = (memory: SandboxProcessMemory | null) => {
        clearTimeout(timer);
        this.#memoryAsked.delete(id);
        resolve(memory);
      };
      this.#memoryAsked.set(id, answer);
      this.#send(child, { t: 'memory', id });
    });
  }

  /** The run's deadline as the child's host will resolve it; the default one when its limits are bad (the child refuses them at once). */
  #deadlineOf(request: RunRequest): number {
    try {
      return resolveLimits(this.#options.host.limits, request.limits).timeoutMs;
    } catch {
      return resolveLimits().timeoutMs;
    }
  }

  /** Arms the run's overstay watchdog when it is sent to the child. */
  #watch(child: Child, run: PendingRun): void {
    const margin = this.#options.overstayMarginMs;
    run.watchdog = setTimeout(() => {
      run.watchdog = null;
      if (this.#child !== child || !this.#inFlight.has(run.id)) return;
      run.overstayed = true;
      // Others past their own deadline + margin by now are stuck in the same child: they time out too.
      const now = performance.now();
      for (const other of this.#inFlight.values()) if (now - other.sentAt >= other.timeoutMs + margin) other.overstayed = true;
      child.overstay = true;
      this.#kill(child, `a run of ${describeRun(run.request)} overstayed its deadline of ${run.timeoutMs} ms by more than ${margin} ms (the process was wedged)`);
    }, Math.min(run.timeoutMs + margin, MAX_TIMER_MS));
    run.watchdog.unref();
  }

  #unwatch(run: PendingRun): void {
    if (run.watchdog) clearTimeout(run.watchdog);
    run.watchdog = null;
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#state = 'closing';
    if (this.#restartTimer) {
      clearTimeout(this.#restartTimer);
      this.#restartTimer = null;
    }
    const child = this.#child;
    if (child?.ready) {
      // Drain: what was accepted still runs, within the grace.
      await this.#waitFor((wake) => (this.#onIdle = wake), () => this.#inFlight.size === 0 && this.#queue.length === 0, this.#options.closeGraceMs);
      this.#onIdle = null;
    }
    this.#rejectQueued('the sandbox process was closed before this run started');
    if (this.#child) {
      const current = this.#child;
      if (this.#inFlight.size > 0) {
        this.#kill(current, `close() stopped it after its grace of ${this.#options.closeGraceMs} ms`);
      } else {
        this.#send(current, { t: 'close' });
      }
      const exited = await this.#waitFor((wake) => (this.#onChildGone = wake), () => this.#child !== current, EXIT_WAIT_MS);
      if (!exited) this.#kill(current, 'it did not exit after close()');
      await this.#waitFor((wake) => (this.#onChildGone = wake), () => this.#child !== current, EXIT_WAIT_MS);
      this.#onChildGone = null;
    }
    this.#state = 'closed';
    if (!this.#startSettled) this.#settleStart(new DriverboxError('HOST_CLOSED', 'the sandbox process was closed before it was ready'));
  }

  /** Resolves true once done() holds (checked whenever `register`'s wake-up is called), false after timeoutMs. */
  #waitFor(register: (wake: () => void) => void, done: () => boolean, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (done()) return resolve(true);
      const timer = setTimeout(() => resolve(false), timeoutMs);
      register(() => {
        if (!done()) return;
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  #spawn(delayMs = 0, previousPid: number | null = null): void {
    const state = forkChild(this.#entry, this.#options.execArgv);
    const child = state.process;
    this.#child = state;
    this.#state = this.#restarts === 0 && previousPid === null ? 'starting' : 'restarting';
    child.on('message', (message: FromChild) => this.#onMessage(state, message, delayMs, previousPid));
    child.on('error', (error) => this.#kill(state, `its IPC channel failed (${error.message})`));
    // The channel is gone but the process may linger: without it no result can come back.
    child.on('disconnect', () => {
      // (While closing, the child disconnects itself on its way out: close() waits for its exit.)
      if (this.#child === state && this.#state !== 'closing' && child.exitCode === null && child.signalCode === null) this.#kill(state, null);
    });
    child.on('close', (code, signal) => this.#onExit(state, code, signal));
    if (child.pid === undefined) this.#kill(state, 'it could not be started');
    else this.#send(state, { t: 'init', host: this.#options.host });
  }

  #onMessage(child: Child, message: FromChild, delayMs: number, previousPid: number | null): void {
    if (this.#child !== child) return;
    switch (message.t) {
      case 'ready':
        child.ready = true;
        child.readyAt = performance.now();
        if (this.#state !== 'closing') this.#state = 'ready';
        if (previousPid === null) this.#settleStart(null);
        else this.emit('restart', { pid: child.pid, previousPid, restarts: this.#restarts, delayMs });
        this.#pump();
        return;
      case 'init-failed':
        child.initError = message.error;
        return;
      case 'memory':
        this.#memoryAsked.get(message.id)?.(message.memory);
        return;
      case 'result':
      case 'error': {
        this.#pool = message.pool;
        const run = this.#inFlight.get(message.id);
        if (!run) return;
        this.#inFlight.delete(message.id);
        this.#unwatch(run);
        if (message.t === 'result') run.resolve(checkReturnedState(run.request, message.result));
        else run.reject(new DriverboxError((message.error.code ?? 'SANDBOX_FAILED') as DriverboxErrorCode, message.error.message));
        this.#pump();
        this.#onIdle?.();
        return;
      }
    }
  }

  /** Sends queued runs while the child is ready and below maxInFlight. */
  #pump(): void {
    const child = this.#child;
    if (!child?.ready || child.killedBecause !== null) return;
    while (this.#queue.length > 0 && this.#inFlight.size < this.#options.maxInFlight) {
      const run = this.#queue.shift()!;
      run.sentAt = performance.now();
      this.#inFlight.set(run.id, run);
      this.#watch(child, run);
      if (!this.#send(child, { t: 'run', id: run.id, request: run.request }, run)) return;
    }
  }

  /** False when the message could not be sent; a run it carried is answered, the child killed when the channel failed. */
  #send(child: Child, message: ToChild, run?: PendingRun): boolean {
    try {
      child.process.send(message, (error) => {
        if (error) this.#kill(child, `sending to it failed (${error.message})`);
      });
      return true;
    } catch (error) {
      // The serializer refused this value (assertSendable missed a kind): only this run fails.
      if (run && error instanceof Error && error.name === 'DataCloneError') {
        this.#inFlight.delete(run.id);
        this.#unwatch(run);
        run.reject(new DriverboxError('INVALID_OPTIONS', `run of ${describeRun(run.request)}: ${error.message}; only plain data can be sent to the sandbox process`));
        return true;
      }
      if (run) {
        // Never sent: it goes to the next child with the rest of the queue.
        this.#inFlight.delete(run.id);
        this.#unwatch(run);
        this.#queue.unshift(run);
      }
      this.#kill(child, `sending to it failed (${error instanceof Error ? error.message : String(error)})`);
      return false;
    }
  }

  #kill(child: Child, reason: string | null): void {
    if (child.killedBecause === null && reason !== null) {
      child.killedBecause = reason;
      if (child.overstay) this.#overstayKills++;
      this.#lastKill = { reason: `pid ${child.pid}: ${reason}`, at: new Date().toISOString() };
    }
    child.process.kill('SIGKILL');
  }

  #onExit(child: Child, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#child !== child) return;
    this.#child = null;
    const expected = this.#state === 'closing' && child.killedBecause === null;
    const how = child.killedBecause ? `was killed because ${child.killedBecause}` : describeExit(code, signal);
    const output = child.stderrTail.trim() ? `; its last output: ${JSON.stringify(child.stderrTail.trim().slice(-300))}` : '';
    const closing = this.#state === 'closing';
    const next = closing ? 'it was not restarted: the sandbox process is closing' : 'the sandbox process was restarted and the run was not retried';
    const lost = [...this.#inFlight.values()];
    this.#inFlight.clear();
    const now = performance.now();
    for (const run of lost) {
      this.#unwatch(run);
      if (run.overstayed) {
        run.resolve(overstayRunResult(run.request, `the run did not end within its deadline of ${run.timeoutMs} ms plus ${this.#options.overstayMarginMs} ms: the sandbox process (pid ${child.pid}) was wedged and was killed; ${next}`, now - run.sentAt));
      } else {
        run.resolve(lostRunResult(run.request, `the sandbox process (pid ${child.pid}) ${how} while this run was in flight; ${next}${output}`, now - run.sentAt));
      }
    }
    this.#lostRuns += lost.length;
    for (const answer of [...this.#memoryAsked.values()]) answer(null);
    this.emit('exit', { pid: child.pid, code, signal, expected, lostRuns: lost.length, killedBecause: child.killedBecause, overstay: child.overstay });
    this.#onChildGone?.();
    this.#onIdle?.();
    if (!child.ready && !this.#startSettled) {
      // The first child never got ready: bad options, a missing flag or build; restarting will not help.
      const error = child.initError
        ? new DriverboxError((child.initError.code ?? 'SANDBOX_FAILED') as DriverboxErrorCode, child.initError.message)
        : new DriverboxError('SANDBOX_FAILED', `the sandbox process (pid ${child.pid}) ${how} before it was ready${output}`);
      this.#state = 'closed';
      this.#rejectQueued(error.message);
      this.#settleStart(error);
      return;
    }
    if (closing) return;
    this.#state = 'restarting';
    const delayMs = this.#backoff.next(child.ready ? now - child.readyAt : 0);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      this.#restarts++;
      this.#spawn(delayMs, child.pid);
    }, delayMs);
  }

  #rejectQueued(message: string): void {
    for (const run of this.#queue.splice(0)) run.reject(new DriverboxError('HOST_CLOSED', message));
  }

  #settleStart(error: Error | null): void {
    this.#startSettled = true;
    if (error) this.#startReject(error);
    else this.#startResolve();
  }
}

/**
 * Forks the sandbox process and resolves once its host is ready. Rejects with the child's own
 * error when createHost fails there (bad host options: INVALID_OPTIONS, …).
 */
export async function startSandboxProcess(options: SandboxProcessOptions = {}): Promise<SandboxProcess> {
  const sandbox = new SupervisedSandbox(options);
  await sandbox.started;
  return sandbox;
}
