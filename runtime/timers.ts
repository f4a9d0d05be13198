// setTimeout / clearTimeout / setInterval / clearInterval as globals of the driver's context,
// on the host-driven scheduler (runtime/scheduler.ts). Ids are numbers of their own (an
// interval's host timer changes at each firing); clearTimeout and clearInterval take either,
// and an unknown id is ignored, as in browsers. A string callback is refused: it would be eval.
// Defining these costs four closures per run; a driver that starts no timer pays nothing more.
import { delayOf, type Scheduler } from './scheduler';
import { MIN_INTERVAL_MS } from './constants';
import { raise } from './error-text';
import { mapDelete, mapGet, mapSet } from './intrinsics';


type Callback = (...args: unknown[]) => unknown;

// Saved now: a driver replacing Reflect.apply or Function.prototype.apply changes its own calls only.
const apply = Reflect.apply;

function checkCallback(fn: unknown, name: string): Callback {
  if (typeof fn === 'function') return fn as Callback;
  if (typeof fn === 'string') {
    throw raise(new TypeError(`${name}: a string of code as the callback is not allowed in a driver (it would be eval); pass a function: ${name}(function () { … }, ms)`));
  }
  throw raise(new TypeError(`${name}: the callback must be a function (got ${fn === null ? 'null' : typeof fn})`));
}

function restOf(args: IArguments, from: number): unknown[] {
  const out: unknown[] = [];
  for (let i = from; i < args.length; i++) out[out.length] = args[i];
  return out;
}

export function installTimers(g: Record<string, unknown>, scheduler: Scheduler): void {
  // public id → the host timer now armed for it; made on the first timer, so a run without timers pays nothing
  let armedMap: Map<number, number> | null = null;
  const armedTimers = () => (armedMap ??= new Map<number, number>());
  let nextId = 1;

  g.setTimeout = function setTimeout(fn: unknown, ms?: unknown): number {
    const callback = checkCallback(fn, 'setTimeout');
    const args = arguments.length > 2 ? restOf(arguments, 2) : [];
    const id = nextId++;
    const armed = armedTimers();
    mapSet(armed, id, scheduler.setTimeout(() => {
      mapDelete(armed, id);
      apply(callback, undefined, args);
    }, ms as number));
    return id;
  };
  g.setInterval = function setInterval(fn: unknown, ms?: unknown): number {
    const callback = checkCallback(fn, 'setInterval');
    const args = arguments.length > 2 ? restOf(arguments, 2) : [];
    const asked = delayOf(ms);
    const period = asked < MIN_INTERVAL_MS ? MIN_INTERVAL_MS : asked;
    const id = nextId++;
    const armed = armedTimers();
    const fire = () => {
      // Re-armed before the callback runs, so that the callback can clear it, and a throw ends the run anyway.
      mapSet(armed, id, scheduler.rearm(fire, period));
      apply(callback, undefined, args);
    };
    mapSet(armed, id, scheduler.setTimeout(fire, period));
    return id;
  };
  const clear = function (id: unknown): void {
    if (typeof id !== 'number' || armedMap === null) return;
    const armed = armedMap;
    const timer = mapGet(armed, id);
    if (timer === undefined) return;
    mapDelete(armed, id);
    scheduler.clearTimeout(timer);
  };
  g.clearTimeout = function clearTimeout(id?: unknown): void {
    clear(id);
  };
  g.clearInterval = function clearInterval(id?: unknown): void {
    clear(id);
  };
}
