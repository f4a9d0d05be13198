// Where a sandbox thread says that it is inside a synchronous call into an isolate, and since
// when. A driver spinning to its deadline holds its thread for that whole call, and every other
// run on the thread waits behind it; the host thread reads the slot to place new runs on a
// thread that is free (threads.ts). One BigInt64 per thread: the call's start on the shared clock
// in µs, 0 outside calls; written and read with Atomics, so a read is never torn.
import { sharedClock } from './report-slot.js';

export function createBusySlot(): SharedArrayBuffer {
  return new SharedArrayBuffer(8);
}

export class BusySlot {
  readonly #since: BigInt64Array;
  #depth = 0;

  constructor(buffer: SharedArrayBuffer) {
    this.#since = new BigInt64Array(buffer);
  }

  /** The thread enters a call (calls may nest: a host function the isolate calls may call in again). */
  begin(): void {
    if (this.#depth++ === 0) Atomics.store(this.#since, 0, BigInt(Math.max(1, Math.floor(sharedClock() * 1000))));
  }

  end(): void {
    if (this.#depth > 0 && --this.#depth === 0) Atomics.store(this.#since, 0, 0n);
  }

  /** How long the thread has been in its current call, ms; 0 when it is in none. */
  busyForMs(now = sharedClock()): number {
    const since = Atomics.load(this.#since, 0);
    return since === 0n ? 0 : Math.max(0, now - Number(since) / 1000);
  }
}

/** This thread's slot, once thread-entry.ts sets it up; null on the host thread (direct runs, tests). */
let threadSlot: BusySlot | null = null;

export function useBusySlot(buffer: SharedArrayBuffer): void {
  threadSlot = new BusySlot(buffer);
}

/** Runs `call` (a synchronous call into an isolate) marked as busy in this thread's slot. */
export function inIsolateCall<T>(call: () => T): T {
  const slot = threadSlot;
  if (!slot) return call();
  slot.begin();
  try {
    return call();
  } finally {
    slot.end();
  }
}
