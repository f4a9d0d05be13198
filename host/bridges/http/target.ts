// Where a driver's request may go: the run's device or an external host it created,
// and how a request URL is built from the driver's options (a path only, never a host).
import { deviceKey, type DeviceSpec } from '../../device.js';

export interface HttpTarget {
  /** Host name (preferred unless useHostname: false) and IP of the target. */
  host: string | null;
  ip: string | null;
  username: string | null;
  password: string | null;
  portMap: Record<number, number>;
  /** Which session (cookie jar, connections) in the host serves this target. */
  sessionKey: string;
  /** The address the host name is dialled at when the run pins it (RunRequest.resolve); else DNS decides. */
  pinnedIp: string | null;
}

/** Host names a run dials at a given address, as a hosts file would: lower-case name → where. */
export type ResolveMap = ReadonlyMap<string, { ip: string; portMap: Record<number, number> }>;

export class RequestRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export function deviceTarget(device: DeviceSpec, resolve: ResolveMap = new Map()): HttpTarget {
  const pinned = device.host ? resolve.get(device.host.toLowerCase()) : undefined;
  return {
    host: device.host ?? null,
    ip: device.ip ?? null,
    username: device.username ?? null,
    password: device.password ?? null,
    portMap: { ...pinned?.portMap, ...device.portMap },
    // A pinned name is another way to the device: its connections are not shared with DNS's.
    sessionKey: pinned ? `${deviceKey(device)}@${pinned.ip}` : deviceKey(device),
    pinnedIp: pinned?.ip ?? null,
  };
}

/** Builds the request URL; anything that could reach another host or port is refused. */
export function buildUrl(target: HttpTarget, options: Record<string, unknown>): URL {
  const protocol = options.protocol === undefined || options.protocol === null ? 'http' : options.protocol;
  if (protocol !== 'http' && protocol !== 'https') {
    throw new RequestRefused('INVALID_OPTIONS', `protocol must be 'http' or 'https' (got ${JSON.stringify(protocol)})`);
  }
  const useHostname = options.useHostname !== false;
  const hostname = (useHostname && target.host) || target.ip;
  if (!hostname) throw new RequestRefused('MISSING_DEVICE_ADDRESS', 'the device has no IP address or host name to send the request to');
  const defaultPort = protocol === 'https' ? 443 : 80;
  const port = options.port === undefined || options.port === null ? defaultPort : Number(options.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RequestRefused('INVALID_OPTIONS', `port must be an integer from 1 to 65535 (got ${JSON.stringify(options.port)})`);

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
  const base = `${protocol}://${hostname.includes(':') ? `[${hostname}]` : hostname}:${target.portMap[port] ?? port}`;
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
  if (typeof qs !== 'object' || Array.isArray(qs)) throw new RequestRefused('INVALID_OPTIONS', 'qs must be an object of query parameters');
  for (const [key, value] of Object.entries(qs as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
    else url.searchParams.append(key, value === null ? '' : String(value));
  }
}

function sameHost(a: string, b: string | null): boolean {
  if (!b) return false;
  const bare = (h: string) => h.replace(/^\[|\]$/g, '').toLowerCase();
  return bare(a) === bare(b);
}

/**
 * Where a redirect leads, if it stays on the device: the Location may name the device's
 * host name or IP (any port, mapped through the port map) but never another host.
 */
export function redirectTarget(target: HttpTarget, current: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new RequestRefused('REDIRECT_REFUSED', `the device redirected to an invalid location ${JSON.stringify(location)}`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new RequestRefused('REDIRECT_REFUSED', `the device redirected to ${JSON.stringify(location)}: only http and https are followed`);
  }
  if (next.username || next.password || !(sameHost(next.hostname, target.host) || sameHost(next.hostname, target.ip))) {
    throw new RequestRefused('REDIRECT_REFUSED', `the device redirected to ${next.origin}, which is not the device: redirects are only followed on the device itself`);
  }
  const port = Number(next.port || (next.protocol === 'https:' ? 443 : 80));
  const dialled = target.portMap[port];
  if (dialled !== undefined) next.port = String(dialled);
  return next;
}

/** A host reached through D.createExternalDevice: its own credentials, jar and connections. */
export function externalTarget(
  owner: HttpTarget,
  host: string,
  credentials: { username?: string; password?: string } | null,
  resolve: ResolveMap = new Map(),
): HttpTarget {
  const pinned = resolve.get(host.toLowerCase());
  return {
    host,
    ip: host,
    username: credentials?.username ?? null,
    password: credentials?.password ?? null,
    portMap: { ...pinned?.portMap },
    sessionKey: `${owner.sessionKey} external:${host.toLowerCase()}${pinned ? `@${pinned.ip}` : ''}|${credentials?.username ?? ''}`,
    pinnedIp: pinned?.ip ?? null,
  };
}
