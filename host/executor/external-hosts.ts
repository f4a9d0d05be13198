// Which hosts a stored custom driver may reach with D.createExternalDevice, for the agent's
// scheduled runs and the API's execute action alike. A driver the operator's inventory made
// keeps the host's default (any host); any other driver came through the API (or
// `driverbox drivers add`), written by whoever holds an API key, so by default it may reach
// none: otherwise it could read internal services (127.0.0.1, the cloud metadata address…)
// and return them in its log. The operator widens that with a list (`--external-hosts`).
import { inventoryDriverIds } from '../agent/inventory/ownership.js';
import type { Store } from '../store/store.js';

/** In a list: every host (the policy of drivers before it existed). */
export const ANY_EXTERNAL_HOST = '*';

/** Checks and normalises a list from a flag, a config file or options; throws with what is wrong. */
export function externalHostList(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || value.some((h) => typeof h !== 'string' || h.trim() === '' || /[\s,/]/.test(h.trim()))) {
    throw new TypeError(`${where} must be a list of host names or IP addresses (or "${ANY_EXTERNAL_HOST}" for any host)`);
  }
  return value.map((h: string) => h.trim().toLowerCase());
}

/**
 * The run's externalHosts: undefined (the host's default, any host) for an inventory driver or
 * when the list holds "*", else the list given for API drivers (default: empty, none).
 */
export function externalHostsFor(store: Store, driverId: number, apiDriverHosts: readonly string[] = []): string[] | undefined {
  if (inventoryDriverIds(store).has(driverId)) return undefined;
  if (apiDriverHosts.includes(ANY_EXTERNAL_HOST)) return undefined;
  return [...apiDriverHosts];
}
