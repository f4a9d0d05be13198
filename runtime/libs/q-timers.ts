// Injected by esbuild into the q bundle only: q's free references to setImmediate /
// setTimeout resolve to these. setImmediate is a microtask; setTimeout goes through
// the host-driven scheduler (drivers themselves get no timers).
export const SCHEDULER_KEY = Symbol.for('driverbox.scheduler');

interface Scheduler {
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number): void;
}

const scheduler = (): Scheduler => (globalThis as unknown as Record<symbol, Scheduler>)[SCHEDULER_KEY];

const setImmediateShim = (fn: () => void): void => {
  void Promise.resolve().then(fn);
};
const setTimeoutShim = (fn: () => void, ms?: number): number => scheduler().setTimeout(fn, ms ?? 0);
const clearTimeoutShim = (id: number): void => scheduler().clearTimeout(id);

export { setImmediateShim as setImmediate, setTimeoutShim as setTimeout, clearTimeoutShim as clearTimeout };
