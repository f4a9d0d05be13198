// What a run's secrets look like wherever they may turn up (secretForms), and the mask that
// replaces every form of them with *** (SecretMask): used on transcripts, recordings, run
// results, what the store keeps and what the API answers.
import type { RunResult } from '../contract/run-result.js';

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

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * The forms a secret takes in what a driver sends, a device echoes or a driver logs: plain;
 * inside a JSON string (escaped once or twice, also with every non-ASCII character as \uXXXX);
 * XML/HTML-escaped; URL- and form-encoded; as the URL parser leaves it in a path or query;
 * base64 and base64url, whole and as the part of a longer base64 text (user:secret in a Basic
 * header, a key encoded with a prefix) that depends on the secret alone.
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  for (const text of [secret, secret.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)]) {
    const json = jsonEscaped(text);
    forms.add(text).add(json).add(jsonEscaped(json));
    forms.add(json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  }
  forms.add(encodeURIComponent(secret));
  forms.add(new URLSearchParams({ s: secret }).toString().slice(2)); // form encoding: spaces as +
  forms.add(new URL(`http://h/?${secret}`).search.slice(1));
  forms.add(new URL(`http://h/${secret}`).pathname.slice(1));
  const bytes = Buffer.from(secret, 'utf8');
  forms.add(bytes.toString('base64')).add(bytes.toString('base64').replace(/=+$/, '')).add(bytes.toString('base64url'));
  for (const core of base64Cores(bytes)) forms.add(core);
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
      ...this.transcript(result),
      variables: result.variables.map((v) => ({ ...v, value: typeof v.value === 'string' ? this.text(v.value) : v.value })),
      tables: result.tables.map((t) => this.#deep(t, 0) as typeof t),
      ...(result.backup ? { backup: this.#backup(result.backup) } : {}),
    };
  }

  /**
   * What a run said rather than what it reported: message, logs, warnings and HTTP exchanges,
   * masked; variables, tables and backup stay as the driver reported them.
   */
  transcript(result: RunResult): RunResult {
    if (this.empty) return result;
    return {
      ...result,
      message: typeof result.message === 'string' ? this.text(result.message) : result.message,
      logs: result.logs.map((log) => ({ ...log, message: typeof log.message === 'string' ? this.text(log.message) : log.message })),
      warnings: result.warnings.map((w) => (typeof w === 'string' ? this.text(w) : w)),
      http: (result.http ?? []).map((exchange) => this.#deep(exchange, 0) as typeof exchange),
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


/**
 * The run's result with every secret its network knew (passwords, parameters' secrets, values
 * sent under a secret's name) masked in what the run said: message, logs, warnings, exchanges.
 * Variables, tables and a backup are what the driver reported on purpose: they stay.
 */
export function maskRunText(result: RunResult, secrets: ReadonlyArray<string>): RunResult {
  return secrets.length ? maskFor(secrets).transcript(result) : result;
}
