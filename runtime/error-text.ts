// How an error a driver threw is shown: name, message and only the driver's own stack
// frames (so line numbers point into the driver, never into driverbox). Runs inside the
// isolate, under the call's time limit, on whatever a driver throws: an Error, a string, a
// Symbol, an object whose getters loop or throw, a Proxy, a revoked Proxy… Every read of the
// thrown value is guarded and every string operation uses the saved built-ins, so the result
// is always a plain string, made here, whatever the driver replaced.
import { SavedError, SavedString, append, isArray, reflectApply, defineProperty, getOwnPropertyDescriptor, joinText, splitLines, stringIncludes, stringSlice, stringStartsWith, stringTrim, stringify } from './intrinsics';

/** Longest description kept: as the host's MAX_MESSAGE_CHARS (host/engine/isolate/check-report.ts), cut the same way. */
const MAX_MESSAGE = 10_000;

/** value as text, or null when even that fails (a Symbol is fine; a throwing toString is not). */
function textOf(value: unknown): string | null {
  try {
    if (typeof value === 'string') return value;
    if (typeof value === 'symbol') return SavedString(value); // String(symbol) works; `${symbol}` throws
    const text = SavedString(value);
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE ? `${stringSlice(text, 0, MAX_MESSAGE - 60)}… (cut: the message had ${text.length} characters)` : text;
}

/** object[key] as text, or null when reading it throws or it is not there. */
function property(object: object, key: 'name' | 'message' | 'stack'): string | null {
  try {
    const value = (object as Record<string, unknown>)[key];
    if (value === undefined || value === null) return null;
    return textOf(value);
  } catch {
    return null;
  }
}

/** Only the frames of the driver's own code, from a V8 stack text. */
export function driverFrames(stack: string, driverFilename: string): string[] {
  const lines = splitLines(stack);
  const frames: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = stringTrim(lines[i]!);
    if (stringIncludes(line, `(${driverFilename}:`) || stringStartsWith(line, `at ${driverFilename}:`)) append(frames, line);
  }
  return frames;
}

export function describeDriverError(error: object, driverFilename: string): string {
  const head = `${property(error, 'name') ?? 'Error'}: ${property(error, 'message') ?? ''}`;
  const frames = driverFrames(property(error, 'stack') ?? '', driverFilename);
  return cut(frames.length ? `${head}\n    ${joinText(frames, '\n    ')}` : head);
}

/** Does this look like an Error? Without instanceof, which a Proxy (or a revoked one) can answer by throwing. */
function looksLikeError(value: object): boolean {
  try {
    return value instanceof SavedError || (property(value, 'message') !== null && property(value, 'stack') !== null);
  } catch {
    return false;
  }
}

/** Anything a driver may throw, as text; never throws. */
export function describeError(error: unknown, driverFilename: string): string {
  try {
    if ((typeof error === 'object' && error !== null) || typeof error === 'function') {
      if (looksLikeError(error)) return describeDriverError(error, driverFilename);
      let json: string | undefined;
      try {
        json = stringify(error);
      } catch {
        json = undefined;
      }
      const text = typeof json === 'string' ? json : textOf(error);
      return cut(`Uncaught ${text === null ? 'a value that cannot be shown as text' : text}`);
    }
    if (typeof error === 'string') return cut(`Uncaught ${error}`);
    const json = typeof error === 'symbol' || typeof error === 'bigint' || error === undefined ? undefined : stringify(error);
    return `Uncaught ${typeof json === 'string' ? json : (textOf(error) ?? typeof error)}`;
  } catch {
    return 'Uncaught a value that cannot be shown as text';
  }
}

let runDriverFilename = '';

/** The file name of this run's driver (set once, by install, before any driver code). */
export function setDriverFilename(filename: string): void {
  runDriverFilename = filename;
}

/** An Error as a log line shows it: name, message, the driver's frames only. */
export function describeForLog(error: object): string {
  return describeDriverError(error, runDriverFilename);
}

/** The bundles of driverbox's own code (core.js, lib-q.js…) are compiled under file names with this prefix. */
const RUNTIME_FILE_PREFIX = 'driverbox:';

const errorToString = SavedError.prototype.toString;

/** error.toString() as V8 heads a stack with it; "<error>" when that throws (as V8 does). */
function stackHeader(error: unknown): string {
  try {
    const text: unknown = reflectApply(errorToString, error, []);
    return typeof text === 'string' ? text : '<error>';
  } catch {
    return '<error>';
  }
}

