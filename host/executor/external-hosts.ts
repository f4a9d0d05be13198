// Which hosts a stored custom driver may reach with D.createExternalDevice, for the agent's
// scheduled runs and the API's execute action alike. A driver the operator's inventory made
// keeps the host's default (any host); any other driver came through the API (or
// `driverbox drivers add`), written by whoever holds an API key, so by default it may reach
// none: otherwise it could read internal services (127.0.0.1, the cloud metadata address…)
// and return them in its log. The operator widens that with a list (`--external-hosts`), whose
// named hosts are also where any driver's requests may be redirected.
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
 * The run's externalHosts: the list given for API drivers (default: empty, none); for an
 * inventory driver, or when the list holds "*", any host ("*"), or undefined (the host's
 * default, any host) when the list names none. The hosts the list names are also where a
 * redirect may lead (a redirect never follows the bare "*"), for every driver.
 */
export async function externalHostsFor(store: Store, driverId: number, apiDriverHosts: readonly string[] = []): Promise<string[] | undefined> {
  return externalHostsOf((await inventoryDriverIds(store)).has(driverId), apiDriverHosts);
}

/** externalHostsFor, the driver's origin known (a scheduled run reads it with its target). */
export function externalHostsOf(inventoryDriver: boolean, apiDriverHosts: readonly string[] = []): string[] | undefined {
  if (inventoryDriver || apiDriverHosts.includes(ANY_EXTERNAL_HOST)) {
    const named = apiDriverHosts.filter((h) => h !== ANY_EXTERNAL_HOST);
    return named.length ? [ANY_EXTERNAL_HOST, ...named] : undefined;
  }
  return [...apiDriverHosts];
}
