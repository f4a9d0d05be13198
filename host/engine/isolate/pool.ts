// The pool of warm isolates. A run borrows one isolate for its whole life (so one
// run's CPU, memory and crash never touch another's); isolates that hit a limit, grew
// too large or served many runs are disposed and replaced. An isolate left idle for
// warmIdleMs is disposed: each holds its runs' garbage (~10 MB at bench:agent's load), and
// the warm set kept for a burst should not outlive it. The idle lists are stacks, so the
// isolates a steady load keeps using stay on top and the ones a past burst needed sink.
import { performance } from 'node:perf_hooks';
import { DriverboxError } from '../../contract/errors.js';
import type { HeapFigures, PoolOptions, PoolStats } from '../figures.js';
import { WarmIsolate } from './warm-isolate.js';

const HEAP_CHECK_EVERY_RUNS = 4;
/**
 * With every warm isolate lent, a run waits this long for one to come back before an isolate is
 * made for it, ms. Making one takes ~5-10 ms of the thread's CPU, longer than most runs hold
 * theirs: in a burst of short runs, making one per run queued every other run behind the making
 * (bench:agent at 10,000 devices: 32 isolates alive, runs seconds late). A run that holds its
 * isolate longer (a slow device) still gets a new one after the wait.
 */
export const MAKE_AFTER_WAIT_MS = 10;
/**
 * ...and only while the thread has CPU to spare: above this share of its time busy, the lent
 * isolates are slow because the thread is, and one more would only take more of it (50,000
 * devices on 2 cores: 16,684 isolates made for 33,121 runs, most of the child's CPU).
 */
const BUSY_SHARE = 0.8;
/** The thread's busy share is judged over at least this long, ms. */
const BUSY_WINDOW_MS = 100;

/** An idle isolate and when it was parked (performance.now()). */
interface Parked {
  warm: WarmIsolate;
  at: number;
}

export class IsolatePool {
  readonly #options: PoolOptions;
  /** Per memory size, oldest parked first: acquire takes the last. */
  readonly #idle = new Map<number, Parked[]>();
  #expiryTimer: NodeJS.Timeout | null = null;
  readonly #waiters: Array<() => void> = [];
  /** Every isolate alive, idle or lent to a run. */
  readonly #all = new Set<WarmIsolate>();
  #alive = 0;
  #busy = 0;
  #created = 0;
  #disposed = 0;
  #closed = false;
  #busySince = performance.eventLoopUtilization();

  constructor(options: PoolOptions) {
    this.#options = options;
  }

  /** Fills the warm set for one memory size ahead of the first run. */
  async prewarm(memoryMb: number): Promise<void> {
    const idle = this.#idleFor(memoryMb);
    const missing = Math.min(this.#options.warm - idle.length, this.#options.max - this.#alive);
    const made = await Promise.all(Array.from({ length: Math.max(0, missing) }, () => this.#create(memoryMb)));
    for (const warm of made) this.#park(warm);
  }

  /** One isolate made ahead to replace one disposed after its run, while the warm set is short of it. */
  async #replace(memoryMb: number): Promise<void> {
    if (this.#closed || this.#idleFor(memoryMb).length >= this.#options.warm || this.#alive >= this.#options.max) return;
    this.#park(await this.#create(memoryMb));
  }

  async acquire(memoryMb: number): Promise<WarmIsolate> {
    /** Past the warm set: when waiting gives way to making one (performance.now()). */
    let makeAt: number | null = null;
    for (;;) {
      if (this.#closed) throw new DriverboxError('HOST_CLOSED', 'the host is closed');
      // The most recent first: an expired one is used rather than disposed and made again.
      const idle = this.#idleFor(memoryMb).pop();
      this.#expireIdle();
      if (idle) {
        this.#busy++;
        return idle.warm;
      }
      if (this.#alive < this.#options.max) {
        // Only while a lent one may come back (with warmIsolates 0, a lone run makes its own at once).
        if (this.#alive >= this.#options.warm && this.#busy > 0) {
          makeAt ??= performance.now() + MAKE_AFTER_WAIT_MS;
          const left = makeAt - performance.now();
          if (left > 0 || this.#threadBusy()) {
            if (left <= 0) makeAt = performance.now() + MAKE_AFTER_WAIT_MS;
            await this.#wait(left > 0 ? left : MAKE_AFTER_WAIT_MS);
            continue;
          }
        }
        this.#busy++;
        try {
          return await this.#create(memoryMb);
        } catch (error) {
          this.#busy--;
          throw error;
        }
      }
      // Full: an idle isolate of another size may be given up to make room.
      if (this.#evictOtherSize(memoryMb)) continue;
      await this.#wait(Infinity);
    }
  }

  /** Whether this thread's event loop was busy BUSY_SHARE of the time lately (the last window of at least BUSY_WINDOW_MS). */
  #threadBusy(): boolean {
    const since = performance.eventLoopUtilization(this.#busySince);
    if (since.idle + since.active >= BUSY_WINDOW_MS) this.#busySince = performance.eventLoopUtilization();
    return since.utilization >= BUSY_SHARE;
  }

  /** Until an isolate is parked or disposed (room for one), or ms have passed. */
  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (ms === Infinity) return void this.#waiters.push(resolve);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.#waiters.indexOf(wake);
        if (at >= 0) this.#waiters.splice(at, 1);
        resolve();
      }, Math.ceil(ms));
      this.#waiters.push(wake);
    });
  }

