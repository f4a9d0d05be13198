// Bytes of device answers held in memory at once by all the runs of one host. Each run's
// answers are bounded (maxResponseBytes), but many runs at once could still hold many times
// that: a request whose answer would take the host past this bound fails (HOST_BUFFERS_FULL)
// instead of the host running out of memory.

export const DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024 * 1024;

export class ByteBudget {
  readonly max: number;
  #used = 0;

  constructor(max: number = DEFAULT_MAX_BUFFERED_BYTES) {
    this.max = max;
  }

  /** Reserves `bytes`; false (nothing reserved) when that would pass the bound. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.max) return false;
    this.#used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }

  get used(): number {
    return this.#used;
  }
}
