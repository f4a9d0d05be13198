// One answer of a fixture route: status, headers, body (text, JSON or a file read now,
// so a missing file is an error at load time), cookies, delay, failure, state change.
import { constants } from 'node:fs';
import path from 'node:path';
import { contentTypeOf } from './content-type.js';
import { describeValue, fieldPath, type FieldChecker } from './field-checker.js';
import type { FailureMode, FixtureResponse } from './fixture-types.js';
import { containedFile, MAX_BODY_FILE_BYTES, MAX_FIXTURE_BODY_BYTES, readBoundedFile, UntrustedInputError } from '../untrusted-input/files.js';

export const RESPONSE_FIELDS = ['status', 'headers', 'body', 'json', 'bodyFile', 'setCookie', 'delayMs', 'fail', 'setState'] as const;

export const HEADER_NAME = { test: /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, what: 'header name' };
const FAILURES: readonly FailureMode[] = ['reset', 'timeout', 'close'];
// Headers the simulator writes itself: a fixture's value would break the message framing.
const OWN_HEADERS: Record<string, string> = {
  'content-length': 'it is set from the body',
  'transfer-encoding': 'it is set from the body',
  'set-cookie': 'use setCookie',
};
const MAX_DELAY_MS = 600_000;

export interface ResponseContext {
  check: FieldChecker;
  /** Where bodyFile paths start from. */
  baseDir: string;
  /** "GET /status", to name the route in file errors. */
  routeName: string;
  /** Bytes of body files read so far for this fixture: bounded by MAX_FIXTURE_BODY_BYTES. */
  bodyBytes: { read: number };
}

function hasField(spec: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(spec, key) && spec[key] !== undefined;
}

function parseHeaders(value: unknown, at: string, check: FieldChecker): Record<string, string | string[]> | null {
  const object = check.object(value, at);
  if (!object) return null;
  const out: Record<string, string | string[]> = {};
  let ok = true;
  for (const [name, raw] of Object.entries(object)) {
    const where = fieldPath(at, name);
    const lower = name.toLowerCase();
    const values = typeof raw === 'string' ? [raw] : Array.isArray(raw) && raw.length && raw.every((v) => typeof v === 'string') ? (raw as string[]) : null;
    if (!HEADER_NAME.test.test(name)) check.problem(where, 'is not a valid header name');
    else if (OWN_HEADERS[lower]) check.problem(where, `cannot be set here: ${OWN_HEADERS[lower]}`);
    else if (!values) check.problem(where, `must be a string or a non-empty list of strings (got ${describeValue(raw)})`);
    else if (values.some((v) => /[\r\n\0]/.test(v))) check.problem(where, 'must not contain CR, LF or NUL');
    else {
      out[lower] = typeof raw === 'string' ? raw : values;
      continue;
    }
    ok = false;
  }
  return ok ? out : null;
}

function parseSetCookie(value: unknown, at: string, check: FieldChecker): string[] | null {
  const cookies = check.stringOrList(value, at);
  if (!cookies) return null;
  const bad = cookies.findIndex((c) => !/^[^=;\s]+=[^;\r\n\0]*(;[^\r\n\0]*)?$/.test(c));
  if (bad >= 0) {
    check.problem(Array.isArray(value) ? fieldPath(at, bad) : at, `must look like "name=value" or "name=value; Path=/; HttpOnly" (got ${describeValue(cookies[bad])})`);
    return null;
  }
  return cookies;
}