  /** Returns an isolate after a run; `discard` when the run hit a limit or broke it. */
  release(warm: WarmIsolate, discard: boolean): void {
    this.#busy--;
    warm.runs++;
    // Heap statistics cost a call into V8: every few runs is soon enough to catch slow growth.
    const tooBig = warm.runs % HEAP_CHECK_EVERY_RUNS === 0 && !warm.disposed && warm.heapUsedMb() > warm.memoryMb * 0.5;
    if (discard || this.#closed || warm.disposed || tooBig || warm.runs >= this.#options.recycleAfterRuns) {
      this.#destroy(warm);
      void this.#replace(warm.memoryMb).catch(() => {});
    } else {
      this.#park(warm);
    }
  }

  stats(): PoolStats {
    let idle = 0;
    for (const list of this.#idle.values()) idle += list.length;
    return { alive: this.#alive, idle, busy: this.#busy, waiting: this.#waiters.length, created: this.#created, disposed: this.#disposed };
  }

  /** The heaps of the isolates alive, summed. */
  heaps(): { isolates: number; heap: HeapFigures } {
    const heap: HeapFigures = { used: 0, total: 0, external: 0 };
    let isolates = 0;
    for (const warm of this.#all) {
      const stats = warm.heapStatistics();
      if (!stats) continue;
      isolates++;
      heap.used += stats.used_heap_size;
      heap.total += stats.total_heap_size;
      heap.external += stats.externally_allocated_size;
    }
    return { isolates, heap };
  }

  close(): void {
    this.#closed = true;
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = null;
    for (const list of this.#idle.values()) for (const { warm } of list.splice(0)) this.#destroy(warm);
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async #create(memoryMb: number): Promise<WarmIsolate> {
    this.#alive++;
    try {
      const warm = WarmIsolate.create(memoryMb);
      this.#created++;
      this.#all.add(warm);
      return warm;
    } catch (error) {
      this.#alive--;
      throw error;
    }
  }

  #park(warm: WarmIsolate): void {
    if (this.#closed) return this.#destroy(warm);
    const idle = this.#idleFor(warm.memoryMb);
    if (idle.length >= this.#options.warm && this.#waiters.length === 0) return this.#destroy(warm);
    idle.push({ warm, at: performance.now() });
    this.#armExpiry();
    this.#waiters.shift()?.(); // someone may be waiting for exactly this isolate
  }

  /** Disposes the isolates parked warmIdleMs ago or more (the oldest lie first in each list). */
  #expireIdle(): void {
    const oldest = performance.now() - this.#options.warmIdleMs;
    for (const list of this.#idle.values()) {
      while (list.length > 0 && list[0]!.at <= oldest) this.#destroy(list.shift()!.warm);
    }
  }

  /** A timer for when no run comes to expire them: set for the oldest idle isolate, unref'd. */
  #armExpiry(): void {
    if (this.#expiryTimer || this.#closed) return;
    let oldest = Infinity;
    for (const list of this.#idle.values()) if (list.length > 0) oldest = Math.min(oldest, list[0]!.at);
    if (oldest === Infinity) return;
    const delay = Math.max(0, oldest + this.#options.warmIdleMs - performance.now());
    this.#expiryTimer = setTimeout(() => {
      this.#expiryTimer = null;
      this.#expireIdle();
      this.#armExpiry();
    }, Math.min(Math.ceil(delay), 2 ** 31 - 1));
    this.#expiryTimer.unref();
  }

  #destroy(warm: WarmIsolate): void {
    warm.dispose();
    this.#all.delete(warm);
    this.#alive--;
    this.#disposed++;
    this.#waiters.shift()?.(); // room for a new isolate
  }

  #evictOtherSize(memoryMb: number): boolean {
    for (const [size, list] of this.#idle) {
      if (size !== memoryMb && list.length > 0) {
        this.#destroy(list.pop()!.warm);
        return true;
      }
    }
    return false;
  }

  #idleFor(memoryMb: number): Parked[] {
    let list = this.#idle.get(memoryMb);
    if (!list) {
      list = [];
      this.#idle.set(memoryMb, list);
    }
    return list;
  }
}
