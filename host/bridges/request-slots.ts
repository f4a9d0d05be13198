// A run's request slots: at most `max` of its requests (HTTP, TLS reads, protocol calls) are in
// flight at once; the others wait in order, so a driver that fires a hundred requests at once
// does not flood its device.
export class RequestSlots {
  readonly #max: number;
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(max: number) {
    this.#max = max;
  }

  /** Is a request in flight (or holding a slot)? */
  get busy(): boolean {
    return this.#active > 0;
  }

  /** Runs `work` when a slot is free. Never rejects with a slot still taken. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<void>((resolve) => {
      if (this.#active < this.#max) {
        this.#active++;
        resolve();
      } else {
        this.#waiting.push(resolve);
      }
    })
      .then(work)
      .finally(() => {
        const next = this.#waiting.shift();
        if (next) next();
        else this.#active--;
      });
  }

  /** The run is over: what waits for a slot never starts. */
  drop(): void {
    this.#waiting.length = 0;
  }
}
