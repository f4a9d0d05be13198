// Where a run goes among the sandbox threads, and each thread's share of the host's isolates:
// a device's runs always to the same thread (it keeps the device's sessions).
import { deviceKey, type DeviceSpec } from '../../contract/device.js';

/** A string's FNV-1a hash: which thread a device's runs go to. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/**
 * The thread index a device is pinned to, so that its sessions (cookie jars, connections) stay
 * one; null for a run without a device (no id, address or host name), which any thread may take.
 */
export function pinFor(device: DeviceSpec, threads: number): number | null {
  const named = (value: unknown) => value !== undefined && value !== null && value !== '';
  if (!named(device.id) && !named(device.ip) && !named(device.host)) return null;
  return threads === 1 ? 0 : hashOf(deviceKey(device)) % threads;
}

/** Splits `total` over `parts`: the first ones get the remainder. */
export const share = (total: number, parts: number, index: number) => Math.floor(total / parts) + (index < total % parts ? 1 : 0);
