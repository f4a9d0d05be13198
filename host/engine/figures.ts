// The sandbox's figures and settings that the public API shows (Host.stats, Host.memory, the
// pool's options). Types only, and apart from pool.ts and thread-protocol.ts, so that the
// published declarations never reach isolated-vm's (installed under a per-Node alias).

export interface PoolOptions {
  /** Idle isolates kept ready per memory size. */
  warm: number;
  /** Isolates alive at once (= runs executing at once); more runs wait their turn. */
  max: number;
  /** An isolate is replaced after this many runs, to bound slow leaks. */
  recycleAfterRuns: number;
  /** An idle isolate is disposed after this long unused, ms. */
  warmIdleMs: number;
}

export interface PoolStats {
  alive: number;
  idle: number;
  busy: number;
  waiting: number;
  created: number;
  disposed: number;
}

/** Heap figures of sandbox threads, in bytes: their own V8 heaps, and their driver isolates'. */
export interface SandboxMemory {
  threads: number;
  /** The threads' own heaps (each a Node worker's isolate: the pool, messages, the thread's code). */
  threadHeap: HeapFigures;
  /** The driver isolates alive in the threads' pools, idle or running. */
  isolates: number;
  isolateHeap: HeapFigures;
}

export interface HeapFigures {
  used: number;
  total: number;
  /** Memory outside the heap that the heap's objects hold (array buffers and the like). */
  external: number;
}
