// What every route handler of the Monitoring API is given.
import type { Host } from '../../host.js';
import type { Store } from '../../store/store.js';

export interface ApiContext {
  store: Store;
  /** Runs drivers for executeCustomDriverAction; absent, executing answers 503. */
  host?: Host;
  /** The user name written into activity-log entries the API makes. */
  user: string;
}
