// The run's record of what went over the wire. Summaries always; headers and bodies
// only in 'full' mode. Nothing secret is kept: credentials, cookies and passwords are
// masked before an exchange is recorded, because transcripts are printed and stored.
import type { HttpExchange } from '../../run-result.js';

export type TranscriptMode = 'summary' | 'full';

/** Bodies longer than this are cut in the transcript (never in what the driver gets). */
const MAX_RECORDED_BODY = 64 * 1024;
export const MASK = '***';
/** Shorter secrets would mask ordinary text everywhere; they are still masked in headers and urls' placeholders. */
export const MIN_SECRET_LENGTH = 3;

export class Redactor {
  readonly #secrets: string[];

  /** `forms`: every form of every secret (secretForms), longest masked first so no part of one is left. */
  constructor(forms: Iterable<string>) {
    this.#secrets = [...new Set(forms)].sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.#secrets) out = out.replaceAll(secret, MASK);
    return out;
  }

  headers<T extends string | string[]>(headers: Record<string, T>): Record<string, string | string[]> {
    return maskHeaders(headers, maskCookie, (text) => this.text(text));
  }

  body(bytes: Buffer | undefined): string | null {
    if (!bytes || bytes.length === 0) return null;
    const shown = bytes.subarray(0, MAX_RECORDED_BODY).toString('utf8');
    const cut = bytes.length > MAX_RECORDED_BODY ? `… (${bytes.length - MAX_RECORDED_BODY} more bytes)` : '';
    return this.text(shown) + cut;
  }
}

/**
 * Headers with their secrets masked: Authorization keeps only its scheme, each cookie pair goes
 * through `maskPair` (Cookie, and the first pair of each Set-Cookie line), and every other
 * value (and Set-Cookie attributes) through `text`. Shared by transcripts and recordings,
 * which differ only in how a cookie value is masked.
 */
export function maskHeaders<T extends string | string[]>(
  headers: Record<string, T>,
  maskPair: (pair: string) => string,
  text: (value: string) => string,
): Record<string, T> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      out[name] = String(value).replace(/^(\S+)\s.*$/s, `$1 ${MASK}`);
    } else if (lower === 'cookie') {
      out[name] = String(value).split(/;\s*/).map(maskPair).join('; ');
    } else if (lower === 'set-cookie') {
      out[name] = (Array.isArray(value) ? (value as string[]) : [value as string]).map((line) => {
        const semicolon = line.indexOf(';');
        return semicolon < 0 ? maskPair(line.trim()) : maskPair(line.slice(0, semicolon).trim()) + text(line.slice(semicolon));
      });
    } else {
      out[name] = Array.isArray(value) ? value.map(text) : text(value as string);
    }
  }
  return out as Record<string, T>;
}

/**
 * The run's redactors. The run's own secrets (its device's and external devices' passwords)
 * grow one target at a time and are kept as their masked forms; a request's own (a password
 * option, the basic-auth token) pick one of a few redactors made for them. Built once per
 * set: building one costs more than a request's other work, and a run with many external
 * devices must not redo the list per request.
 */
export class RedactorCache {
  readonly #forms = new Set<string>();
  readonly #byExtra = new Map<string, Redactor>();

  /** A secret of the run (a new target's password): every redactor made from now on masks it. */
  add(secret: string | null | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH) return;
    const before = this.#forms.size;
    for (const form of secretForms(secret)) this.#forms.add(form);
    if (this.#forms.size !== before) this.#byExtra.clear();
  }

  get(password: string | null, token: string | null): Redactor {
    const key = `${password ?? ''}\0${token ?? ''}`;
    let redactor = this.#byExtra.get(key);
    if (!redactor) {
      if (this.#byExtra.size >= 16) this.#byExtra.clear();
      const forms = [...this.#forms];
      if (password && password.length >= MIN_SECRET_LENGTH) forms.push(...secretForms(password));
      if (token && token.length >= MIN_SECRET_LENGTH) forms.push(token);
      redactor = new Redactor(forms);
      this.#byExtra.set(key, redactor);
    }
    return redactor;
  }
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/**
 * The forms a secret takes in what a driver sends or a device echoes: plain; inside a JSON
 * string (quotes, backslashes, controls escaped; also with every non-ASCII character as \uXXXX);
 * URL- and form-encoded; as the URL parser leaves it in a path or query; XML/HTML-escaped;
 * base64 (a token made of it).
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  // Written inside a JSON string once or twice (a JSON body echoed as a JSON string), as text or as XML.
  for (const text of [secret, secret.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!)]) {
    const json = jsonEscaped(text);
    forms.add(text).add(json).add(jsonEscaped(json));
    forms.add(json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  }
  forms.add(encodeURIComponent(secret));
  forms.add(new URLSearchParams({ s: secret }).toString().slice(2)); // form encoding: spaces as +
  // As the URL parser leaves it when a driver pastes the password into a url's path or query.
  forms.add(new URL(`http://h/?${secret}`).search.slice(1));
  forms.add(new URL(`http://h/${secret}`).pathname.slice(1));
  forms.add(Buffer.from(secret).toString('base64').replace(/=+$/, ''));
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

function maskCookie(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? pair : `${pair.slice(0, eq)}=${MASK}`;
}

/** A new exchange record, started now. */
export function startExchange(method: string, url: string, runStarted: number): HttpExchange {
  return {
    method,
    url,
    status: null,
    error: null,
    errorMessage: null,
    startedMs: round(performance.now() - runStarted),
    headersMs: null,
    durationMs: 0,
    requestBytes: 0,
    responseBytes: 0,
    redirectedTo: null,
  };
}

export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
