// The run's record of what went over the wire. Summaries always; headers and bodies
// only in 'full' mode. Nothing secret is kept: credentials, cookies and passwords are
// masked before an exchange is recorded, because transcripts are printed and stored.
import type { HttpExchange } from '../../contract/run-result.js';
import { MASK, MIN_SECRET_LENGTH, secretForms } from '../../secrets/secret-mask.js';
import { isSecretHeader, maskBodyFields, maskUrlQuery } from '../../secrets/secret-names.js';

/** Bodies longer than this are cut in the transcript (never in what the driver gets). */
const MAX_RECORDED_BODY = 64 * 1024;

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

  /** A URL: the secrets, and the values of secret-named query parameters (api_key=…). */
  url(href: string): string {
    return maskUrlQuery(this.text(href));
  }

  headers<T extends string | string[]>(headers: Record<string, T>): Record<string, string | string[]> {
    return maskHeaders(headers, maskCookie, (text) => this.text(text));
  }

  /** A body: the secrets, and the values of secret-named JSON, XML and form fields. */
  body(bytes: Buffer | undefined): string | null {
    if (!bytes || bytes.length === 0) return null;
    const shown = bytes.subarray(0, MAX_RECORDED_BODY).toString('utf8');
    const cut = bytes.length > MAX_RECORDED_BODY ? `… (${bytes.length - MAX_RECORDED_BODY} more bytes)` : '';
    return maskBodyFields(this.text(shown)) + cut;
  }
}

/**
 * Headers with their secrets masked: Authorization keeps only its scheme, each cookie pair goes
 * through `maskPair` (Cookie, and the first pair of each Set-Cookie line), a header whose name
 * is a secret's (X-API-Key, X-Auth-Token, x-cisco-meraki-api-key…: secret-names.ts) becomes
 * ***, and every other value (and Set-Cookie attributes) goes through `text`. Shared by
 * transcripts and recordings, which differ only in how a cookie value is masked.
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
      const scheme = /^(\S+)\s+\S/.exec(String(value).trim());
      out[name] = scheme ? `${scheme[1]} ${MASK}` : MASK;
    } else if (lower === 'cookie') {
      out[name] = String(value).split(/;\s*/).map(maskPair).join('; ');
    } else if (lower === 'set-cookie') {
      out[name] = (Array.isArray(value) ? (value as string[]) : [value as string]).map((line) => {
        const semicolon = line.indexOf(';');
        return semicolon < 0 ? maskPair(line.trim()) : maskPair(line.slice(0, semicolon).trim()) + text(line.slice(semicolon));
      });
    } else if (isSecretHeader(lower)) {
      out[name] = Array.isArray(value) ? value.map(() => MASK) : MASK;
    } else {
      out[name] = Array.isArray(value) ? value.map(text) : text(value as string);
    }
  }
  return out as Record<string, T>;
}

/**
 * The run's redactors. The run's own secrets (its device's and external devices' passwords,
 * its parameters, the values it sent under a secret's name) grow as the run goes and are kept as their masked forms; a request's own (a password
 * option, the basic-auth token) pick one of a few redactors made for them. Built once per
 * set: building one costs more than a request's other work, and a run with many external
 * devices must not redo the list per request.
 */
export class RedactorCache {
  readonly #secrets = new Set<string>();
  readonly #forms = new Set<string>();
  readonly #byExtra = new Map<string, Redactor>();

  /** A secret of the run (a new target's password, a parameter, a token it sent): every redactor made from now on masks it. */
  add(secret: string | null | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.#secrets.has(secret)) return;
    this.#secrets.add(secret);
    const before = this.#forms.size;
    for (const form of secretForms(secret)) this.#forms.add(form);
    if (this.#forms.size !== before) this.#byExtra.clear();
  }

  /**
   * No longer a secret: a parameter that is the very host name or address the run dials (the
   * device's, an external host's) is in every url's origin, and masking it would hide where the
   * requests went without hiding anything.
   */
  exempt(value: string): void {
    const lower = value.toLowerCase();
    let changed = false;
    for (const secret of this.#secrets) {
      if (secret.toLowerCase() === lower) {
        this.#secrets.delete(secret);
        changed = true;
      }
    }
    if (!changed) return;
    this.#forms.clear();
    for (const secret of this.#secrets) for (const form of secretForms(secret)) this.#forms.add(form);
    this.#byExtra.clear();
  }

  /** Every secret the run has had so far, as given: the run's result is masked with them when it ends. */
  secrets(): string[] {
    return [...this.#secrets];
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
