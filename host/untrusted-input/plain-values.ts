// Checks on what a driver hands the host thread. Its options arrive as parsed JSON (plain
// objects, arrays, strings, numbers, booleans, null) but of any shape and depth: nothing is
// converted with String() or JSON.stringify before its type is known, and nothing deep is
// walked recursively on the host thread, whose stack is the whole process's.

/** Deeper JSON than this is refused, both ways: no real device API nests a tenth as deep. */
export const MAX_JSON_DEPTH = 256;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a parsed value nests deeper than `max` arrays/objects; iterative, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(item) ? item : Object.values(item as object);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Whether JSON text nests deeper than `max`, without parsing it: brackets outside strings are
 * counted. Text shorter than twice the bound cannot, and is not scanned (the common case).
 */
export function jsonTextNestsDeeperThan(text: string, max: number): boolean {
  if (text.length <= 2 * max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
    }
  }
  return false;
}

/** A primitive a driver may give where text is expected: strings as they are, numbers and booleans as JSON writes them. */
export function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  return null;
}

/** A short, safe description of a value for an error message (never the host's String() of an object). */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return String(value);
}

/** A number option: a number, or a string of one (as request accepted); never an object's valueOf. */
export function numberOption(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && value.length <= 32) return Number(value);
  return NaN;
}
