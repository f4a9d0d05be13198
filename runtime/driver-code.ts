// Runs the driver's code from inside the runtime, so that nothing the driver throws ever reaches
// isolated-vm (which would copy it out of the isolate, running the driver's getters and Proxy
// traps with no time limit): the host hands over the driver's code as a function (the source
// wrapped by host/driver/wrap.ts, compiled once per isolate), called here inside the bridge's
// guard; errors become text here (error-text.ts).
import { append, hasOwn, objectKeys, regexpTest } from './intrinsics';

const ENTRY_POINT = /^(validate|get_status|backup|custom_[1-9]\d*)$/;

export interface DriverCode {
  /** The entry point asked for, when the driver defines it. */
  entry: (() => unknown) | undefined;
  /** The entry points it does define (for the message when `entry` is missing). */
  defined: string[];
}

/**
 * Runs the driver's top level. The wrapper returns the entry points the source declares; one the
 * driver made a global (globalThis.get_status = …) is found too.
 */
export function runDriverCode(top: unknown, action: string): DriverCode {
  if (typeof top !== 'function') return { entry: undefined, defined: [] };
  // Before any driver code has run: Function.prototype.call is still the real one.
  const entries = (top as (this: unknown) => unknown).call(globalThis) as Record<string, unknown>;
  const g = globalThis as Record<string, unknown>;
  const own = hasOwn(entries, action) ? entries[action] : undefined;
  const entry = typeof own === 'function' ? own : g[action];
  if (typeof entry === 'function') return { entry: entry as () => unknown, defined: [] };
  const defined: string[] = [];
  for (const source of [entries, g]) {
    const names = objectKeys(source);
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (regexpTest(ENTRY_POINT, name) && typeof source[name] === 'function' && !hasOwnName(defined, name)) append(defined, name);
    }
  }
  return { entry: undefined, defined };
}

function hasOwnName(list: string[], name: string): boolean {
  for (let i = 0; i < list.length; i++) if (list[i] === name) return true;
  return false;
}
