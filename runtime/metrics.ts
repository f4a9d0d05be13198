// D.createMetric(spec): the object form of D.createVariable that newer Domotz sandboxes offer
// (drivers in the public corpus use it for a link to a cloud console: { uid, name, value,
// metadata: { url }, valueType, unit }). It makes the same variable createVariable does, by the
// same rules, so D.success takes it with the others; `metadata` stays on the returned variable
// for the driver to read, and is not part of the run's result (see docs/driver-api/create-metric.md).
import { raise } from './error-text';
import { hasOwn, isArray, objectKeys, SavedString } from './intrinsics';
import type { Variable } from './variables';

type CreateVariable = (uid: unknown, label: unknown, value: unknown, unit?: unknown, type?: unknown) => Variable;

/** Metadata entries kept: a link or two, never a payload. */
const MAX_METADATA_KEYS = 20;
const MAX_METADATA_TEXT = 2_000;

function metadataOf(given: unknown, uid: string): Record<string, string> | null {
  if (given === undefined || given === null) return null;
  if (typeof given !== 'object' || isArray(given)) {
    throw raise(new TypeError(`D.createMetric "${uid}": metadata must be an object such as { url: "https://…" } (got ${isArray(given) ? 'an array' : typeof given})`));
  }
  const keys = objectKeys(given);
  if (keys.length > MAX_METADATA_KEYS) throw raise(new RangeError(`D.createMetric "${uid}": metadata has ${keys.length} keys; at most ${MAX_METADATA_KEYS}`));
  const out: Record<string, string> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const value = (given as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    const text = SavedString(value);
    if (text.length > MAX_METADATA_TEXT) throw raise(new RangeError(`D.createMetric "${uid}": metadata.${key} is ${text.length} characters long; at most ${MAX_METADATA_TEXT}`));
    out[key] = text;
  }
  return out;
}

export function createMetricFactory(createVariable: CreateVariable) {
  return function createMetric(spec: unknown): Variable & { metadata?: Record<string, string> } {
    if (typeof spec !== 'object' || spec === null || isArray(spec)) {
      throw raise(new TypeError(`D.createMetric: expects one object { uid, name, value, unit?, valueType?, metadata? } (got ${spec === null ? 'null' : isArray(spec) ? 'an array' : typeof spec})`));
    }
    const s = spec as Record<string, unknown>;
    // `name` is the label, as in the drivers that use it; `label` is taken too.
    const label = s.name !== undefined && s.name !== null ? s.name : s.label;
    const variable = createVariable(s.uid, label, s.value, s.unit, s.valueType) as Variable & { metadata?: Record<string, string> };
    const metadata = metadataOf(hasOwn(s, 'metadata') ? s.metadata : undefined, variable.uid);
    if (metadata) variable.metadata = metadata;
    return variable;
  };
}
