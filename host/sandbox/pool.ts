// The pool of warm isolates. A run borrows one isolate for its whole life (so one
// run's CPU, memory and crash never touch another's); isolates that hit a limit, grew
// too large or served many runs are disposed and replaced.
import { DriverboxError } from '../errors.js';
import type { HeapFigures, PoolOptions, PoolStats } from './figures.js';
import { WarmIsolate } from './warm-isolate.js';

const HEAP_CHECK_EVERY_RUNS = 4;

export class IsolatePool {
  readonly #options: PoolOptions;
  readonly #idle = new Map<number, WarmIsolate[]>();
  readonly #waiters: Array<() => void> = [];
  /** Every isolate alive, idle or lent to a run. */
  readonly #all = new Set<WarmIsolate>();
  #alive = 0;
  #busy = 0;
  #created = 0;
  #disposed = 0;
  #closed = false;

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

  async acquire(memoryMb: number): Promise<WarmIsolate> {
    for (;;) {
      if (this.#closed) throw new DriverboxError('HOST_CLOSED', 'the host is closed');
      const idle = this.#idleFor(memoryMb).pop();
      if (idle) {
        this.#busy++;
        return idle;
      }
      if (this.#alive < this.#options.max) {
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
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Returns an isolate after a run; `discard` when the run hit a limit or broke it. */
  release(warm: WarmIsolate, discard: boolean): void {
    this.#busy--;
    warm.runs++;
    // Heap statistics cost a call into V8: every few runs is soon enough to catch slow growth.
    const tooBig = warm.runs % HEAP_CHECK_EVERY_RUNS === 0 && !warm.disposed && warm.heapUsedMb() > warm.memoryMb * 0.5;
    if (discard || this.#closed || warm.disposed || tooBig || warm.runs >= this.#options.recycleAfterRuns) {
      this.#destroy(warm);
      if (!this.#closed) void this.prewarm(warm.memoryMb).catch(() => {});
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
    for (const list of this.#idle.values()) for (const warm of list.splice(0)) this.#destroy(warm);
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
    idle.push(warm);
    this.#waiters.shift()?.(); // someone may be waiting for exactly this isolate
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
        this.#destroy(list.pop()!);
        return true;
      }
    }
    return false;
  }

  #idleFor(memoryMb: number): WarmIsolate[] {
    let list = this.#idle.get(memoryMb);
    if (!list) {
      list = [];
      this.#idle.set(memoryMb, list);
    }
    return list;
  }
}
