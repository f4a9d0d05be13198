// Bytes of device answers held in memory at once by all the runs of one host. Each run's
// answers are bounded (maxResponseBytes), but many runs at once could still hold many times
// that: a request whose answer would take the host past this bound fails (HOST_BUFFERS_FULL)
// instead of the host running out of memory. The count lives in shared memory, so the runs
// of every sandbox thread (each doing its own network) take from one bound.

export const DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024 * 1024;

export class ByteBudget {
  readonly max: number;
  readonly #used: BigInt64Array;
  readonly #max: bigint;

  /** `shared`: the count of a budget made elsewhere (its `shared`), to take from the same bound. */
  constructor(max: number = DEFAULT_MAX_BUFFERED_BYTES, shared?: SharedArrayBuffer) {
    this.max = max;
    this.#max = BigInt(max);
    this.#used = new BigInt64Array(shared ?? new SharedArrayBuffer(8));
  }

  /** The memory the count lives in: a budget made on it in another thread shares the bound. */
  get shared(): SharedArrayBuffer {
    return this.#used.buffer as SharedArrayBuffer;
  }

  /** Reserves `bytes`; false (nothing reserved) when that would pass the bound. */
  take(bytes: number): boolean {
    const add = BigInt(bytes);
    for (;;) {
      const used = Atomics.load(this.#used, 0);
      if (used + add > this.#max) return false;
      if (Atomics.compareExchange(this.#used, 0, used, used + add) === used) return true;
    }
  }

  give(bytes: number): void {
    const less = BigInt(bytes);
    for (;;) {
      const used = Atomics.load(this.#used, 0);
      const next = used > less ? used - less : 0n;
      if (Atomics.compareExchange(this.#used, 0, used, next) === used) return;
    }
  }

  get used(): number {
    return Number(Atomics.load(this.#used, 0));
  }
}