/** A call site's line ("get_status (driver.js:3:9)"), or null for a frame of driverbox's own bundles. */
function siteLine(site: unknown, driverFilename: string): string | null {
  try {
    const s = site as { getFileName(): unknown; toString(): unknown };
    const file = s.getFileName();
    if (typeof file === 'string' && file !== driverFilename && stringStartsWith(file, RUNTIME_FILE_PREFIX)) return null;
    const text = s.toString();
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

/**
 * Error.prepareStackTrace of every run's context: V8's own format, minus the frames of the
 * runtime and its libraries (the dispatch that called the driver's callback, q's scheduler…),
 * so that an err.stack a driver reads or logs shows its own frames (file:line:column) and the
 * built-ins it called, never driverbox's. A plain writable property: a driver that sets its
 * own hook gets V8's call sites, as anywhere else.
 */
export function installStackFormat(driverFilename: string): void {
  defineProperty(SavedError, 'prepareStackTrace', {
    value: function prepareStackTrace(error: unknown, sites: unknown): string {
      let text = stackHeader(error);
      const count = isArray(sites) ? sites.length : 0;
      for (let i = 0; i < count; i++) {
        const line = siteLine((sites as unknown[])[i], driverFilename);
        if (line !== null) text = `${text}\n    at ${line}`;
      }
      return text;
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/** An error D throws at the driver, with the driver's frames only (see driverError). */
export function raise<E extends Error>(error: E): E {
  return driverError(error, runDriverFilename);
}

/**
 * An error for the driver, thrown by D: its stack shows the driver's frames only, never the
 * runtime's (driverbox:core.js) nor anything of the host's.
 */
export function driverError<E extends Error>(error: E, driverFilename: string): E {
  try {
    const head = `${error.name}: ${error.message}`;
    const frames = driverFrames(textOf(error.stack) ?? '', driverFilename);
    // An own data property, as V8's own: a driver reading it gets exactly this.
    defineProperty(error, 'stack', { value: frames.length ? `${head}\n    ${joinText(frames, '\n    ')}` : head, writable: true, configurable: true, enumerable: false });
  } catch {
    // a driver's Error.prepareStackTrace threw: the error keeps what V8 gave it
  }
  return error;
}

/** Frames looked at for the driver's call site: D.failure's own frames come first, then the driver's. */
const CALL_SITE_FRAMES = 16;

/** Where the call came from in the driver's own code ("driver.js:12:5"), or null when no frame of it is on the stack. */
function firstDriverSite(sites: unknown, driverFilename: string): string | null {
  const count = isArray(sites) ? sites.length : 0;
  for (let i = 0; i < count; i++) {
    try {
      const s = (sites as unknown[])[i] as { getFileName(): unknown; getLineNumber(): unknown; getColumnNumber(): unknown };
      if (s.getFileName() !== driverFilename) continue;
      const line = s.getLineNumber();
      const column = s.getColumnNumber();
      if (typeof line !== 'number') continue;
      return typeof column === 'number' ? `${driverFilename}:${line}:${column}` : `${driverFilename}:${line}`;
    } catch {
      continue;
    }
  }
  return null;
}

/**
 * The driver's file:line:column that called into the runtime right now (D.failure), read from
 * V8's call sites through a hook of our own installed for the one capture: whatever the driver
 * did to Error.prepareStackTrace or Error.stackTraceLimit, it is put back as it was after.
 */
export function driverCallSite(driverFilename: string): string | null {
  let site: string | null = null;
  let savedHook: PropertyDescriptor | undefined;
  let savedLimit: PropertyDescriptor | undefined;
  try {
    savedHook = getOwnPropertyDescriptor(SavedError, 'prepareStackTrace');
    savedLimit = getOwnPropertyDescriptor(SavedError, 'stackTraceLimit');
    defineProperty(SavedError, 'stackTraceLimit', { value: CALL_SITE_FRAMES, writable: true, configurable: true, enumerable: true });
    defineProperty(SavedError, 'prepareStackTrace', {
      value: (_error: unknown, sites: unknown) => {
        site = firstDriverSite(sites, driverFilename);
        return '';
      },
      writable: true,
      configurable: true,
      enumerable: false,
    });
    // Reading .stack is what calls the hook (V8 formats on first read).
    void new SavedError().stack;
  } catch {
    site = null;
  } finally {
    restore('prepareStackTrace', savedHook);
    restore('stackTraceLimit', savedLimit);
  }
  return site;
}

function restore(key: 'prepareStackTrace' | 'stackTraceLimit', descriptor: PropertyDescriptor | undefined): void {
  try {
    if (descriptor) defineProperty(SavedError, key, descriptor);
    else delete (SavedError as unknown as Record<string, unknown>)[key];
  } catch {
    // A property the driver made non-configurable stays as the driver left it.
  }
}
