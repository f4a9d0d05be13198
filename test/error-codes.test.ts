// The registry of codes a driver's error gets (host/contract/driver-error-codes.ts) against the
// bridges' sources: every code-shaped literal used to build an error there (a call's or a
// constructor's first argument, a `code:` / `error:` value, a `?? 'X'` fallback, an
// Extract<DriverErrorCode, …>) must be in the registry, and every registry code must still be
// named somewhere in the bridges. The compiler checks the typed producers; this also catches a
// code built where the type does not reach (a string-typed field, a literal passed through).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DRIVER_ERROR_CODES } from '../host/contract/driver-error-codes.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** The code that answers drivers: the protocol bridges and D.crypto's host side. */
const SCANNED = ['host/bridges', 'host/crypto'];
/**
 * Calls that build a driver's error, by name: the bridges' error classes and helpers are named so
 * (SendFailure, RequestRefused, hostError, tlsFailure, telnetRefusal, fail…); passedThrough too, as
 * a literal handed to it would dodge the registry's type.
 */
const ERROR_CALL = /(?:error|failure|refused|refusal|fail|refuse|passedThrough)$/i;
/** The host's errors to its callers: the other registry (DriverboxErrorCode, contract/errors.ts). */
const OTHER_REGISTRY = 'DriverboxError';

const CODE = /(['"])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\1/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** The text without comments (block comments, and lines that are a comment), line breaks kept. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/^\s*\/\/.*$/gm, '');
}

interface Use {
  code: string;
  at: string;
}

/** Code-shaped literals in the places an error is built. */
export function errorCodesIn(file: string, text: string): Use[] {
  const source = withoutComments(text);
  const uses = new Map<number, Use>();
  /** The literals of `fragment`, found at `index` of the source. */
  const take = (fragment: string, index: number) => {
    for (const match of fragment.matchAll(CODE)) {
      // A code compared with (`code === 'ENOENT'`) is read, not built.
      if (/[!=]==?\s*$/.test(fragment.slice(0, match.index))) continue;
      const at = index + match.index;
      uses.set(at, { code: match[2]!, at: `${file}:${source.slice(0, at).split('\n').length}` });
    }
  };
  // A call's or constructor's first argument (a ternary of two codes included).
  // (A lookahead: `new SendFailure(passedThrough('X'))` is two calls, the second inside the first.)
  for (const match of source.matchAll(/\b([A-Za-z_$][\w$]*)(?=(\s*\(\s*)([^,()]*))/g)) {
    if (ERROR_CALL.test(match[1]!) && match[1] !== OTHER_REGISTRY) take(match[3]!, match.index + match[1]!.length + match[2]!.length);
  }
  // A `code:` or `error:` value, or an assignment to one.
  for (const match of source.matchAll(/\b(?:code|error)\s*(?::|=(?!=))\s*([^,;}\n]*)/g)) take(match[1]!, match.index + match[0].length - match[1]!.length);
  // A fallback code: `x.code ?? 'TLS_ERROR'`, `error.name || 'SNMP_ERROR'`.
  for (const match of source.matchAll(/(?:\?\?|\|\|)\s*((['"])[A-Z][A-Z0-9_]*\2)/g)) take(match[1]!, match.index + match[0].length - match[1]!.length);
  // A subset of the registry named in a type.
  for (const match of source.matchAll(/Extract<DriverErrorCode,\s*([^>]*)>/g)) take(match[1]!, match.index + match[0].length - 1 - match[1]!.length);
  return [...uses].sort(([a], [b]) => a - b).map(([, use]) => use);
}

const files = SCANNED.flatMap(sourceFiles);
const sources = new Map(files.map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));

describe('driver error codes', () => {
  it('every code a bridge builds an error with is in the registry', () => {
    const uses = [...sources].flatMap(([file, text]) => errorCodesIn(file, text));
    // The scan reads what it should: the bridges build errors with dozens of codes.
    expect(new Set(uses.map((u) => u.code)).size).toBeGreaterThan(40);
    const missing = uses.filter((use) => !Object.hasOwn(DRIVER_ERROR_CODES, use.code)).map((use) => `${use.code} at ${use.at}`);
    expect(missing, 'codes missing from host/contract/driver-error-codes.ts').toEqual([]);
  });

  it('every registry code is still named in the bridges', () => {
    const named = new Set<string>();
    for (const text of sources.values()) for (const match of withoutComments(text).matchAll(CODE)) named.add(match[2]!);
    const stale = Object.keys(DRIVER_ERROR_CODES).filter((code) => !named.has(code));
    expect(stale, 'registry codes no bridge names any more').toEqual([]);
  });

  it('the scan finds a code in each place an error is built', () => {
    const text = [
      "fail('A_CODE', 'message');",
      "throw new SendFailure(tooLarge ? 'B_CODE' : 'C_CODE', 'message');",
      "const e = { code: 'D_CODE', message: 'm' };",
      "exchange.error = 'E_CODE';",
      "const code = error.code ?? 'F_CODE';",
      "type T = Extract<DriverErrorCode, 'G_CODE' | 'H_CODE'>;",
      "throw new SendFailure(passedThrough('I_CODE'), 'm');",
      "// refusal('IN_A_COMMENT', 'not read');",
      "if (code === 'COMPARED') return;",
      "const organization = pick('CN');",
      "throw new DriverboxError('HOST_CODE', 'another registry');",
    ].join('\n');
    expect(errorCodesIn('sample.ts', text).map((use) => use.code)).toEqual(['A_CODE', 'B_CODE', 'C_CODE', 'D_CODE', 'E_CODE', 'F_CODE', 'G_CODE', 'H_CODE', 'I_CODE']);
  });
});
