// How a request URL is built from the driver's options (a path only, never a host), and where a
// redirect may lead: the target's own host, or another host the run allows.
import { isIP } from 'node:net';
import type { RunTarget } from '../core/target.js';
import { describe, isPlainObject, numberOption } from '../../untrusted-input/plain-values.js';
import { RequestRefused } from './errors.js';
import { fieldText } from './options.js';

/** The port dialled for the driver's `port`: through the port map; refused off it for a simulator. */
export function dialledPort(target: RunTarget, port: number): number {
  const mapped = target.portMap[port];
  if (mapped !== undefined) return mapped;
  if (target.onlyMappedPorts) {
    const served = Object.keys(target.portMap).join(', ') || 'none';
    throw new RequestRefused('PORT_NOT_SIMULATED', `port ${port} is not one the simulated device serves (${served}): another port of its address is the host machine's own`);
  }
  return port;
}

/** Builds the request URL; anything that could reach another host or port is refused. */
export function buildUrl(target: RunTarget, options: Record<string, unknown>): URL {
  const protocol = options.protocol === undefined || options.protocol === null ? 'http' : options.protocol;
  if (protocol !== 'http' && protocol !== 'https') {
    throw new RequestRefused('INVALID_OPTIONS', `protocol must be 'http' or 'https' (got ${describe(protocol)})`);
  }
  const useHostname = options.useHostname !== false;
  const hostname = (useHostname && target.host) || target.ip;
  if (!hostname) throw new RequestRefused('MISSING_DEVICE_ADDRESS', 'the device has no IP address or host name to send the request to');
  const defaultPort = protocol === 'https' ? 443 : 80;
  const port = options.port === undefined || options.port === null ? defaultPort : numberOption(options.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RequestRefused('INVALID_OPTIONS', `port must be an integer from 1 to 65535 (got ${describe(options.port)})`);

  const suffix = options.url === undefined ? '/' : options.url;
  if (typeof suffix !== 'string') throw new RequestRefused('INVALID_URL', 'url must be a string path such as "/status"');
  if (/[\\\u0000-\u001f\u007f]/.test(suffix)) {
    throw new RequestRefused('INVALID_URL', `url ${JSON.stringify(suffix)} contains a control character (CR, LF…) or a backslash`);
  }
  if (!suffix.startsWith('/') || suffix.startsWith('//')) {
    throw new RequestRefused('INVALID_URL', `url ${JSON.stringify(suffix)} must be a path starting with a single "/": a driver cannot choose the host (use the port and protocol options)`);
  }
  // As the official emulator does: ${username} / ${password} in the url come from the credentials.
  const filled = suffix
    .replaceAll('${username}', encodeURIComponent(target.username ?? ''))
    .replaceAll('${password}', encodeURIComponent(target.password ?? ''));
  const base = `${protocol}://${hostname.includes(':') ? `[${hostname}]` : hostname}:${dialledPort(target, port)}`;
  const url = new URL(filled, base);
  if (url.origin !== originOf(base) || url.username || url.password) {
    throw new RequestRefused('INVALID_URL', `url ${JSON.stringify(suffix)} would leave the device`);
  }
  appendQuery(url, options.qs);
  return url;
}

// The origin of each base a request was built on: parsed once, not on every request.
const origins = new Map<string, string>();

function originOf(base: string): string {
  let origin = origins.get(base);
  if (origin === undefined) {
    if (origins.size >= 256) origins.clear();
    origin = new URL(base).origin;
    origins.set(base, origin);
  }
  return origin;
}

/** request's `qs` option: an object of query parameters added to the url. */
function appendQuery(url: URL, qs: unknown): void {
  if (qs === undefined || qs === null) return;
  if (!isPlainObject(qs)) throw new RequestRefused('INVALID_OPTIONS', 'qs must be an object of query parameters');
  for (const [key, value] of Object.entries(qs)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, fieldText(key, item, 'qs'));
    else url.searchParams.append(key, fieldText(key, value, 'qs'));
  }
}

function sameHost(a: string, b: string | null): boolean {
  if (!b) return false;
  const bare = (h: string) => h.replace(/^\[|\]$/g, '').toLowerCase();
  return bare(a) === bare(b);
}

/** How a refused redirect's host can be allowed: the flags and the option, with the wildcard of its siblings. */
function howToAllow(hostname: string): string {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const name = !isIP(bare);
  const labels = bare.split('.');
  const siblings = name && labels.length >= 3 ? ` or '*.${labels.slice(1).join('.')}'` : '';
  // resolve pins names only: an address is allowed by listing it.
  const pin = name ? `, or pin it with driverbox run --resolve ${bare}=<ip>` : '';
  return `to follow it, allow ${bare}: --external-hosts ${bare}${siblings} (driverbox run, serve or agent)${pin}; in code, the externalHosts option of createHost or host.run`;
}

/**
 * Where a redirect leads: the target's own host name or IP (any port, mapped through the port
 * map), or another host the run allows (`elsewhere` answers it, with that host's target; null
 * when not allowed). http and https only, never with userinfo.
 */
export function redirectTarget<T extends { target: RunTarget }>(
  target: RunTarget,
  current: URL,
  location: string,
  elsewhere: (hostname: string) => T | null,
): { url: URL; away: T | null } {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new RequestRefused('REDIRECT_REFUSED', `the device redirected to an invalid location ${JSON.stringify(location)}`);
  }
  const who = target.external ? target.host! : 'the device';
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new RequestRefused('REDIRECT_REFUSED', `${who} redirected to ${JSON.stringify(location)}: only http and https are followed`);
  }
  if (next.username || next.password) {
    throw new RequestRefused('REDIRECT_REFUSED', `${who} redirected to a location with a user name or password (${next.origin}): never followed`);
  }
  let away: T | null = null;
  if (!(sameHost(next.hostname, target.host) || sameHost(next.hostname, target.ip))) {
    away = elsewhere(next.hostname.replace(/^\[|\]$/g, ''));
    if (!away) throw new RequestRefused('REDIRECT_REFUSED', `${who} redirected to ${next.origin}, another host; ${howToAllow(next.hostname)}`);
  }
  const port = Number(next.port || (next.protocol === 'https:' ? 443 : 80));
  const to = away ? away.target : target;
  const dialled = to.portMap[port];
  if (dialled !== undefined) next.port = String(dialled);
  else if (to.onlyMappedPorts) throw new RequestRefused('REDIRECT_REFUSED', `${who} redirected to port ${port} of ${next.hostname}, which the simulated device does not serve`);
  return { url: next, away };
}
