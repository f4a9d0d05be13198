// Where a driver's request may go: the run's device or an external host it created,
// and how a request URL is built from the driver's options (a path only, never a host).
import type { DeviceSpec } from '../../device.js';

export interface HttpTarget {
  /** Host name (preferred unless useHostname: false) and IP of the target. */
  host: string | null;
  ip: string | null;
  username: string | null;
  password: string | null;
  portMap: Record<number, number>;
}

export class RequestRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export function deviceTarget(device: DeviceSpec): HttpTarget {
  return {
    host: device.host ?? null,
    ip: device.ip ?? null,
    username: device.username ?? null,
    password: device.password ?? null,
    portMap: device.portMap ?? {},
  };
}

export interface BuiltUrl {
  url: URL;
  /** The same URL with the password placeholder shown as *** (for transcripts). */
  shown: string;
}

/** Builds the request URL; anything that could reach another host or port is refused. */
export function buildUrl(target: HttpTarget, options: Record<string, unknown>): BuiltUrl {
  const protocol = options.protocol === undefined ? 'http' : options.protocol;
  if (protocol !== 'http' && protocol !== 'https') {
    throw new RequestRefused('INVALID_OPTIONS', `protocol must be 'http' or 'https' (got ${JSON.stringify(protocol)})`);
  }
  const useHostname = options.useHostname !== false;
  const hostname = (useHostname && target.host) || target.ip;
  if (!hostname) throw new RequestRefused('MISSING_DEVICE_ADDRESS', 'the device has no IP address or host name to send the request to');
  const defaultPort = protocol === 'https' ? 443 : 80;
  const port = options.port === undefined || options.port === null ? defaultPort : Number(options.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RequestRefused('INVALID_OPTIONS', `port must be an integer from 1 to 65535 (got ${JSON.stringify(options.port)})`);
  const dialled = target.portMap[port] ?? port;

  const suffix = options.url === undefined ? '/' : options.url;
  if (typeof suffix !== 'string') throw new RequestRefused('INVALID_URL', 'url must be a string path such as "/status"');
  if (/[\r\n\\]/.test(suffix) || /[\u0000-\u001f\u007f]/.test(suffix)) {
    throw new RequestRefused('INVALID_URL', `url ${JSON.stringify(suffix)} contains a control character or backslash`);
  }
  if (!suffix.startsWith('/') || suffix.startsWith('//')) {
    throw new RequestRefused('INVALID_URL', `url ${JSON.stringify(suffix)} must be a path starting with a single "/": a driver cannot choose the host`);
  }
  const fill = (text: string, password: string) =>
    text.replaceAll('${username}', encodeURIComponent(target.username ?? '')).replaceAll('${password}', password);
  const origin = `${protocol}://${hostname.includes(':') ? `[${hostname}]` : hostname}:${dialled}`;
  const url = new URL(fill(suffix, encodeURIComponent(target.password ?? '')), origin);
  if (url.origin !== new URL(origin).origin || url.username || url.password) {
    throw new RequestRefused('INVALID_URL', `url ${JSON.stringify(suffix)} would leave the device`);
  }
  return { url, shown: new URL(fill(suffix, '***'), origin).href };
}
