// Which hosts a stored custom driver may reach with D.createExternalDevice, for the agent's
// scheduled runs, the API's execute action and trial runs alike. The operator's own code keeps
// the host's default (any host): a run whose source is byte for byte a driver file the inventory
// loaded for that driver id (its SHA-256, recorded at the sync). Any other code came through the
// API (an upload, an update of an inventory driver, a trial's code), written by whoever holds an
// API key, so by default it may reach none: otherwise it could read internal services (127.0.0.1,
// the cloud metadata address…) and return them in its log. The privilege follows the code, never
// the driver's id. The operator widens that with a list (`--external-hosts`), whose named hosts
// are also where any driver's requests may be redirected.
import { inventoryDriverCode, isOperatorCode, type RunCode } from '../store/drivers/inventory-driver-code.js';
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
 * The run's externalHosts: the list given for API drivers (default: empty, none); for the
 * operator's code (isOperatorCode), or when the list holds "*", any host ("*"), or undefined
 * (the host's default, any host) when the list names none. The hosts the list names are also
 * where a redirect may lead (a redirect never follows the bare "*"), for every driver.
 */
export async function externalHostsFor(store: Store, code: RunCode, apiDriverHosts: readonly string[] = []): Promise<string[] | undefined> {
  return externalHostsOf(isOperatorCode(await inventoryDriverCode(store), code), apiDriverHosts);
}

/** externalHostsFor, the code's origin known (a scheduled run reads the hashes with its target). */
export function externalHostsOf(operatorCode: boolean, apiDriverHosts: readonly string[] = []): string[] | undefined {
  if (operatorCode || apiDriverHosts.includes(ANY_EXTERNAL_HOST)) {
    const named = apiDriverHosts.filter((h) => h !== ANY_EXTERNAL_HOST);
    return named.length ? [ANY_EXTERNAL_HOST, ...named] : undefined;
  }
  return [...apiDriverHosts];
}
