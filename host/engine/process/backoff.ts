// Restart delays for a sandbox process that keeps dying: the first crash restarts at once, each
// further crash in a row doubles the wait up to a ceiling, and a process that stayed up long
// enough counts as healthy again. A driver that crashes its isolate every run then costs a
// restart every maxDelayMs at worst, not a fork loop.
export interface BackoffOptions {
  /** The wait before the second restart in a row, ms. */
  initialDelayMs: number;
  /** The longest wait, ms. */
  maxDelayMs: number;
  /** A process up at least this long resets the series, ms. */
  stableAfterMs: number;
}

export class RestartBackoff {
  readonly #options: BackoffOptions;
  /** Crashes in a row, each within stableAfterMs of its start. */
  #streak = 0;

  constructor(options: BackoffOptions) {
    this.#options = options;
  }

  /** The wait before restarting a process that ran for `uptimeMs` and then died. */
  next(uptimeMs: number): number {
    if (uptimeMs >= this.#options.stableAfterMs) this.#streak = 0;
    const delay = this.#streak === 0 ? 0 : Math.min(this.#options.initialDelayMs * 2 ** (this.#streak - 1), this.#options.maxDelayMs);
    this.#streak++;
    return delay;
  }
}
