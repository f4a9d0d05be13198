// The host thread's side of the sandbox threads: starts them, hands each run to a thread (a
// device's runs always to the same one, which keeps its sessions), answers the policy questions
// of runs whose network is on their thread, serves the network calls of runs whose network is
// here (RunNetwork: record, replay, deviceState), and brings back results.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { HttpCall, ProtocolCall, TlsCall } from '../../../runtime/protocol.js';
import type { RunNetwork } from '../../bridges/run-network.js';
import { deviceKey, type DeviceSpec } from '../../contract/device.js';
import { DriverboxError } from '../../contract/errors.js';
import type { RunResult } from '../../contract/run-result.js';
import { maskRunText } from '../../secrets/secret-mask.js';
import type { PoolOptions, PoolStats, SandboxMemory } from '../figures.js';
import type { RunPlan } from '../isolate/run.js';
import { locateRuntimeDir } from '../isolate/runtime-bundle.js';
import { BusySlot, createBusySlot } from './busy-slot.js';
import { createReportSlot, ReportSlot, sharedClock as clock } from './report-slot.js';
import type { FromThread, PolicyKind, SyncReply, ThreadConfig, ThreadNetworkConfig, ThreadReport, ToThread } from './thread-protocol.js';

export interface ThreadsOptions {
  threads: number;
  pool: PoolOptions;
  prewarmMemoryMb: number;
  /**
   * Replace a sandbox thread after it has started this many runs (0: never). What the thread
   * itself keeps (its own heap, whatever outlives its isolates) goes with it; the replacement
   * takes new runs at once while the old one finishes its own.
   */
  recycleThreadAfterRuns: number;
  /** The threads' own network (null: none, every run's network is here); `maxDeviceSessions` is the host's, shared out over the threads. */
  network: ThreadNetworkConfig | null;
  /**
   * Spare threads at most (default: as many as `threads`): when every thread with room is held
   * inside one call into an isolate (a driver spinning to its deadline), a spare takes the next
   * run instead of putting it behind that call; a spare ends once it is idle and no thread is held.
   */
  spareThreads?: number;
}

/** The caller's policy for a run whose network is on its thread (the thread asks: 'policy'). */
export type NetworkPolicy = Record<PolicyKind, (host: string) => boolean>;

/**
 * Where a run's network is: on its thread (the plan carries `network`; the thread asks `policy`),
 * or here, the RunNetwork made when the run starts.
 */
export type RunRoute = { policy: NetworkPolicy } | { network: () => RunNetwork };

interface ActiveRun {
  /** The run's network when it is on this (the host) thread; null when it is on the sandbox thread. */
  network: RunNetwork | null;
  policy: NetworkPolicy | null;
  /** The run's deadline, on the clock both threads share (sharedClock). */
  deadline: number;
  /** The entry point run, for the result the watchdog answers with. */
  action: string;
  timeoutMs: number;
  startedAt: number;
  resolve: (result: RunResult) => void;
  reject: (error: Error) => void;
  /** Answered early (see 'reported'); the thread still holds the run until it ends. */
  answered?: boolean;
  grace?: NodeJS.Timeout;
}

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


const EMPTY_STATS: PoolStats = { alive: 0, idle: 0, busy: 0, waiting: 0, created: 0, disposed: 0 };

let sourceBuild: URL | null = null;

/**
 * The thread's module: thread-entry.js next to this one; or, when the host runs from source
 * (tsx, vitest), thread-entry.ts bundled on the fly with esbuild, since a worker thread does
 * not inherit the TypeScript loader. Dependencies stay external, resolved from node_modules.
 * Split into chunks, so that what the entry imports only when asked (thread-network.ts, with
 * undici, ssh2, net-snmp, node-forge) is not loaded by every thread, as in the built package.
 * The chunks go to a folder named by their content, so processes share it and nothing needs
 * cleaning up.
 */
