// One isolate kept warm between runs: the runtime bundle is compiled once, library
// bundles on first use, and recent driver scripts stay compiled (keyed by their source).
// While it waits in the pool, the next run's context is made ahead, off this thread.
import { createHash } from 'node:crypto';
import ivm from 'isolated-vm';
import type { LibName } from '../../runtime/protocol.js';
import { compileBundle } from './runtime-bundle.js';

const DRIVER_CACHE_SIZE = 32;
/**
 * Sources up to this size are their own cache key; larger ones are keyed by a digest. A digest
 * costs ~15 us a run (node:crypto's setup, whatever the size), a Map lookup well under 1 us;
 * the keys kept are bounded by DRIVER_CACHE_SIZE × this size per isolate.
 */
const SOURCE_AS_KEY_MAX = 32 * 1024;

export class WarmIsolate {
  readonly isolate: ivm.Isolate;
  readonly memoryMb: number;
  runs = 0;
  #core: ivm.Script | null = null;
  readonly #libs = new Map<LibName, ivm.Script>();
  readonly #drivers = new Map<string, ivm.Script>();
  /** A context made for the next run, not used yet. */
  #nextContext: ivm.Context | null = null;
  #preparing: Promise<void> | null = null;
  #disposing = false;

  private constructor(memoryMb: number) {
    this.memoryMb = memoryMb;
    this.isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  }

  static create(memoryMb: number): WarmIsolate {
    const warm = new WarmIsolate(memoryMb);
    try {
      warm.#core = compileBundle(warm.isolate, 'core');
    } catch (error) {
      warm.dispose();
      throw error;
    }
    return warm;
  }

  get core(): ivm.Script {
    if (!this.#core) throw new Error('isolate not initialised');
    return this.#core;
  }

  get disposed(): boolean {
    return this.#disposing || this.isolate.isDisposed;
  }

  /**
   * Starts making the next run's context with isolated-vm's asynchronous call, which does the
   * work (V8 building a context: the largest fixed cost of a run) on isolated-vm's own threads
   * instead of this sandbox thread. Only while the isolate is idle: during a run, the async
   * task would hold the isolate's lock against the run's synchronous calls.
   */
  prepareContext(): void {
    if (this.#nextContext || this.#preparing || this.disposed) return;
    const settled = () => {
      this.#preparing = null;
      if (this.#disposing) this.dispose(); // asked for while the context was being made
    };
    this.#preparing = this.isolate.createContext().then((context) => {
      this.#nextContext = context;
      settled();
    }, settled);
  }

  /** Resolves once the context being prepared (if any) is there, or the isolate disposed after it. */
  async ready(): Promise<void> {
    await this.#preparing;
  }

  /** A context no run has used: the one prepared ahead, or one made now. Never handed out twice. */
  takeContext(): ivm.Context {
    const context = this.#nextContext;
    this.#nextContext = null;
    return context && !this.disposed ? context : this.isolate.createContextSync();
  }

  /** Called from inside a run (a synchronous host call), so it compiles synchronously. */
  lib(name: LibName): ivm.Script {
    let script = this.#libs.get(name);
    if (!script) {
      script = compileBundle(this.isolate, `lib-${name}`);
      this.#libs.set(name, script);
    }
    return script;
  }

  /** Compiles driver source (synchronously: we are on a sandbox thread), or returns the script compiled for the same source earlier. */
  driver(source: string, filename: string): ivm.Script {
    const key =
      source.length <= SOURCE_AS_KEY_MAX
        ? `${filename}\0${source}`
        : `sha1:${createHash('sha1').update(filename).update('\0').update(source).digest('hex')}`;
    const cached = this.#drivers.get(key);
    if (cached) {
      this.#drivers.delete(key);
      this.#drivers.set(key, cached); // most recently used last
      return cached;
    }
    const script = this.isolate.compileScriptSync(source, { filename });
    this.#drivers.set(key, script);
    if (this.#drivers.size > DRIVER_CACHE_SIZE) {
      const [oldest, old] = this.#drivers.entries().next().value as [string, ivm.Script];
      this.#drivers.delete(oldest);
      old.release();
    }
    return script;
  }

  heapUsedMb(): number {
    if (this.disposed) return 0;
    const stats = this.isolate.getHeapStatisticsSync();
    return (stats.used_heap_size + stats.externally_allocated_size) / (1024 * 1024);
  }

  /**
   * Disposes the isolate; while its next context is still being made, as soon as that is done:
   * disposing an isolate under isolated-vm's asynchronous call can leave the thread hung.
   */
  dispose(): void {
    this.#disposing = true;
    if (this.#preparing) return;
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }
}
