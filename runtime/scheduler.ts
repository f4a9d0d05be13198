// Host-driven timers: the drivers' setTimeout / setInterval (runtime/timers.ts) and the
// libraries' (q's delay/timeout). Each timer is one 'timer' operation the host answers when
// it is due; a pending timer keeps the run alive, like a pending HTTP request. Every timer
// started counts against the run's maxTimers (an interval once, not per firing).
import type { Bridge } from './bridge';
import { raise } from './error-text';
import { SCHEDULER_KEY } from './libs/q-timers';

export interface Scheduler {
  /** Starts a one-shot host timer; returns the bridge's id. Throws (RangeError) past maxTimers. */
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number): void;
  /** Re-arms an interval for its next firing: not counted again (the host checks the period). */
  rearm(fn: () => void, ms: number): number;
}

const SavedNumber = Number;

/** Whole milliseconds, 0 for anything that is not a finite positive number (as browsers do). */
export function delayOf(ms: unknown): number {
  const n = typeof ms === 'number' ? ms : SavedNumber(ms);
  return n === n && n > 0 && n < Infinity ? (n > 2_147_483_647 ? 2_147_483_647 : n - (n % 1)) : 0;
}

export function createScheduler(bridge: Bridge, maxTimers: number): Scheduler {
  let started = 0;
  const scheduler: Scheduler = {
    setTimeout(fn, ms) {
      if (started >= maxTimers) {
        throw raise(new RangeError(`this run already started ${maxTimers} timers (setTimeout, setInterval, D.q.delay), its limit (maxTimers: every timer started counts, an interval once)`));
      }
      started++;
      return bridge.start('timer', '"ms":' + delayOf(ms), () => fn());
    },
    clearTimeout(id) {
      bridge.cancel(id);
    },
    rearm(fn, ms) {
      return bridge.start('timer', '"ms":' + delayOf(ms) + ',"again":true', () => fn());
    },
  };
  return scheduler;
}

/** Makes the scheduler reachable from the q bundle's injected timers (libs/q-timers.ts). */
export function installScheduler(scheduler: Scheduler): void {
  Object.defineProperty(globalThis, SCHEDULER_KEY, { value: scheduler, enumerable: false });
}
