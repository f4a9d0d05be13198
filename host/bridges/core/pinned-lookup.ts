// A DNS lookup that always answers one address: how a run's `resolve` option pins a host
// name (a simulator, split DNS) while TLS still verifies, and Host still carries, the name.
import type { LookupFunction } from 'node:net';
import net from 'node:net';

export function pinnedLookup(ip: string): LookupFunction {
  const family = net.isIPv6(ip) ? 6 : 4;
  return (_hostname, options, callback) => {
    // net.connect asks for every address (`all`) when it may try several families.
    if ((options as { all?: boolean }).all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: ip, family }]);
    else callback(null, ip, family);
  };
}
