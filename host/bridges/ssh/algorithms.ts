// The `algorithms` option (kex, cipher, serverHostKey, hmac lists, for old gear), checked
// against what the installed ssh2 can negotiate, so a typo or a name ssh2 lacks is a clear
// INVALID_OPTIONS rather than ssh2's own exception at connect time.
import { createRequire } from 'node:module';
import { describe, isPlainObject } from '../../untrusted-input/plain-values.js';
import { SshOptionError } from './errors.js';

/** ssh2's `algorithms` connect option, as plain name lists. */
export interface SshAlgorithms {
  kex?: string[];
  cipher?: string[];
  serverHostKey?: string[];
  hmac?: string[];
  compress?: string[];
}

type Kind = keyof SshAlgorithms;

// ssh2 exports no list of the names it supports; its protocol constants hold them.
const constants = createRequire(import.meta.url)('ssh2/lib/protocol/constants.js') as Record<string, string[]>;

const SUPPORTED: Record<Kind, ReadonlySet<string>> = {
  kex: new Set(constants.SUPPORTED_KEX),
  cipher: new Set(constants.SUPPORTED_CIPHER),
  serverHostKey: new Set(constants.SUPPORTED_SERVER_HOST_KEY),
  hmac: new Set(constants.SUPPORTED_MAC),
  compress: new Set(constants.SUPPORTED_COMPRESSION),
};
const KINDS = Object.keys(SUPPORTED) as Kind[];

/** The driver's `algorithms`, checked; undefined when it gives none (ssh2's defaults). */
export function readAlgorithms(value: unknown): SshAlgorithms | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw new SshOptionError(`algorithms must be an object such as { kex: ["diffie-hellman-group14-sha1"] } (got ${describe(value)})`);
  const out: SshAlgorithms = {};
  for (const [key, list] of Object.entries(value)) {
    if (!(KINDS as string[]).includes(key)) throw new SshOptionError(`algorithms.${key} is not an SSH algorithm kind; known: ${KINDS.join(', ')}`);
    const kind = key as Kind;
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || list.length === 0 || !list.every((name) => typeof name === 'string')) {
      throw new SshOptionError(`algorithms.${kind} must be a non-empty list of algorithm names (got ${describe(list)})`);
    }
    const unknown = (list as string[]).filter((name) => !SUPPORTED[kind].has(name));
    if (unknown.length > 0) {
      throw new SshOptionError(`algorithms.${kind}: ${unknown.map((n) => JSON.stringify(n)).join(', ')} not supported; supported: ${[...SUPPORTED[kind]].join(', ')}`);
    }
    out[kind] = [...new Set(list as string[])];
  }
  return out;
}

/** What this build supports, per kind (docs, tests). */
export function supportedAlgorithms(kind: Kind): string[] {
  return [...SUPPORTED[kind]];
}
