// Heavy libraries (q, lodash, cheerio, buffer) are not part of the per-run bundle:
// the first touch asks the host to evaluate the library's precompiled script in this
// context, which leaves its exports in a one-shot global slot that we take and clear.
import type { Bridge } from './bridge';
import type { LibName } from './protocol';
import { raise } from './error-text';

export const LIB_SLOT = '__driverboxLib';

export interface LazyLibs {
  <T>(name: LibName): T;
  /** Whether this run has loaded the library already (nothing is loaded by asking). */
  loaded(name: LibName): boolean;
}

export function createLazyLibs(bridge: Bridge): LazyLibs {
  const loaded = new Map<LibName, unknown>();
  const lib = function lib<T>(name: LibName): T {
    if (!loaded.has(name)) {
      const answer = bridge.call('loadLib', name) as { ok?: boolean; error?: string } | undefined;
      if (!answer || answer.ok !== true) throw raise(new Error(`the library ${name} could not be loaded: ${answer?.error ?? 'no answer'}`));
      const g = globalThis as Record<string, unknown>;
      const exports = g[LIB_SLOT];
      delete g[LIB_SLOT];
      if (exports === undefined || exports === null) throw raise(new Error(`the library ${name} could not be loaded (did the driver replace a built-in it uses?)`));
      loaded.set(name, exports);
    }
    return loaded.get(name) as T;
  };
  return Object.assign(lib, { loaded: (name: LibName) => loaded.has(name) });
}
