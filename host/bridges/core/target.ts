// Where a run's calls may go: its device or an external host it created (D.createExternalDevice),
// with the credentials, port map, pinned address and session key of each. Every protocol's calls
// (HTTP, TLS, SSH, Telnet, SNMP, WinRM, TFTP) are dialled through one of these targets.
import { createHash } from 'node:crypto';
import { deviceKey, type DeviceSpec } from '../../contract/device.js';

/** One of the run's targets: its device, or an external host (D.createExternalDevice, a redirect's). */
export interface RunTarget {
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
  /** A host other than the run's device (D.createExternalDevice, or a redirect's). */
  external?: true;
  /** Only portMap's ports are dialled (a simulator, DeviceSpec.onlyMappedPorts): another is refused. */
  onlyMappedPorts?: boolean;
}

/** Host names a run dials at a given address, as a hosts file would: lower-case name → where. */
export type ResolveMap = ReadonlyMap<string, { ip: string; portMap: Record<number, number>; onlyMappedPorts?: boolean }>;

/**
 * A digest of credentials, for a session's key: a session logged in with one set is never
 * handed to another (two devices at one address, a password changed). Never the credentials.
 */
export function credentialsDigest(username: string | null | undefined, password: string | null | undefined): string {
  if (!username && !password) return 'anon';
  return createHash('sha256').update(`${username ?? ''}\0${password ?? ''}`).digest('base64url').slice(0, 22);
}

export function deviceTarget(device: DeviceSpec, resolve: ResolveMap = new Map()): RunTarget {
  const pinned = device.host ? resolve.get(device.host.toLowerCase()) : undefined;
  const key = `${deviceKey(device)}|creds:${credentialsDigest(device.username, device.password)}`;
  return {
    host: device.host ?? null,
    ip: device.ip ?? null,
    username: device.username ?? null,
    password: device.password ?? null,
    portMap: { ...pinned?.portMap, ...device.portMap },
    // A pinned name is another way to the device: its connections are not shared with DNS's.
    sessionKey: pinned ? `${key}@${pinned.ip}` : key,
    pinnedIp: pinned?.ip ?? null,
    ...(device.onlyMappedPorts === true || pinned?.onlyMappedPorts === true ? { onlyMappedPorts: true } : {}),
  };
}

/**
 * A host reached through D.createExternalDevice: its own credentials, jar and connections.
 * `host` is canonical (canonicalHost): the name the policy judged is the one dialled.
 */
export function externalTarget(
  owner: RunTarget,
  host: string,
  credentials: { username?: string; password?: string } | null,
  resolve: ResolveMap = new Map(),
): RunTarget {
  const pinned = resolve.get(host.toLowerCase());
  return {
    host,
    ip: host,
    username: credentials?.username ?? null,
    password: credentials?.password ?? null,
    portMap: { ...pinned?.portMap },
    sessionKey: `${owner.sessionKey} external:${host}${pinned ? `@${pinned.ip}` : ''}|creds:${credentialsDigest(credentials?.username, credentials?.password)}`,
    pinnedIp: pinned?.ip ?? null,
    external: true,
    ...(pinned?.onlyMappedPorts === true ? { onlyMappedPorts: true } : {}),
  };
}
