// Time and timers for the scheduler, behind an object so tests (and embedders) can drive them.

export type TimerHandle = unknown;

export interface SchedulerClock {
  /** Milliseconds on a monotonic scale; only differences between two readings matter. */
  now(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The process clock. The globals are looked up at each call, not captured, so vitest's fake
 * timers (installed after this module loads) drive the default clock too.
 */
export const systemClock: SchedulerClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => {
    const timer = globalThis.setTimeout(callback, ms);
    // A scheduler alone must not keep the process alive: the agent's servers and runs do.
    timer.unref?.();
    return timer;
  },
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};
