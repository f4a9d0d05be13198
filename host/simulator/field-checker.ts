// Checks the fields of a hand-written JSON document and collects every problem with
// the path of its field (`routes[3].status: must be …`) instead of stopping at the first.

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

/** Edit distance, to suggest the field a typo meant. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** " (did you mean "x"?)" for a name close to one of `known`, else "". */
export function suggestion(key: string, known: readonly string[]): string {
  const lower = key.toLowerCase();
  const close = known.filter((k) => k.toLowerCase() === lower || distance(lower, k.toLowerCase()) <= 2 || (lower.length > 3 && k.toLowerCase().startsWith(lower)));
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
