// What may cross to the sandbox process: plain data only. A function or symbol in a run
// request (an externalHosts predicate, a callback in parameters) would fail deep inside
// the IPC serializer with a vague DataCloneError; name the field instead.
import { DriverboxError } from '../../contract/errors.js';

/** The path of the first value structured clone cannot copy, or null when all can be sent. */
export function findUnsendable(value: unknown, where: string, seen = new Set<object>()): string | null {
  if (typeof value === 'function') return `${where} is a function`;
  if (typeof value === 'symbol') return `${where} is a symbol`;
  if (value === null || typeof value !== 'object' || seen.has(value)) return null;
  seen.add(value);
  const entries = value instanceof Map ? [...value.entries()].map(([k, v]) => [String(k), v] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    const found = findUnsendable(item, Array.isArray(value) ? `${where}[${key}]` : `${where}.${key}`, seen);
    if (found) return found;
  }
  return null;
}

/** Throws INVALID_OPTIONS naming the field when `value` cannot be sent to the sandbox process. */
export function assertSendable(value: unknown, where: string, what: string): void {
  const found = findUnsendable(value, where);
  if (found) throw new DriverboxError('INVALID_OPTIONS', `${what}: ${found}, which cannot be sent to the sandbox process (only plain data can; give externalHosts as a list of host names)`);
}
