// Keeps each device's newest runs, pruned in batches: the devices an agent wrote results for are
// pruned together in one statement every `everyResults` results or `everyMs`, whichever comes
// first, and when the agent stops. A DELETE per result was a statement (on PostgreSQL a round
// trip) of every scheduled run (G7, docs/architecture/scale-out.md). Between prunes a device may hold the
// runs of that interval beyond its bound; an agent killed before its prune leaves them until the
// device's next result is pruned, by whichever agent writes it.
import { pruneRunsOfDevices } from '../store/runs/runs.js';
import type { Store } from '../store/store.js';

export interface DeviceRunPrunerOptions {
  /** Runs kept per device. */
  keep: number;
  /** Prune once this many results were noted (default 500). */
  everyResults?: number;
  /** …or this long after the first result noted since the last prune, ms (default 10 s). */
  everyMs?: number;
  /** A prune that failed (the devices stay noted for the next one). */
  onError(error: Error): void;
}

export const DEFAULT_PRUNE_EVERY_RESULTS = 500;
export const DEFAULT_PRUNE_EVERY_MS = 10_000;

export class DeviceRunPruner {
  readonly #store: Store;
  readonly #options: Required<DeviceRunPrunerOptions>;
  #devices = new Set<number>();
  #results = 0;
  #timer: NodeJS.Timeout | null = null;
  /** Prunes run one at a time. */
  #pruning: Promise<void> = Promise.resolve();

  constructor(store: Store, options: DeviceRunPrunerOptions) {
    for (const name of ['keep', 'everyResults', 'everyMs'] as const) {
      const value = options[name];
      if (value !== undefined && (!Number.isInteger(value) || value < (name === 'keep' ? 0 : 1))) {
        throw new TypeError(`DeviceRunPruner: ${name} must be an integer ≥ ${name === 'keep' ? 0 : 1} (got ${String(value)})`);
      }
    }
    this.#store = store;
    this.#options = { everyResults: DEFAULT_PRUNE_EVERY_RESULTS, everyMs: DEFAULT_PRUNE_EVERY_MS, ...options };
  }

  /** A result of the device was written. */
  noted(deviceId: number): void {
    this.#devices.add(deviceId);
    this.#results += 1;
    if (this.#results >= this.#options.everyResults) {
      void this.prune();
    } else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.prune(), this.#options.everyMs);
      this.#timer.unref();
    }
  }

  /** Prunes the devices noted so far; resolves when done (a failure goes to onError). */
  prune(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const devices = [...this.#devices];
    this.#devices = new Set();
    this.#results = 0;
    this.#pruning = this.#pruning.then(async () => {
      if (devices.length === 0) return;
      try {
        await pruneRunsOfDevices(this.#store, devices, this.#options.keep);
      } catch (error) {
        for (const id of devices) this.#devices.add(id);
        this.#options.onError(new Error(`could not prune the runs of ${devices.length} device(s): ${error instanceof Error ? error.message : String(error)}`));
      }
    });
    return this.#pruning;
  }
}
