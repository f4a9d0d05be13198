// The `resolve` option of a run: host names dialled at a given address, as a hosts file
// would (a simulated device or cloud API on loopback, split DNS). Checked once per run.
import net from 'node:net';
import type { ResolveMap } from './target.js';
import { DriverboxError } from '../../contract/errors.js';
import type { ResolveOption } from '../../contract/run-request.js';

const NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*\.?$/i;

function bad(message: string): never {
  throw new DriverboxError('INVALID_OPTIONS', `resolve: ${message}`);
}

function port(value: unknown, where: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65535) bad(`${where} must be a port from 1 to 65535 (got ${JSON.stringify(value)})`);
  return n;
}

export function readResolveOption(option: ResolveOption | undefined): ResolveMap {
  const map = new Map<string, { ip: string; portMap: Record<number, number>; onlyMappedPorts?: boolean }>();
  if (option === undefined) return map;
  if (!option || typeof option !== 'object' || Array.isArray(option)) bad('must be an object of host name → IP or { ip, portMap }');
  for (const [name, value] of Object.entries(option)) {
    if (!NAME.test(name) || net.isIP(name)) bad(`"${name}" is not a host name`);
    const entry = typeof value === 'string' ? { ip: value } : value;
    if (!entry || typeof entry !== 'object' || typeof entry.ip !== 'string' || !net.isIP(entry.ip)) {
      bad(`"${name}" must map to an IP address or { ip, portMap } (got ${JSON.stringify(value)})`);
    }
    const portMap: Record<number, number> = {};
    if (entry.portMap !== undefined) {
      if (!entry.portMap || typeof entry.portMap !== 'object') bad(`"${name}".portMap must be an object of port → port`);
      for (const [from, to] of Object.entries(entry.portMap)) portMap[port(from, `"${name}".portMap key`)] = port(to, `"${name}".portMap[${from}]`);
    }
    // A simulator's pin: only its ports (another port of its address is the host machine's own).
    const only = typeof value === 'object' && value.onlyMappedPorts === true ? { onlyMappedPorts: true } : {};
    map.set(name.toLowerCase().replace(/\.$/, ''), { ip: entry.ip, portMap, ...only });
  }
  return map;
}
