// What every route handler of the Monitoring API is given.
import type { RunExecutor } from '../../contract/run-executor.js';
import type { Store } from '../../store/store.js';

export interface ApiContext {
  store: Store;
  /** Runs drivers for executeCustomDriverAction; absent, executing answers 503. */
  host?: RunExecutor;
  /** The user name written into activity-log entries the API makes. */
  user: string;
  /** Hosts drivers not made by the inventory may reach with D.createExternalDevice (default none; "*": any). */
  externalHosts: readonly string[];
}
