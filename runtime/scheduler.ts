// Host-driven timers for the libraries that need them (q's delay/timeout).
// A pending timer keeps the run alive, like a pending HTTP request.
import type { Bridge } from './bridge';
import { SCHEDULER_KEY } from './libs/q-timers';

export function installScheduler(bridge: Bridge): void {
  const scheduler = {
    setTimeout(fn: () => void, ms: number): number {
      const delay = Number.isFinite(ms) && ms > 0 ? Math.floor(ms) : 0;
      return bridge.start('timer', '"ms":' + delay, () => fn());
    },
    clearTimeout(id: number): void {
      bridge.cancel(id);
    },
  };
  Object.defineProperty(globalThis, SCHEDULER_KEY, { value: scheduler, enumerable: false });
}
