// One isolate kept warm between runs: the runtime bundle is compiled once, library
// bundles on first use, and the sources of recent drivers are remembered as compiling.
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
  /** Driver sources known to compile in this isolate (most recently used last). */
  readonly #drivers = new Set<string>();

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
   * Throws the SyntaxError of a driver source that does not compile ("message [file:line:col]"),
   * once per source and isolate; true when it compiled the source now, false when it knew it. The runtime runs the driver itself (runtime/driver-code.ts),
   * so the compiled script is not kept: only that the source compiles.
   */
  checkDriver(source: string, filename: string): boolean {
    const key =
      source.length <= SOURCE_AS_KEY_MAX
        ? `${filename}\0${source}`
        : `sha1:${createHash('sha1').update(filename).update('\0').update(source).digest('hex')}`;
    if (this.#drivers.has(key)) {
      this.#drivers.delete(key);
      this.#drivers.add(key); // most recently used last
      return false;
    }
    this.isolate.compileScriptSync(source, { filename }).release();
    this.#drivers.add(key);
    if (this.#drivers.size > DRIVER_CACHE_SIZE) this.#drivers.delete(this.#drivers.values().next().value as string);
    return true;
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