export function threadModule(): URL {
  const here = fileURLToPath(import.meta.url);
  if (!here.endsWith('.ts')) {
    const file = path.join(path.dirname(here), 'thread-entry.js');
    if (!existsSync(file)) throw new DriverboxError('RUNTIME_BUNDLE_MISSING', `the sandbox thread module ${file} is missing: run \`npm run build\``);
    return pathToFileURL(file);
  }
  if (!sourceBuild) {
    const root = path.resolve(path.dirname(here), '..', '..');
    const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
    const built = esbuild.buildSync({
      entryPoints: { 'thread-entry': path.join(path.dirname(here), 'thread-entry.ts') },
      write: false,
      outdir: '/',
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'warning',
    });
    const hash = createHash('sha256');
    for (const out of built.outputFiles) hash.update(out.path).update('\0').update(out.text);
    const dir = path.join(root, 'node_modules', '.cache', 'driverbox', `thread-${hash.digest('hex').slice(0, 16)}`);
    if (!existsSync(dir)) {
      // Written whole under a temporary name, then renamed: another process may be writing it too.
      const temp = `${dir}.${process.pid}.tmp`;
      mkdirSync(temp, { recursive: true });
      for (const out of built.outputFiles) writeFileSync(path.join(temp, path.basename(out.path)), out.text);
      try {
        renameSync(temp, dir);
      } catch (error) {
        rmSync(temp, { recursive: true, force: true });
        if (!existsSync(dir)) throw error;
      }
    }
    sourceBuild = pathToFileURL(path.join(dir, 'thread-entry.mjs'));
  }
  return sourceBuild;
}

/** Lets a thread's runs finish, then has it dispose its isolates and exit. */
async function endWhenIdle(thread: SandboxThread): Promise<void> {
  await thread.idle();
  thread.worker.ref(); // the process waits for the thread to end
  thread.post({ t: 'close' }); // the thread disposes its isolates, sends its last counts and exits
  await thread.exited;
}

/**
 * The run's HTTP exchanges as its network here ends; none when ending it fails (the run is answered
 * all the same), nor when the network was on the sandbox thread and did not report (the thread is stuck).
 */
function closeNetwork(run: ActiveRun): RunResult['http'] {
  try {
    return run.network?.close() ?? [];
  } catch {
    return [];
  }
}

/** The run's result as the thread reported it: with this thread's transcript, or masked with the thread's secrets. */
function finalResult(run: ActiveRun, { result, secrets }: ThreadReport): RunResult {
  return run.network ? { ...result, http: closeNetwork(run) } : maskRunText(result, secrets ?? []);
}

/** A string's FNV-1a hash: which thread a device's runs go to. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * The thread index a device is pinned to, so that its sessions (cookie jars, connections) stay
 * one; null for a run without a device (no id, address or host name), which any thread may take.
 */
function pinFor(device: DeviceSpec, threads: number): number | null {
  const named = (value: unknown) => value !== undefined && value !== null && value !== '';
  if (!named(device.id) && !named(device.ip) && !named(device.host)) return null;
  return threads === 1 ? 0 : hashOf(deviceKey(device)) % threads;
}

/** Splits `total` over `parts`: the first ones get the remainder. */
const share = (total: number, parts: number, index: number) => Math.floor(total / parts) + (index < total % parts ? 1 : 0);

class SandboxThread {
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
    run.resolve(this.#failedResult(run, 'GENERIC_ERROR', `the sandbox could not pass on a message of this run: ${text.slice(0, 200)}`, null));
  }

