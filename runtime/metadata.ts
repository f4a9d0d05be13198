// The metadata a driver may attach to a metric (D.createMetric) or to a table cell
// (table.addMetrics): a few named texts, such as { url } for a link to a cloud console. One
// checker for both, so the two follow the same rules; bounds.metadata* say how much is kept.
import { bounds } from './constants';
import { raise } from './error-text';
import { defineProperty, isArray, objectKeys, SavedString } from './intrinsics';

export type Metadata = Record<string, string>;

/**
 * `given` checked and kept as text, keys in the driver's order; null when there is nothing to
 * keep (none given, or an object with no entries but null/undefined ones). `where` starts each
 * error ("D.createMetric \"uid\"", "cell 3 of record \"r\" in table \"t\"").
 */
export function checkMetadata(given: unknown, where: string): Metadata | null {
  if (given === undefined || given === null) return null;
  if (typeof given !== 'object' || isArray(given)) {
    throw raise(new TypeError(`${where}: metadata must be an object such as { url: "https://…" } (got ${isArray(given) ? 'an array' : typeof given})`));
  }
  const keys = objectKeys(given);
  if (keys.length > bounds.metadataKeys) throw raise(new RangeError(`${where}: metadata has ${keys.length} keys; at most ${bounds.metadataKeys}`));
  let out: Metadata | null = null;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key.length > bounds.metadataKey) throw raise(new RangeError(`${where}: a metadata key is ${key.length} characters long; at most ${bounds.metadataKey}`));
    const value = (given as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    const text = SavedString(value);
    if (text.length > bounds.metadataText) throw raise(new RangeError(`${where}: metadata.${key} is ${text.length} characters long; at most ${bounds.metadataText}`));
    if (out === null) out = {};
    put(out, key, text);
  }
  return out;
}

/** Characters a metadata object holds (keys and texts): what a table's budget counts. */
export function metadataSize(metadata: Metadata): number {
  const keys = objectKeys(metadata);
  let size = 0;
  for (let i = 0; i < keys.length; i++) size += keys[i]!.length + metadata[keys[i]!]!.length;
  return size;
}

/** out[key] = text as an own property: no setter a driver put on Object.prototype runs. */
function put(out: Metadata, key: string, text: string): void {
  defineProperty(out, key, { value: text, enumerable: true, writable: true, configurable: true });
}

/** A copy the driver may change without changing the table's. */
export function copyMetadata(metadata: Metadata): Metadata {
  const keys = objectKeys(metadata);
  const out: Metadata = {};
  for (let i = 0; i < keys.length; i++) put(out, keys[i]!, metadata[keys[i]!]!);
  return out;
}
