// Run slots: a global bound and a per-device bound, and the FIFO of runs waiting for a slot.
//
// Fairness: a run waiting on a busy device does not hold up the runs queued behind it for other
// devices; among the runs that could start, the one that has waited longest goes first. The queue
// holds at most one run per job (the scheduler skips a due run when the previous one still waits),
// so the scan in take() is bounded by the number of jobs.

export interface SlotBounds {
  /** Runs in flight at once, all devices together. */
  maxConcurrent: number;
  /** Runs in flight at once against one device. */
  maxPerDevice: number;
}

export class SlotQueue<T> {
  private readonly waiting: T[] = [];
  private readonly runningByDevice = new Map<string, number>();
  private runningTotal = 0;

  /** deviceOf is read when the item is taken: a job replaced while waiting counts on its new device. */
  constructor(
    private readonly bounds: SlotBounds,
    private readonly deviceOf: (item: T) => string,
  ) {}

  get running(): number {
    return this.runningTotal;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  runningOn(deviceKey: string): number {
    return this.runningByDevice.get(deviceKey) ?? 0;
  }

  push(item: T): void {
    this.waiting.push(item);
  }

  delete(item: T): boolean {
    const index = this.waiting.indexOf(item);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  /** Removes and returns every waiting item, oldest first. */
  drain(): T[] {
    return this.waiting.splice(0, this.waiting.length);
  }

  /** The oldest waiting item that may start now, with its slots taken; undefined when none may. */
  take(): { item: T; deviceKey: string } | undefined {
    if (this.runningTotal >= this.bounds.maxConcurrent) return undefined;
    for (let index = 0; index < this.waiting.length; index++) {
      const item = this.waiting[index]!;
      const deviceKey = this.deviceOf(item);
      const onDevice = this.runningOn(deviceKey);
      if (onDevice >= this.bounds.maxPerDevice) continue;
      this.waiting.splice(index, 1);
      this.runningByDevice.set(deviceKey, onDevice + 1);
      this.runningTotal += 1;
      return { item, deviceKey };
    }
    return undefined;
  }

  /** Gives back the slots of a run that ended (on the device it was taken for). */
  release(deviceKey: string): void {
    const onDevice = this.runningOn(deviceKey);
    if (onDevice <= 1) this.runningByDevice.delete(deviceKey);
    else this.runningByDevice.set(deviceKey, onDevice - 1);
    this.runningTotal = Math.max(0, this.runningTotal - 1);
  }
}