/** The body and the Content-Type it implies; null after a problem. */
function parseBody(spec: Record<string, unknown>, at: string, context: ResponseContext): { body: Buffer; type: string | null } | null {
  const { check } = context;
  const given = (['body', 'json', 'bodyFile'] as const).filter((key) => hasField(spec, key));
  if (given.length > 1) {
    check.problem(at, `give only one of body, json or bodyFile (got ${given.join(' and ')})`);
    return null;
  }
  switch (given[0]) {
    case undefined:
      return { body: Buffer.alloc(0), type: null };
    case 'body':
      if (typeof spec.body !== 'string') {
        check.problem(fieldPath(at, 'body'), `must be a string; use json for other values (got ${describeValue(spec.body)})`);
        return null;
      }
      return { body: Buffer.from(spec.body), type: 'text/plain; charset=utf-8' };
    case 'json': {
      let text: string | undefined;
      try {
        text = JSON.stringify(spec.json);
      } catch (error) {
        check.problem(fieldPath(at, 'json'), `cannot be written as JSON: ${(error as Error).message}`);
        return null;
      }
      if (text === undefined) {
        check.problem(fieldPath(at, 'json'), `cannot be written as JSON (got ${typeof spec.json})`);
        return null;
      }
      return { body: Buffer.from(text), type: 'application/json' };
    }
    case 'bodyFile': {
      const name = check.string(spec.bodyFile, fieldPath(at, 'bodyFile'));
      if (name === null) return null;
      const body = readBodyFile(name, context);
      if ('problem' in body) {
        check.problem(fieldPath(at, 'bodyFile'), `route ${context.routeName}: ${body.problem}`);
        return null;
      }
      return body;
    }
  }
}

/**
 * A body file: inside the fixture's folder (containedFile: no "..", no absolute path, no link
 * out), a regular file, within the size bounds. Its bytes and type, or the problem.
 */
function readBodyFile(name: string, context: ResponseContext): { body: Buffer; type: string | null } | { problem: string } {
  const shown = JSON.stringify(name);
  const left = MAX_FIXTURE_BODY_BYTES - context.bodyBytes.read;
  const max = Math.min(MAX_BODY_FILE_BYTES, left);
  let real: string;
  try {
    real = containedFile(context.baseDir, name);
  } catch (error) {
    if (error instanceof UntrustedInputError) return { problem: `${shown} is refused: it ${error.message}` };
    return { problem: `cannot read ${shown} (${path.resolve(context.baseDir, name)}): ${fsReason(error)}` };
  }
  try {
    // O_NOFOLLOW: the real path has no link left in it; one put there since is refused.
    const body = readBoundedFile(real, max, 'it', constants.O_NOFOLLOW);
    context.bodyBytes.read += body.length;
    return { body, type: contentTypeOf(real) };
  } catch (error) {
    if (!(error instanceof UntrustedInputError)) return { problem: `cannot read ${shown} (${real}): ${fsReason(error)}` };
    const total = max < MAX_BODY_FILE_BYTES && /larger than the limit/.test(error.message);
    return { problem: `cannot read ${shown} (${real}): ${total ? `the fixture's body files together pass ${MAX_FIXTURE_BODY_BYTES} bytes, their limit` : error.message}` };
  }
}

function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'ELOOP' ? 'it became a symbolic link' : (error as Error).message;
}

/** A response object (a route, or one entry of its `responses`); null when anything was wrong. */
export function parseResponse(spec: Record<string, unknown>, at: string, context: ResponseContext): FixtureResponse | null {
  const { check } = context;
  const before = check.problems.length;
  const status = hasField(spec, 'status') ? check.integer(spec.status, fieldPath(at, 'status'), 200, 599) : 200;
  const headers = hasField(spec, 'headers') ? parseHeaders(spec.headers, fieldPath(at, 'headers'), check) : {};
  const body = parseBody(spec, at, context);
  const setCookie = hasField(spec, 'setCookie') ? parseSetCookie(spec.setCookie, fieldPath(at, 'setCookie'), check) : [];
  const delayMs = hasField(spec, 'delayMs') ? check.integer(spec.delayMs, fieldPath(at, 'delayMs'), 0, MAX_DELAY_MS) : 0;
  const fail = hasField(spec, 'fail') ? check.oneOf(spec.fail, fieldPath(at, 'fail'), FAILURES) : null;
  const setState = hasField(spec, 'setState') ? check.string(spec.setState, fieldPath(at, 'setState')) : null;
  if ((status === 204 || status === 304) && body && body.body.length > 0) {
    check.problem(fieldPath(at, 'status'), `a ${status} response has no body, but one is given`);
  }
  if (check.problems.length > before || status === null || !headers || !body || !setCookie || delayMs === null) return null;
  if (body.type && headers['content-type'] === undefined) headers['content-type'] = body.type;
  return { status, headers, body: body.body, setCookie, delayMs, fail, setState };
}
