// Answers leave an unknown optional field out: reference 1.14.0 never types a field nullable, and clients with
// models generated from it reject a null. (A route's response schema cannot do it: the serializer turns a null into
// "" or 0 for a field typed string or integer.)

/** A record type whose nullable properties become optional, without null. */
export type WithoutNulls<T> = { [K in keyof T as null extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as null extends T[K] ? K : never]?: Exclude<T[K], null>;
};

/** The record without its null (or undefined) properties, in nested plain objects too; arrays are kept as they are. */
export function withoutNulls<T extends object>(record: T): WithoutNulls<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === null || value === undefined) continue;
    out[key] = isPlainObject(value) ? withoutNulls(value) : value;
  }
  return out as WithoutNulls<T>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
