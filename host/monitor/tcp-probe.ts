// One TCP probe: connect to a device's port, as a TCP sensor checks a service. UP when the
// connection is accepted; DOWN when it is refused, times out or fails otherwise. The time
// from dialling to the answer (accept or refusal) is a real round trip and is measured.
import { connect } from 'node:net';

export const DEFAULT_PROBE_TIMEOUT_MS = 3000;

export type ProbeReason = 'connected' | 'refused' | 'timeout' | 'unreachable' | 'no-address';

export interface TcpProbeResult {
  status: 'UP' | 'DOWN';
  reason: ProbeReason;
  /** ms from dialling (after name resolution) to the answer; null when nothing answered. */
  rttMs: number | null;
  /** The host and port dialled (after the port map), or null without an address. */
  dialled: { host: string; port: number } | null;
  /** The socket error when DOWN for another reason than a refusal or a timeout. */
  error?: string;
}

/** Where a device is reached: its IP or host name, and its port map (device port → port dialled). */
export interface DeviceAddress {
  ip: string | null;
  hostName: string | null;
  portMap: Record<string, number>;
}

/** The host and port a probe of this device port dials, or null when the device has no address. */
export function dialTarget(device: DeviceAddress, port: number): { host: string; port: number } | null {
  const host = device.ip ?? device.hostName;
  if (!host) return null;
  return { host, port: device.portMap[String(port)] ?? port };
}

/** Connects once to host:port and closes at once; never rejects. */
export function probeTcp(target: { host: string; port: number }, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<TcpProbeResult> {
  return new Promise((resolve) => {
    let started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const socket = connect({ host: target.host, port: target.port });
    const finish = (result: Omit<TcpProbeResult, 'dialled'>) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => {}); // a late reset after destroy is not news
      socket.destroy();
      resolve({ ...result, dialled: target });
    };
    // The timeout covers name resolution and connecting, so a probe never hangs longer.
    const timer = setTimeout(() => finish({ status: 'DOWN', reason: 'timeout', rttMs: null }), timeoutMs);
    // A host name is resolved first; the round trip is timed from when the SYN can leave.
    socket.once('lookup', () => {
      started = process.hrtime.bigint();
    });
    socket.once('connect', () => finish({ status: 'UP', reason: 'connected', rttMs: elapsed() }));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      if (isRefusal(error)) finish({ status: 'DOWN', reason: 'refused', rttMs: elapsed() });
      else finish({ status: 'DOWN', reason: 'unreachable', rttMs: null, error: `${error.code ?? 'ERROR'}: ${error.message}` });
    });
  });
}

/** Probes a device's port at its address (through its port map). */
export async function probeDevicePort(device: DeviceAddress, port: number, timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<TcpProbeResult> {
  const target = dialTarget(device, port);
  if (!target) return { status: 'DOWN', reason: 'no-address', rttMs: null, dialled: null };
  return probeTcp(target, timeoutMs);
}

/** A refusal, also when every address of a host name refused (Node then throws an AggregateError). */
function isRefusal(error: NodeJS.ErrnoException): boolean {
  if (error.code === 'ECONNREFUSED') return true;
  const inner = (error as Error & { errors?: NodeJS.ErrnoException[] }).errors;
  return Array.isArray(inner) && inner.length > 0 && inner.every((e) => e.code === 'ECONNREFUSED');
}
