// Built-ins as they were when the runtime bundle ran, before any driver code: what D sends to
// the host, reads back, and the text of the errors it describes go through these, so a driver
// that replaces JSON.stringify, Array.prototype.join, Function.prototype.call or a String method
// changes its own calls only. (The host checks what arrives anyway: host/engine/isolate/check-report.ts.)
//
// Methods are "uncurried" with bind, once: a bound function calls its target directly, so
// neither the method's later replacement nor a replaced Function.prototype.call/apply reaches it.
const bind = Function.prototype.bind;
const call = Function.prototype.call;
/** f(thisArg, ...args) for a method f saved now. */
const uncurry = bind.bind(call) as <A extends unknown[], R>(fn: (...args: A) => R) => (self: unknown, ...args: A) => R;

export const stringify = JSON.stringify;
export const parse = JSON.parse;
/** Object.hasOwn as it was: no Function.prototype.call a driver may have replaced. */
export const hasOwn = Object.hasOwn;
export const objectKeys = Object.keys;
export const isArray = Array.isArray;
export const SavedString = String;
export const SavedError = Error;
export const getPrototypeOf = Object.getPrototypeOf;
export const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
export const defineProperty = Object.defineProperty;
export const reflectApply = Reflect.apply;

export const stringSlice = uncurry(String.prototype.slice) as (s: string, start: number, end?: number) => string;
export const stringIndexOf = uncurry(String.prototype.indexOf) as (s: string, search: string, from?: number) => number;
export const stringTrim = uncurry(String.prototype.trim) as (s: string) => string;
export const stringStartsWith = uncurry(String.prototype.startsWith) as (s: string, search: string) => boolean;
export const stringIncludes = uncurry(String.prototype.includes) as (s: string, search: string) => boolean;
export const regexpTest = uncurry(RegExp.prototype.test) as (re: RegExp, s: string) => boolean;
export const regexpSource = uncurry(Object.getOwnPropertyDescriptor(RegExp.prototype, 'source')!.get!) as (re: RegExp) => string;
export const regexpFlags = uncurry(Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags')!.get!) as (re: RegExp) => string;

// Map, Set and WeakSet operations as they were: used on the runtime's own collections.
export const mapGet = uncurry(Map.prototype.get) as <K, V>(map: Map<K, V>, key: K) => V | undefined;
export const mapSet = uncurry(Map.prototype.set) as <K, V>(map: Map<K, V>, key: K, value: V) => Map<K, V>;
export const mapHas = uncurry(Map.prototype.has) as <K, V>(map: Map<K, V>, key: K) => boolean;
export const mapDelete = uncurry(Map.prototype.delete) as <K, V>(map: Map<K, V>, key: K) => boolean;
export const setHas = uncurry(Set.prototype.has) as <T>(set: Set<T>, value: T) => boolean;
export const setAdd = uncurry(Set.prototype.add) as <T>(set: Set<T>, value: T) => Set<T>;
export const weakSetHas = uncurry(WeakSet.prototype.has) as (set: WeakSet<object>, value: object) => boolean;
export const weakSetAdd = uncurry(WeakSet.prototype.add) as (set: WeakSet<object>, value: object) => WeakSet<object>;

/** Appends to an array by index: no Array.prototype.push a driver may have replaced. */
export function append<T>(list: T[], value: T): void {
  list[list.length] = value;
}

/** list.join(separator) without Array.prototype.join (nor the list's own toString). */
export function joinText(list: readonly string[], separator: string): string {
  let text = '';
  for (let i = 0; i < list.length; i++) text = i === 0 ? list[i]! : text + separator + list[i]!;
  return text;
}

/** text.split('\n') without String.prototype.split (nor a RegExp's Symbol.split). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (;;) {
    const at = stringIndexOf(text, '\n', start);
    if (at < 0) {
      append(lines, stringSlice(text, start));
      return lines;
    }
    append(lines, stringSlice(text, start, at));
    start = at + 1;
  }
}
