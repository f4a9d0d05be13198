// One isolate kept warm between runs: the runtime bundle is compiled once, library
// bundles on first use, and recent drivers stay compiled (keyed by their source).
import { createHash } from 'node:crypto';
import type ivm from 'isolated-vm';
import { loadIsolatedVm } from '../../platform/isolated-vm.js';
import type { LibName } from '../../../runtime/protocol.js';
import { compileBundle } from './runtime-bundle.js';
import { wrapDriver } from '../../driver/wrap.js';

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

  private constructor(memoryMb: number) {
    this.memoryMb = memoryMb;
    this.isolate = new (loadIsolatedVm().ivm).Isolate({ memoryLimit: memoryMb });
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
    return this.isolate.isDisposed;
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

  /**
   * The driver's code as a function (compiled once per source and isolate), for the runtime to
   * call inside its guard (runtime/driver-code.ts): running the script only makes the function,
   * so no driver code runs and nothing of the driver's is thrown or returned there. Throws the
   * SyntaxError of a source that does not compile on its own ("message [file:line:col]"): the
   * source is compiled as the script it is first, so that it cannot close the wrapper early.
   */
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
    this.isolate.compileScriptSync(source, { filename }).release();
    const script = this.isolate.compileScriptSync(wrapDriver(source), { filename, lineOffset: -1 });
    this.#drivers.set(key, script);
    if (this.#drivers.size > DRIVER_CACHE_SIZE) {
      const [oldest, old] = this.#drivers.entries().next().value as [string, ivm.Script];
      this.#drivers.delete(oldest);
      old.release();
    }
    return script;
  }

  heapUsedMb(): number {
    const stats = this.heapStatistics();
    return stats ? (stats.used_heap_size + stats.externally_allocated_size) / (1024 * 1024) : 0;
  }

  /** V8's heap statistics of the isolate; null once it is disposed. */
  heapStatistics(): ivm.HeapStatistics | null {
    if (this.disposed) return null;
    try {
      return this.isolate.getHeapStatisticsSync();
    } catch {
      return null; // disposed by isolated-vm itself (memory limit) since
    }
  }

  dispose(): void {
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }
}
