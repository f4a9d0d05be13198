// Checks the fields of a hand-written JSON document and collects every problem with
// the path of its field (`routes[3].status: must be …`) instead of stopping at the first.
import { boundedEditDistance, MAX_WORD_CHARS } from '../closest-name.js';

/** `routes[3]` + `status` → `routes[3].status`; keys that are not identifiers are quoted. */
export function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const part = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  if (!parent) return part;
  return part.startsWith('[') ? `${parent}${part}` : `${parent}.${part}`;
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** Names suggested at most, and the largest edit distance suggested. */
const MAX_SUGGESTIONS = 3;
const MAX_DISTANCE = 2;

/**
 * " (did you mean "x"?)" for a name close to one of `known` (same but for case, within 2 edits, or
 * its start), else "". Bounded: a name past MAX_WORD_CHARS gets none, and each comparison stops
 * past 2 edits (an inventory's names are as long and as many as its author made them).
 */
export function suggestion(key: string, known: readonly string[]): string {
  if (key.length > MAX_WORD_CHARS) return '';
  const lower = key.toLowerCase();
  const close: string[] = [];
  for (const k of known) {
    if (close.length === MAX_SUGGESTIONS) break;
    if (k.length > MAX_WORD_CHARS) continue;
    const other = k.toLowerCase();
    if (other === lower || boundedEditDistance(lower, other, MAX_DISTANCE) <= MAX_DISTANCE || (lower.length > 3 && other.startsWith(lower))) close.push(k);
  }
  return close.length ? ` (did you mean ${close.map((k) => `"${k}"`).join(' or ')}?)` : '';
}

export class FieldChecker {
  readonly problems: string[] = [];

  problem(path: string, message: string): void {
    this.problems.push(`${path}: ${message}`);
  }

  /** A JSON object (not a list, not null), else a problem and null. */
  object(value: unknown, path: string): Record<string, unknown> | null {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    this.problem(path, `must be an object (got ${describeValue(value)})`);
    return null;
  }

  /** Every key of `object` must be one of `known`. */
  knownFields(object: Record<string, unknown>, path: string, known: readonly string[]): void {
    for (const key of Object.keys(object)) {
      if (!known.includes(key)) this.problem(fieldPath(path, key), `unknown field${suggestion(key, known)}`);
    }
  }

  string(value: unknown, path: string): string | null {
    if (typeof value === 'string' && value !== '') return value;
    this.problem(path, `must be a non-empty string (got ${describeValue(value)})`);
    return null;
  }

  integer(value: unknown, path: string, min: number, max: number): number | null {
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
    this.problem(path, `must be an integer ${min}–${max} (got ${describeValue(value)})`);
    return null;
  }

  oneOf<T extends string>(value: unknown, path: string, choices: readonly T[]): T | null {
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    this.problem(path, `must be ${choices.map((c) => `"${c}"`).join(', ').replace(/, ([^,]*)$/, ' or $1')} (got ${describeValue(value)})`);
    return null;
  }

  /** A string or a non-empty list of strings → a list. */
  stringOrList(value: unknown, path: string): string[] | null {
    if (typeof value === 'string') return this.string(value, path) === null ? null : [value];
    if (!Array.isArray(value) || value.length === 0) {
      this.problem(path, `must be a string or a non-empty list of strings (got ${describeValue(value)})`);
      return null;
    }
    const items = value.map((item, i) => this.string(item, fieldPath(path, i)));
    return items.every((item) => item !== null) ? (items as string[]) : null;
  }

  /** A non-empty list of distinct ports. */
  ports(value: unknown, path: string): number[] | null {
    if (!Array.isArray(value) || value.length === 0) {
      this.problem(path, `must be a non-empty list of ports (got ${describeValue(value)})`);
      return null;
    }
    const ports = value.map((item, i) => this.integer(item, fieldPath(path, i), 1, 65535));
    if (ports.some((p) => p === null)) return null;
    const duplicate = ports.find((p, i) => ports.indexOf(p) !== i);
    if (duplicate !== undefined) {
      this.problem(path, `lists port ${duplicate} twice`);
      return null;
    }
    return ports as number[];
  }

  /**
   * An object of name → expected value: a string, or `true` for "any value".
   * `name` checks each key; the result is null when anything was wrong.
   */
  expectations(value: unknown, path: string, name: { test: RegExp; what: string }): Record<string, string | true> | null {
    const object = this.object(value, path);
    if (!object) return null;
    const out: Record<string, string | true> = {};
    let ok = true;
    for (const [key, expected] of Object.entries(object)) {
      const at = fieldPath(path, key);
      if (!name.test.test(key)) {
        this.problem(at, `is not a valid ${name.what}`);
        ok = false;
      } else if (typeof expected === 'string' || expected === true) {
        out[key] = expected;
      } else {
        this.problem(at, `must be a string, or true for any value (got ${describeValue(expected)})`);
        ok = false;
      }
    }
    return ok ? out : null;
  }
}
