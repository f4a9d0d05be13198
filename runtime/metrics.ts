// D.createMetric(spec): the object form of D.createVariable that newer Domotz sandboxes offer
// (drivers in the public corpus use it for a link to a cloud console: { uid, name, value,
// metadata: { url }, valueType, unit }). It makes the same variable createVariable does, by the
// same rules, so D.success takes it with the others; `metadata` stays on the returned variable
// for the driver to read, and is not part of the run's result (see docs/reference/driver-api/create-metric.md).
import { raise } from './error-text';
import { hasOwn, isArray } from './intrinsics';
import { checkMetadata } from './metadata';
import type { Variable } from './variables';

type CreateVariable = (uid: unknown, label: unknown, value: unknown, unit?: unknown, type?: unknown) => Variable;

export function createMetricFactory(createVariable: CreateVariable) {
  return function createMetric(spec: unknown): Variable & { metadata?: Record<string, string> } {
    if (typeof spec !== 'object' || spec === null || isArray(spec)) {
      throw raise(new TypeError(`D.createMetric: expects one object { uid, name, value, unit?, valueType?, metadata? } (got ${spec === null ? 'null' : isArray(spec) ? 'an array' : typeof spec})`));
    }
    const s = spec as Record<string, unknown>;
    // `name` is the label, as in the drivers that use it; `label` is taken too.
    const label = s.name !== undefined && s.name !== null ? s.name : s.label;
    const variable = createVariable(s.uid, label, s.value, s.unit, s.valueType) as Variable & { metadata?: Record<string, string> };
    const metadata = checkMetadata(hasOwn(s, 'metadata') ? s.metadata : undefined, `D.createMetric "${variable.uid}"`);
    if (metadata) variable.metadata = metadata;
    return variable;
  };
}