  #failedResult(run: ActiveRun, errorType: string, message: string, limit: RunResult['limitExceeded']): RunResult {
    return {
      status: 'failure',
      errorType,
      message,
      variables: [],
      tables: [],
      logs: [],
      warnings: [],
      http: closeNetwork(run),
      action: run.action,
      limitExceeded: limit,
      durationMs: Math.round((clock() - run.startedAt) * 100) / 100,
    };
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
        this.#failedResult(
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
        const answer = (payload: unknown) => {
          let json: string;
          try {
            json = JSON.stringify(payload);
          } catch (error) {
            json = JSON.stringify({ error: { code: 'GENERIC_ERROR', message: `the answer could not be passed on (${error instanceof Error ? error.message : 'unknown'})` }, response: null });
          }
          this.post({ t: 'answer', run: message.run, id: message.id, json });
        };
        try {
          if (message.op === 'http') network.http(message.call as HttpCall, answer);
          else if (message.op === 'proto') network.protocol(message.call as ProtocolCall, answer);
          else network.tls(message.call as TlsCall, answer);
        } catch (error) {
          // The bridge refused the call by throwing: the driver gets an error answer, the run goes on.
          answer({ error: { code: 'GENERIC_ERROR', message: error instanceof Error ? error.message : 'the request failed' }, response: null });
        }
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
          if (message.ofRun) return run.resolve(this.#failedResult(run, 'GENERIC_ERROR', `the sandbox failed: ${message.message}`, null));
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

export class SandboxThreads {
  readonly #options: ThreadsOptions;
  readonly #threads: Array<SandboxThread | null>;
  readonly #waiting: Array<() => void> = [];
  /** Threads being recycled: they take no new run and end once their runs have. */
  readonly #draining = new Set<SandboxThread>();
  /** Spare threads, made while every thread was held (see ThreadsOptions.spareThreads). */
  readonly #spares: SandboxThread[] = [];
  readonly #maxSpares: number;
  /** Spare threads made so far. */
  #sparesMade = 0;
  #recycled = 0;
  #stopped = 0;
  #nextRun = 1;
  #closed = false;
  /** Counts of isolates on threads that are gone, so that created/disposed stay totals. */
  #gone = { created: 0, disposed: 0 };

  constructor(options: ThreadsOptions) {
    this.#options = options;
    const count = Math.max(1, Math.min(options.threads, options.pool.max));
    this.#threads = Array.from({ length: count }, () => null);
    this.#maxSpares = Math.max(0, Math.floor(options.spareThreads ?? count));
    for (let i = 0; i < count; i++) this.#thread(i);
  }

  /**
   * Runs `plan` once a thread has room: a run whose network is on its thread on its device's
   * thread (pinFor), any other on the least busy one. A network here is made then, so that
   * its clock (deadline, transcript times) starts with the run, not with the wait.
   */
  async run(plan: RunPlan, route: RunRoute): Promise<RunResult> {
    const pin = 'policy' in route ? pinFor(plan.device, this.#threads.length) : null;
    for (;;) {
      if (this.#closed) throw new DriverboxError('HOST_CLOSED', 'the host is closed');
      const thread = pin === null ? this.#leastBusy() : this.#withRoom(pin);
      if (thread && !thread.isReady) {
        // The run is the thread's from now on (close() waits for it), once the thread is ready.
        thread.reserved++;
        try {
          await thread.ready;
        } finally {
          thread.reserved--;
        }
        if (this.#threads.includes(thread)) return this.#start(thread, plan, route);
        continue; // the thread ended before it was ready: another one
      }
      if (thread) return this.#start(thread, plan, route);
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  /** Starts the run on `thread` (which has room): its clock starts now. */
  #start(thread: SandboxThread, plan: RunPlan, route: RunRoute): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      const settle = () => this.#wake();
      const runNetwork = 'network' in route ? route.network() : null;
      const startedAt = performance.timeOrigin + performance.now();
      thread.start(this.#nextRun++, { ...plan, startedAt }, {
        network: runNetwork,
        policy: 'policy' in route ? route.policy : null,
        deadline: startedAt + plan.limits.timeoutMs,
        action: plan.action,
        timeoutMs: plan.limits.timeoutMs,
        startedAt,
        resolve: (result) => {
          resolve(result);
          settle();
        },
        reject: (error) => {
          reject(error);
          settle();
        },
      });
      const limit = this.#options.recycleThreadAfterRuns;
      if (limit > 0 && thread.started >= limit) this.#recycle(thread);
    });
  }

  /** The heaps of every sandbox thread and of their isolates, summed. */
  async memory(gc = false): Promise<SandboxMemory> {
    const threads = [...this.#threads, ...this.#spares, ...this.#draining].filter((t): t is SandboxThread => t !== null);
    const total: SandboxMemory = { threads: 0, threadHeap: { used: 0, total: 0, external: 0 }, isolates: 0, isolateHeap: { used: 0, total: 0, external: 0 } };
    for (const memory of await Promise.all(threads.map((t) => t.memory(gc)))) {
      if (!memory) continue;
      total.threads += memory.threads;
      total.isolates += memory.isolates;
      for (const key of ['used', 'total', 'external'] as const) {
        total.threadHeap[key] += memory.threadHeap[key];
        total.isolateHeap[key] += memory.isolateHeap[key];
      }
    }
    return total;
  }

  /** Sandbox threads the watchdog stopped (and replaced) so far. */
  get stoppedThreads(): number {
    return this.#stopped;
  }

  /** Threads (spares too) inside one call into an isolate for HELD_AFTER_MS or more now. */
  get heldThreads(): number {
    const now = clock();
    return [...this.#threads, ...this.#spares].filter((t) => t !== null && t.held(now)).length;
  }

  /** Spare threads made so far, because every thread with room was held by a long call into an isolate. */
  get spareThreadsMade(): number {
    return this.#sparesMade;
  }

  /** Sandbox threads replaced by recycleThreadAfterRuns so far. */
  get recycledThreads(): number {
    return this.#recycled;
  }

  stats(): PoolStats {
    const total = { ...EMPTY_STATS, created: this.#gone.created, disposed: this.#gone.disposed };
    for (const thread of [...this.#threads, ...this.#spares, ...this.#draining]) {
      if (!thread) continue;
      total.alive += thread.stats.alive;
      total.idle += thread.stats.idle;
      total.created += thread.stats.created;
      total.disposed += thread.stats.disposed;
      total.busy += thread.runs.size;
    }
    total.waiting = this.#waiting.length;
    return total;
  }

  /** Lets runs in progress finish, then disposes every isolate and stops the threads. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    const threads = [...this.#threads, ...this.#spares].filter((t): t is SandboxThread => t !== null);
    await Promise.all([...threads.map(endWhenIdle), ...[...this.#draining].map((t) => t.exited)]);
  }

  /** A thread that reached recycleThreadAfterRuns: a fresh one takes its place for new runs. */
  #recycle(old: SandboxThread): void {
    const index = this.#threads.indexOf(old);
    if (index < 0) return;
    this.#draining.add(old);
    this.#recycled++;
    this.#thread(index);
    void endWhenIdle(old).then(() => {
      this.#draining.delete(old);
      this.#gone.created += old.stats.created;
      this.#gone.disposed += old.stats.created; // its isolates went with it
    });
  }

  /**
   * Wakes the runs waiting for room: with several threads all of them, since a run pinned to
   * another thread cannot take this room (each looks again, and waits again if it has none).
   */
  #wake(): void {
    this.#retireIdleSpares();
    if (this.#threads.length === 1 && this.#spares.length === 0) this.#waiting.shift()?.();
    else for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Spares with no run left end once no thread is held any more. */
  #retireIdleSpares(): void {
    if (this.#spares.length === 0 || this.#closed) return;
    const now = clock();
    if (this.#threads.some((t) => t !== null && t.held(now))) return;
    for (const spare of [...this.#spares]) {
      if (spare.runs.size > 0 || spare.reserved > 0) continue;
      this.#spares.splice(this.#spares.indexOf(spare), 1);
      this.#draining.add(spare);
      void endWhenIdle(spare).then(() => {
        this.#draining.delete(spare);
        this.#gone.created += spare.stats.created;
        this.#gone.disposed += spare.stats.created;
      });
    }
  }

  /** A spare thread, with a regular thread's share of the isolates, for runs every thread with room would hold back. */
  #spare(): SandboxThread {
    const count = this.#threads.length;
    const { pool, network } = this.#options;
    const spare: SandboxThread = new SandboxThread(
      { max: Math.max(1, Math.ceil(pool.max / count)), warm: 0, recycleAfterRuns: pool.recycleAfterRuns, warmIdleMs: pool.warmIdleMs },
      this.#options.prewarmMemoryMb,
      network && { ...network, maxDeviceSessions: Math.max(1, Math.ceil(network.maxDeviceSessions / count)) },
      (gone, error) => {
        gone.fail(error);
        this.#dropSpare(gone);
        this.#wake();
      },
      (wedged) => this.#stop(wedged),
      () => this.#wake(),
    );
    spare.spare = true;
    this.#spares.push(spare);
    this.#sparesMade++;
    return spare;
  }

  #dropSpare(thread: SandboxThread): void {
    const index = this.#spares.indexOf(thread);
    if (index < 0) return;
    this.#spares.splice(index, 1);
    this.#gone.created += thread.stats.created;
    this.#gone.disposed += thread.stats.created;
  }

  #thread(index: number): SandboxThread {
    const count = this.#threads.length;
    const { pool, network } = this.#options;
    const thread = new SandboxThread(
      { max: share(pool.max, count, index), warm: share(pool.warm, count, index), recycleAfterRuns: pool.recycleAfterRuns, warmIdleMs: pool.warmIdleMs },
      this.#options.prewarmMemoryMb,
      // A recycled thread's replacement starts with no sessions: its devices' next runs log in afresh.
      network && { ...network, maxDeviceSessions: Math.max(1, Math.ceil(network.maxDeviceSessions / count)) },
      (gone, error) => {
        gone.fail(error);
        if (this.#threads[index] === gone) this.#retire(gone);
        this.#wake();
      },
      (wedged) => this.#stop(wedged),
      () => this.#wake(),
    );
    this.#threads[index] = thread;
    return thread;
  }

  /**
   * The watchdog found the thread stuck (every run on it far past its deadline, all answered by
   * now): it is terminated, and a fresh one takes its place when a run needs it.
   */
  #stop(thread: SandboxThread): void {
    if (thread.stopping) return;
    thread.stopping = true;
    this.#stopped++;
    this.#retire(thread); // a draining thread is not in the list: endWhenIdle accounts for it
    this.#dropSpare(thread);
    thread.fail(new Error('the watchdog stopped it: its runs were far past their deadlines'));
    void thread.worker.terminate().catch(() => {});
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Forgets a thread that is gone; a failed one is replaced when a run needs it. */
  #retire(thread: SandboxThread): void {
    const index = this.#threads.indexOf(thread);
    if (index < 0) return;
    this.#gone.created += thread.stats.created;
    this.#gone.disposed += thread.stats.created; // its isolates went with it
    this.#threads[index] = null;
  }

  /** The thread at `index` (made anew if it is gone), when it has room. */
  #withRoom(index: number): SandboxThread | null {
    const thread = this.#threads[index] ?? this.#thread(index);
    return thread.capacity > thread.runs.size + thread.reserved ? thread : null;
  }

  /**
   * The thread for a run any thread may take: the one with the most room among those not held
   * inside a long call into an isolate (a run placed behind such a call waits until it ends, up
   * to its deadline). When a thread that is not held has no room, the run waits for room rather
   * than go behind a held one; when every thread is held, a spare takes it (up to spareThreads,
   * within the host's isolates); only without one does it go to the held thread with most room.
   */
  #leastBusy(): SandboxThread | null {
    const now = clock();
    let best: SandboxThread | null = null;
    let bestFree = 0;
    let held: SandboxThread | null = null;
    let heldFree = 0;
    let anyFree = false;
    let inFlight = 0;
    const all = [...this.#threads.map((t, i) => t ?? this.#thread(i)), ...this.#spares];
    for (const thread of all) {
      inFlight += thread.runs.size + thread.reserved;
      const isHeld = thread.held(now);
      if (!isHeld) anyFree = true;
      const free = thread.free;
      if (free <= 0) continue;
      if (!isHeld && free > bestFree) [best, bestFree] = [thread, free];
      else if (isHeld && free > heldFree) [held, heldFree] = [thread, free];
    }
    if (best) return best;
    if (anyFree) return null; // a thread that is not held frees up soon: wait for it
    if (this.#spares.length < this.#maxSpares && inFlight < this.#options.pool.max) return this.#spare();
    return held;
  }
}
