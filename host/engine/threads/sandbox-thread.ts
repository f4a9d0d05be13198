// One sandbox thread seen from the host thread: starts its worker, hands it runs, answers its
// synchronous questions (a run's policy, D.createExternalDevice), serves the network calls of
// its runs whose network is here (RunNetwork: record, replay, deviceState), watches its report
// slot and its runs' deadlines, and brings back results.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { DriverboxError } from '../../contract/errors.js';
import type { PoolOptions, PoolStats, SandboxMemory } from '../figures.js';
import type { RunPlan } from '../isolate/run-plan.js';
import { locateRuntimeDir } from '../isolate/runtime-bundle.js';
import { closeNetwork, failedResult, finalResult, type ActiveRun } from './active-run.js';
import { BusySlot, createBusySlot } from './busy-slot.js';
import { answerText, dispatchNetworkCall } from './network-dispatch.js';
import { createReportSlot, ReportSlot, sharedClock as clock } from './report-slot.js';
import type { FromThread, SyncReply, ThreadConfig, ThreadNetworkConfig, ThreadReport, ToThread } from './thread-protocol.js';
import { threadModule } from './thread-module.js';

/** After D.success/D.failure, how long the driver's code may go on before the host answers without it. */
const END_GRACE_MS = 1_000;
/** How often the host looks at a busy thread's report slot (report-slot.ts): well within the grace. */
const REPORT_CHECK_MS = 200;
/**
 * How long past its deadline a run may go unanswered before the watchdog steps in. Every call
 * into an isolate is bounded by its run's deadline, so a sandbox thread whose runs are all this
 * far past theirs is stuck outside any limit (in native code, or a fault).
 */
export const WATCHDOG_MARGIN_MS = 2_000;
/**
 * A thread inside one call into an isolate for this long is held (a driver spinning, or computing
 * at length): new runs go to a thread that is not, while one has room. Short, since a run placed
 * behind a spinning call waits until that call's deadline; a call this long is rare in a driver
 * that waits on its device, and a wrong guess only places a run on another thread.
 */
export const HELD_AFTER_MS = 20;

export const EMPTY_STATS: PoolStats = { alive: 0, idle: 0, busy: 0, waiting: 0, created: 0, disposed: 0 };

/** Lets a thread's runs finish, then has it dispose its isolates and exit. */
export async function endWhenIdle(thread: SandboxThread): Promise<void> {
  await thread.idle();
  thread.worker.ref(); // the process waits for the thread to end
  thread.post({ t: 'close' }); // the thread disposes its isolates, sends its last counts and exits
  await thread.exited;
}

/** One sandbox thread, as the host thread sees it: its runs, its shared slots, its messages. */
export class SandboxThread {
  readonly worker: Worker;
  readonly capacity: number;
  readonly runs = new Map<number, ActiveRun>();
  /** Runs started on this thread since it began. */
  started = 0;
  /** The watchdog is stopping it. */
  stopping = false;
  /** Woken when the thread has no run left. */
  readonly #idleWaiters: Array<() => void> = [];
  stats: PoolStats = EMPTY_STATS;
  readonly exited: Promise<void>;
  /**
   * Settled once the thread has loaded its modules (or ended): with a network of its own (its start
   * loads undici and the bridges), a run waits for it before its clock starts, as it waits for room,
   * so that a fresh thread's start is not taken from its deadline. Without, it is ready at once, as before.
   */
  readonly ready: Promise<void>;
  isReady = false;
  #onReady!: () => void;
  /** Runs handed to this thread that wait for it to be ready: they count as its runs for room and idle(). */
  reserved = 0;
  #outbox: ToThread[] = [];
  readonly #syncPort: MessagePort;
  readonly #syncFlag: Int32Array;
  readonly #reports: ReportSlot;
  /** Where the thread says it is inside a call into an isolate (busy-slot.ts). */
  readonly busy: BusySlot;
  /** A spare: made because every thread was held; it takes only runs no other thread can. */
  spare = false;
  #reportSeen = 0;
  #reportCheck: NodeJS.Timeout | null = null;
  /** memory() questions awaiting the thread's answer, by id. */
  readonly #memoryAsked = new Map<number, (memory: SandboxMemory | null) => void>();
  #memoryIds = 0;

  readonly #onWedged: (thread: SandboxThread) => void;
  /** A run left the thread: a run waiting for room may have it now. */
  readonly #onFreed: () => void;

