// Fixtures and recordings come with drivers (a repository, a package, a bug report): they are
// untrusted input, like the driver. This module is what their loaders share: a file read with
// its size bounded before a byte is parsed, JSON checked for depth (in linear time) before it is
// parsed and for prototype keys after, and file references kept inside the fixture's folder.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { jsonTextNestsDeeperThan, MAX_JSON_DEPTH } from './plain-values.js';

/** A fixture file (its JSON), bytes: hand-written routes are kilobytes; bodies go in body files. */
export const MAX_FIXTURE_BYTES = 16 * 1024 * 1024;
/** One body file, bytes: the run's default maxResponseBytes, the most a live answer may be. */
export const MAX_BODY_FILE_BYTES = 16 * 1024 * 1024;
/** All the body files of one fixture together, bytes: the simulator holds them in memory. */
export const MAX_FIXTURE_BODY_BYTES = 64 * 1024 * 1024;
/** Routes of one fixture, and answers of all its routes together. */
export const MAX_FIXTURE_ROUTES = 1_000;
export const MAX_FIXTURE_RESPONSES = 10_000;
/** A recording file, bytes: a run's answers (bounded by its limits), base64 for binary ones. */
export const MAX_RECORDING_BYTES = 64 * 1024 * 1024;
/** Exchanges of one recording: ten times a run's default bounds on requests and commands. */
export const MAX_RECORDED_EXCHANGES = 20_000;

/** Keys that name an object's prototype machinery: never data, refused wherever they appear. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export class UntrustedInputError extends Error {}

/**
 * The text of `file`, refused past `maxBytes` before anything is read, and refused unless it is a
 * regular file (a FIFO or a device would never end).
 */
export function readBoundedText(file: string, maxBytes: number, what: string): string {
  return readBoundedFile(file, maxBytes, what).toString('utf8');
}

/** The bytes of `file`, with readBoundedText's rules. Errors are UntrustedInputError, or the fs error (ENOENT…). */
export function readBoundedFile(file: string, maxBytes: number, what: string, flags = 0): Buffer {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not a file.
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | flags);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('it is a directory'), { code: 'EISDIR' });
    if (!stat.isFile()) throw new UntrustedInputError(`${what} is not a regular file`);
    if (stat.size > maxBytes) throw new UntrustedInputError(`${what} is ${stat.size} bytes, larger than the limit of ${maxBytes} bytes`);
    // Read up to one byte past the bound: a file that grew since fstat is refused too.
    const buffer = Buffer.allocUnsafe(Math.min(stat.size, maxBytes) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > maxBytes) throw new UntrustedInputError(`${what} is larger than the limit of ${maxBytes} bytes`);
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * JSON.parse of untrusted text: refused when it nests deeper than MAX_JSON_DEPTH (checked on the
 * text, linearly, before parsing: the checks after walk it) or holds a prototype key anywhere.
 * SyntaxError is thrown as JSON.parse throws it; the rest as UntrustedInputError.
 */
export function parseUntrustedJson(text: string): unknown {
  if (jsonTextNestsDeeperThan(text, MAX_JSON_DEPTH)) throw new UntrustedInputError(`nests deeper than ${MAX_JSON_DEPTH} levels`);
  const value: unknown = JSON.parse(text);
  const at = prototypeKeyPath(value);
  if (at !== null) throw new UntrustedInputError(prototypeKeyMessage(at));
  return value;
}

export function prototypeKeyMessage(at: string): string {
  return `${at}: the key ${JSON.stringify(at.slice(at.lastIndexOf('.') + 1))} is not allowed (${[...PROTOTYPE_KEYS].map((k) => `"${k}"`).join(', ')} name JavaScript's object machinery, never data)`;
}

/**
 * The path of the first prototype key in a parsed value (`routes[2].json.__proto__`), or null.
 * Iterative: a value built in code may nest deeper than the stack.
 */
export function prototypeKeyPath(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  const seen = new Set<object>(); // an object made in code may be shared, or cyclic
  while (stack.length > 0) {
    const [item, at] = stack.pop()!;
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    seen.add(item);
    if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) stack.push([item[i], `${at}[${i}]`]);
      continue;
    }
    for (const key of Object.keys(item)) {
      const child = at ? `${at}.${key}` : key;
      if (PROTOTYPE_KEYS.has(key)) return child;
      stack.push([(item as Record<string, unknown>)[key], child]);
    }
  }
  return null;
}

/**
 * Resolves a file a fixture names (`bodyFile`) inside `baseDir`: relative, no `..`, no absolute
 * or drive path, and — once symbolic links (of the file or of a folder on the way) are resolved
 * — still inside the real `baseDir`. Returns the real path; throws UntrustedInputError saying why not.
 */
export function containedFile(baseDir: string, name: string): string {
  if (name.includes('\0')) throw new UntrustedInputError('contains a NUL character');
  // Both separators: a fixture written on Windows names its files with "\".
  const parts = name.split(/[\\/]/);
  if (path.isAbsolute(name) || path.win32.isAbsolute(name) || /^[A-Za-z]:/.test(name)) {
    throw new UntrustedInputError("is an absolute path: a fixture's files are named relative to its folder");
  }
  if (parts.includes('..')) throw new UntrustedInputError('contains "..": a fixture\'s files must be inside its folder');
  const realBase = realpathSync(baseDir);
  const full = path.resolve(realBase, ...parts);
  // ENOENT and the like are the caller's to report as they are.
  const real = realpathSync(full);
  if (!isInside(realBase, real)) {
    throw new UntrustedInputError(`is (or is inside) a symbolic link that leads outside the fixture's folder ${realBase}`);
  }
  return real;
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}
