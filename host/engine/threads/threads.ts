// The host thread's side of the sandbox threads, all of them: starts them, hands each run to a
// thread once one has room (a device's runs always to the same one, which keeps its sessions;
// a spare when every thread is held by a long call), recycles them, replaces the ones the
// watchdog stops, and sums their figures. One thread's own side is sandbox-thread.ts.
import type { RunNetwork } from '../../bridges/run-network.js';
import { DriverboxError } from '../../contract/errors.js';
import type { RunResult } from '../../contract/run-result.js';
import type { PoolOptions, PoolStats, SandboxMemory } from '../figures.js';
import type { RunPlan } from '../isolate/run-plan.js';
import type { NetworkPolicy } from './active-run.js';
import { pinFor, share } from './placement.js';
import { sharedClock as clock } from './report-slot.js';
import { EMPTY_STATS, endWhenIdle, SandboxThread } from './sandbox-thread.js';
import type { ThreadNetworkConfig } from './thread-protocol.js';

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

/**
 * Where a run's network is: on its thread (the plan carries `network`; the thread asks `policy`),
 * or here, the RunNetwork made when the run starts.
 */
export type RunRoute = { policy: NetworkPolicy } | { network: () => RunNetwork };


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