  constructor(
    pool: PoolOptions,
    prewarmMemoryMb: number,
    network: ThreadNetworkConfig | null,
    onGone: (thread: SandboxThread, error: Error) => void,
    onWedged: (thread: SandboxThread) => void,
    onFreed: () => void,
  ) {
    this.#onWedged = onWedged;
    this.#onFreed = onFreed;
    this.capacity = pool.max;
    const channel = new MessageChannel();
    const flag = new SharedArrayBuffer(4);
    this.#syncPort = channel.port1;
    this.#syncFlag = new Int32Array(flag);
    const reportSlot = createReportSlot();
    this.#reports = new ReportSlot(reportSlot);
    const busySlot = createBusySlot();
    this.busy = new BusySlot(busySlot);
    const config: ThreadConfig = { pool, prewarmMemoryMb, runtimeDir: locateRuntimeDir(), syncPort: channel.port2, syncFlag: flag, reportSlot, busySlot, network };
    this.worker = new Worker(threadModule(), {
      workerData: config,
      transferList: [channel.port2],
      name: 'driverbox-sandbox',
    });
    this.ready = new Promise<void>((resolve) => (this.#onReady = resolve)).then(() => {
      this.isReady = true;
    });
    if (!network) this.isReady = true;
    this.worker.unref(); // an idle host does not keep the process alive; runs in progress ref it
    this.worker.on('message', (batch: FromThread[]) => {
      if (!Array.isArray(batch)) return;
      for (const message of batch) {
        // A message this thread cannot handle ends its run (if it names one), never the host.
        try {
          this.#receive(message);
        } catch (error) {
          this.#failRun(message, error);
        }
      }
    });
    this.worker.on('error', (error) => onGone(this, error));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.#onReady();
        for (const wake of this.#idleWaiters.splice(0)) wake(); // a run reserved on it waits no more
        this.#syncPort.close(); // a recycled thread's port would otherwise stay for the host's life
        for (const answer of this.#memoryAsked.values()) answer(null);
        this.#memoryAsked.clear();
        resolve();
      }),
    );
    this.worker.once('exit', (code) => onGone(this, new Error(`the sandbox thread exited (code ${code})`)));
  }

  post(message: ToThread): void {
    if (this.#outbox.push(message) === 1) {
      setImmediate(() => {
        const batch = this.#outbox;
        this.#outbox = [];
        try {
          this.worker.postMessage(batch);
        } catch {
          // One message could not be cloned: the others go on their own, and that one's run fails.
          for (const one of batch) {
            try {
              this.worker.postMessage([one]);
            } catch (error) {
              this.#failRun(one, error);
            }
          }
        }
      });
    }
  }

  /** The run a message was about fails (the message could not be handled or sent). */
  #failRun(message: unknown, error: unknown): void {
    const id = typeof message === 'object' && message !== null ? (message as { run?: unknown }).run : undefined;
    if (typeof id !== 'number') return;
    const run = this.runs.get(id);
    if (!run || run.answered) return;
    run.answered = true; // the thread still holds the run until it ends
    const text = error instanceof Error ? error.message : 'unknown error';
    run.resolve(failedResult(run, 'GENERIC_ERROR', `the sandbox could not pass on a message of this run: ${text.slice(0, 200)}`, null));
  }

  /**
   * Runs unanswered past their deadline plus WATCHDOG_MARGIN_MS get TIMEOUT_ERROR now. When every
   * run on the thread is that late, no call into an isolate can still be within its limit: the
   * thread is stuck, and is replaced (onWedged).
   */
  #watchdog(): void {
    const now = clock();
    let late = 0;
    for (const run of this.runs.values()) {
      if (now <= run.deadline + WATCHDOG_MARGIN_MS) continue;
      late++;
      if (run.answered) continue;
      run.answered = true;
      clearTimeout(run.grace);
      run.resolve(
        failedResult(
          run,
          'TIMEOUT_ERROR',
          `the run was still going ${WATCHDOG_MARGIN_MS} ms after its ${run.timeoutMs} ms deadline and its sandbox thread did not answer: the watchdog ended it`,
          'timeout',
        ),
      );
    }
    if (late > 0 && late === this.runs.size) this.#onWedged(this);
  }

  /** The thread's heap figures; null when it ended before answering. */
  memory(gc: boolean): Promise<SandboxMemory | null> {
    const id = ++this.#memoryIds;
    this.worker.ref(); // an idle thread is unref'd: the process must wait for its answer
    return new Promise((resolve) => {
      this.#memoryAsked.set(id, (memory) => {
        if (this.runs.size === 0 && this.#memoryAsked.size === 0) this.worker.unref();
        resolve(memory);
      });
      this.post({ t: 'memory', id, gc });
    });
  }

  /** Inside one call into an isolate for HELD_AFTER_MS or more: a run placed here would wait behind it. */
  held(now: number): boolean {
    return this.busy.busyForMs(now) >= HELD_AFTER_MS;
  }

  /** Runs it can still take. */
  get free(): number {
    return this.capacity - this.runs.size - this.reserved;
  }

  idle(): Promise<void> {
    return this.runs.size === 0 && this.reserved === 0 ? Promise.resolve() : new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  start(id: number, plan: RunPlan, run: ActiveRun): void {
    if (this.runs.size === 0) {
      this.worker.ref();
      this.#reportCheck = setInterval(this.#check, REPORT_CHECK_MS);
      this.#reportCheck.unref();
    }
    this.runs.set(id, run);
    this.started++;
    this.post({ t: 'run', run: id, plan });
  }

  #finish(id: number): ActiveRun | undefined {
    const run = this.runs.get(id);
    clearTimeout(run?.grace);
    if (this.runs.delete(id)) queueMicrotask(this.#onFreed);
    if (this.runs.size === 0) {
      if (this.#memoryAsked.size === 0) this.worker.unref();
      clearInterval(this.#reportCheck ?? undefined);
      this.#reportCheck = null;
      for (const wake of this.#idleWaiters.splice(0)) wake();
    }
    return run;
  }

  #receive(message: FromThread): void {
    switch (message.t) {
      case 'ready':
        this.#onReady();
        return;
      case 'net': {
        const network = this.runs.get(message.run)?.network;
        if (!network) return;
        dispatchNetworkCall(network, message.op, message.call, (payload) => this.post({ t: 'answer', run: message.run, id: message.id, json: answerText(payload) }));
        return;
      }
      case 'external':
        return this.#answerNow(() => {
          const network = this.runs.get(message.run)?.network;
          if (!network) throw new Error('the run is over');
          return network.external(message.call);
        });
      case 'policy':
        return this.#answerNow(() => {
          const policy = this.runs.get(message.run)?.policy;
          if (!policy || typeof message.host !== 'string') return false;
          try {
            return policy[message.kind === 'reach' ? 'reach' : 'redirect'](message.host) === true;
          } catch {
            return false; // a policy that throws allows nothing
          }
        });
      case 'reported': {
        // A result too large for the report slot comes as a message, at once.
        const run = this.runs.get(message.run);
        if (run) this.#graceFor(run, message, clock());
        return;
      }
      case 'ended': {
        this.stats = message.stats;
        const run = this.#finish(message.run);
        if (run && !run.answered) run.resolve(finalResult(run, message));
        return;
      }
      case 'failed': {
        this.stats = message.stats;
        const run = this.#finish(message.run);
        if (run && !run.answered) {
          if (message.ofRun) return run.resolve(failedResult(run, 'GENERIC_ERROR', `the sandbox failed: ${message.message}`, null));
          closeNetwork(run);
          run.reject(new DriverboxError('SANDBOX_FAILED', `the sandbox failed: ${message.message}`));
        }
        return;
      }
      case 'stats':
        this.stats = message.stats;
        return;
      case 'memory': {
        const answer = this.#memoryAsked.get(message.id);
        this.#memoryAsked.delete(message.id);
        answer?.(message.memory);
        return;
      }
    }
  }

  /** Answers the thread's synchronous question (it waits on the shared flag): `compute`'s value, or what it threw. */
  #answerNow(compute: () => number | boolean): void {
    let reply: SyncReply;
    try {
      reply = { ok: true, value: compute() };
    } catch (error) {
      reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    try {
      this.#syncPort.postMessage(reply);
    } catch {
      this.#syncPort.postMessage({ ok: false, message: 'the answer could not be passed on' } satisfies SyncReply);
    }
    Atomics.store(this.#syncFlag, 0, 1);
    Atomics.notify(this.#syncFlag, 0);
  }

  /** A run whose driver ended it: the host answers without it once the grace has run out, unless it ends first. */
  #graceFor(run: ActiveRun, report: ThreadReport, reportedAt: number): void {
    if (run.answered || run.grace) return;
    run.grace = setTimeout(() => {
      run.answered = true;
      const { result } = report;
      result.warnings.push(`the driver's code was still running ${END_GRACE_MS} ms after it ended the run; its outcome stands, and its code is stopped at its time limit`);
      result.durationMs = Math.round((result.durationMs + clock() - reportedAt) * 100) / 100;
      run.resolve(finalResult(run, report));
    }, Math.max(0, reportedAt + END_GRACE_MS - clock()));
  }

  /** While the thread has runs: has a driver ended its run from a call that is still going? Is a run overdue? */
  readonly #check = (): void => {
    try {
      this.#checkReport();
    } catch {
      // an unreadable report: the run's own end (or the watchdog) answers it
    }
    this.#watchdog();
  };

  #checkReport(): void {
    if (this.#reports.seq() === this.#reportSeen) return;
    const report = this.#reports.read();
    if (!report) return; // being written: next time
    this.#reportSeen = report.seq;
    const run = this.runs.get(report.run);
    if (run) this.#graceFor(run, JSON.parse(report.json) as ThreadReport, report.at);
  }

  /** The thread died: its runs fail. */
  fail(error: Error): void {
    for (const id of [...this.runs.keys()]) {
      const run = this.#finish(id)!;
      if (run.answered) continue;
      closeNetwork(run);
      run.reject(new DriverboxError('SANDBOX_FAILED', `the sandbox thread failed: ${error.message}`));
    }
  }
}
