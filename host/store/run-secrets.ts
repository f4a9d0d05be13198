// Masking a run's secrets out of its result before it is stored or answered through the API.
// The secrets are the device's credentials (user name and password): a driver may log them, put
// them in its message or send them in a body, in clear or in the forms a driver or the wire
// gives them (JSON-escaped, URL- or form-encoded, base64 as in a Basic header). Parameter
// values are not masked: nothing marks one secret and any API-key holder can read them anyway.
// This stops a secret leaking by accident; a driver written to leak one can still transform it.
import type { RunResult } from '../run-result.js';
import type { Store } from './store.js';
import { getSnmpAuthentication } from './devices.js';
import { snmpSecrets, snmpSettingsFromApi, type ApiSnmpAuthentication } from '../snmp-settings.js';

export const MASK = '***';
/** Shorter secrets would mask ordinary text everywhere (as the transcript's own masking does). */
export const MIN_SECRET_LENGTH = 3;
/** Base64 runs shorter than this are left alone: they match ordinary base64 text too often. */
const MIN_BASE64_CHARS = 6;

/** The characters of base64(prefix + secret + suffix) that depend only on the secret, for each alignment. */
function base64Cores(secret: Buffer): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), secret]);
    // Whole groups of 3 bytes inside the secret only: their 4 characters never depend on the neighbours.
    const firstGroup = Math.ceil(offset / 3) * 3;
    const lastGroup = Math.floor(padded.length / 3) * 3;
    if (lastGroup <= firstGroup) continue;
    const slice = padded.subarray(firstGroup, lastGroup);
    for (const encoding of ['base64', 'base64url'] as const) {
      const text = slice.toString(encoding);
      if (text.length >= MIN_BASE64_CHARS) cores.push(text);
    }
  }
  return cores;
}

/** Every form of the secret to mask. */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([
    secret,
    JSON.stringify(secret).slice(1, -1),
    // JSON.stringify of an already JSON-escaped string (a body logged as JSON text).
    JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1),
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    new URL(`http://h/?${secret}`).search.slice(1),
    new URL(`http://h/${secret}`).pathname.slice(1),
    Buffer.from(secret, 'utf8').toString('base64'),
    ...base64Cores(Buffer.from(secret, 'utf8')),
  ]);
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces each secret, in each of its forms, with ***; one regular expression, one pass per text. */
export class SecretMask {
  readonly #pattern: RegExp | null;

  constructor(secrets: ReadonlyArray<string | null | undefined>) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) continue;
      for (const form of secretForms(secret)) forms.add(form);
    }
    // Longest first, so a form containing another is masked whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    this.#pattern = sorted.length ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : null;
  }

  get empty(): boolean {
    return this.#pattern === null;
  }

  text(value: string): string {
    return this.#pattern ? value.replace(this.#pattern, MASK) : value;
  }

  nullable(value: string | null): string | null {
    return value === null ? null : this.text(value);
  }

  /** A copy of the result with every text field masked: message, logs, warnings, HTTP exchanges, variables, tables, backup. */
  result(result: RunResult): RunResult {
    if (this.empty) return result;
    return {
      ...result,
      message: typeof result.message === 'string' ? this.text(result.message) : result.message,
      logs: result.logs.map((log) => ({ ...log, message: typeof log.message === 'string' ? this.text(log.message) : log.message })),
      warnings: result.warnings.map((w) => (typeof w === 'string' ? this.text(w) : w)),
      http: (result.http ?? []).map((exchange) => this.#deep(exchange, 0) as typeof exchange),
      variables: result.variables.map((v) => ({ ...v, value: typeof v.value === 'string' ? this.text(v.value) : v.value })),
      tables: result.tables.map((t) => this.#deep(t, 0) as typeof t),
      ...(result.backup ? { backup: this.#backup(result.backup) } : {}),
    };
  }

  /** A configuration backup with its texts masked and its sizes those of the masked texts. */
  #backup(backup: NonNullable<RunResult['backup']>): NonNullable<RunResult['backup']> {
    const running = this.text(backup.running);
    const startup = this.nullable(backup.startup);
    return {
      label: this.text(backup.label),
      running,
      startup,
      runningBytes: Buffer.byteLength(running),
      startupBytes: startup === null ? null : Buffer.byteLength(startup),
    };
  }

  /** Every string in plain data (exchanges, tables), keys included; deeper than a result holds is cut. */
  #deep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object' || depth > 8) return value;
    if (Array.isArray(value)) return value.map((item) => this.#deep(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[this.text(key)] = this.#deep(item, depth + 1);
    return out;
  }
}

/** Masks built lately, by their secrets: building one (the URL forms) costs more than masking a run's result. */
const recentMasks = new Map<string, SecretMask>();
const RECENT_MASKS = 256;

/** The mask of these secrets, reused while they are among the last RECENT_MASKS asked for. */
export function maskFor(secrets: ReadonlyArray<string | null | undefined>): SecretMask {
  const key = secrets.map((s) => (typeof s === 'string' ? s : '')).join('\0');
  let mask = recentMasks.get(key);
  if (mask) {
    recentMasks.delete(key);
  } else {
    mask = new SecretMask(secrets);
    if (recentMasks.size >= RECENT_MASKS) recentMasks.delete(recentMasks.keys().next().value!);
  }
  recentMasks.set(key, mask);
  return mask;
}

/** A user name and password as secrets: each, and user:password, so a Basic header's token is masked whole (its base64 straddles both). */
export function credentialSecrets(username: string | null | undefined, password: string | null | undefined): string[] {
  const secrets = [username, password].filter((s): s is string => typeof s === 'string' && s !== '');
  if (username && password) secrets.push(`${username}:${password}`);
  return secrets;
}

/** The secrets of runs against a stored device: its credentials of every scope, those the store can read. */
export function deviceSecrets(store: Store, deviceId: number): string[] {
  const rows = store
    .statement<[number], { username: string; password_sealed: string }>('SELECT username, password_sealed FROM device_credentials WHERE device_id = ?')
    .all(deviceId);
  const secrets: string[] = [];
  for (const row of rows) {
    try {
      secrets.push(...credentialSecrets(row.username, store.secrets.decrypt(row.password_sealed)));
    } catch {
      secrets.push(row.username);
      // A store without its secret key cannot read it; a run through it could not have used it either.
    }
  }
  try {
    // Its SNMP communities and v3 keys (a driver never sees them, but a device may echo them).
    secrets.push(...snmpSecrets(snmpSettingsFromApi(getSnmpAuthentication<ApiSnmpAuthentication>(store, deviceId))));
  } catch {
    // unreadable without the store's key: not usable by a run either
  }
  return secrets;
}
