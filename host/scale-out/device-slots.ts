// The per-device bound of one agent: at most maxPerDevice runs against one device key at once in
// this process. Across the cluster the bound is N × maxPerDevice for N agents: each agent counts only
// its own runs (an exact cluster-wide bound would need BullMQ Pro groups or a Redis semaphore).
//
// A run that finds its device busy waits, first come first served, until a slot frees or its start
// deadline (the start rule's latest start) passes; it holds one of the worker's concurrency slots
// while it waits.

interface Waiter {
  resolve: (taken: boolean) => void;
  timer: NodeJS.Timeout;
}

export class DeviceSlots {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(readonly maxPerDevice: number) {}

  runningOn(deviceKey: string): number {
    return this.running.get(deviceKey) ?? 0;
  }

  get waitingCount(): number {
    let count = 0;
    for (const list of this.waiting.values()) count += list.length;
    return count;
  }

  /**
   * Takes a slot on the device: true at once when one is free, or later when one frees before
   * `untilMs` (epoch ms, read with `now`); false when the time runs out first.
   */
  acquire(deviceKey: string, untilMs: number, now: () => number = Date.now): Promise<boolean> {
    const inUse = this.runningOn(deviceKey);
    if (inUse < this.maxPerDevice && !this.waiting.has(deviceKey)) {
      this.running.set(deviceKey, inUse + 1);
      return Promise.resolve(true);
    }
    const wait = untilMs - now();
    if (wait < 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const list = this.waiting.get(deviceKey) ?? [];
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          this.dropWaiter(deviceKey, waiter);
          resolve(false);
        }, wait + 1),
      };
      list.push(waiter);
      this.waiting.set(deviceKey, list);
    });
  }

  /** Gives a slot back; the device's oldest waiter (if any) takes it. */
  release(deviceKey: string): void {
    const list = this.waiting.get(deviceKey);
    const next = list?.shift();
    if (list && list.length === 0) this.waiting.delete(deviceKey);
    if (next) {
      // The slot passes straight to the waiter: the count stays.
      clearTimeout(next.timer);
      next.resolve(true);
      return;
    }
    const inUse = this.runningOn(deviceKey);
    if (inUse <= 1) this.running.delete(deviceKey);
    else this.running.set(deviceKey, inUse - 1);
  }

  /** Ends every wait with false (stop). */
  cancelWaits(): void {
    for (const [deviceKey, list] of [...this.waiting]) {
      this.waiting.delete(deviceKey);
      for (const waiter of list) {
        clearTimeout(waiter.timer);
        waiter.resolve(false);
      }
    }
  }

  private dropWaiter(deviceKey: string, waiter: Waiter): void {
    const list = this.waiting.get(deviceKey);
    if (!list) return;
    const index = list.indexOf(waiter);
    if (index >= 0) list.splice(index, 1);
    if (list.length === 0) this.waiting.delete(deviceKey);
  }
}
