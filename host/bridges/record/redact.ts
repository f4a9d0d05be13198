// Redaction of a recording. Unlike the transcript's (which only masks), it must keep the run
// replayable: the same secret always becomes the same mask, and a request redacted at replay
// comes out as it did when it was recorded, so that the two can be compared.
//  - passwords (device, external devices, basic-auth) and the basic-auth base64 → ***
//  - cookie values → ***cookie-N***, one N per distinct value, in headers and wherever else
//    a long enough value shows up (a session id echoed in a body or a redirect's query)
//  - Authorization / Proxy-Authorization → the scheme and ***
//  - headers, query parameters and JSON / XML / form body fields named like a secret
//    (X-API-Key, api_key=, "token": …: host/secrets/secret-names.ts) → ***
//  - the run's parameters' secrets, as passwords; values learnt under a secret's name
//    (a token sent in a header, then in a path) wherever else they appear → ***
import { maskHeaders } from '../core/transcript.js';
import { MASK, MIN_SECRET_LENGTH, secretForms } from '../../secrets/secret-mask.js';
import { headerSecrets, learnable, maskBodyFields, maskUrlQuery } from '../../secrets/secret-names.js';

/** Cookie values shorter than this are only masked in Cookie / Set-Cookie (a "lang=en" must not mask every "en"). */
const MIN_COOKIE_TEXT_LENGTH = 8;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** How a string looks inside a JSON string literal. */
const jsonForm = (text: string) => JSON.stringify(text).slice(1, -1);

export interface RedactionSecrets {
  passwords: Iterable<string | null | undefined>;
  /** Other secrets masked wherever they appear (the basic-auth base64). */
  tokens?: Iterable<string>;
  /** Cookie values, in the order they were seen: that order numbers them. */
  cookieValues?: Iterable<string>;
}

/** The password and base64 token of an `Authorization: Basic …` value, when it is one. */
export function basicCredentials(authorization: string | undefined): { token: string; password: string } | null {
  const match = authorization === undefined ? null : /^Basic\s+(\S+)$/i.exec(authorization);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return { token: match[1]!, password: colon < 0 ? '' : decoded.slice(colon + 1) };
}

/** The values of a Cookie header ("a=1; b=2"), or of a Set-Cookie line's first pair. */
export function cookieValues(header: string, setCookie: boolean): string[] {
  const pairs = setCookie ? [header.split(';')[0]!] : header.split(';');
  const values: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq >= 0) values.push(pair.slice(eq + 1).trim());
  }
  return values.filter((v) => v !== '');
}

export class RecordingRedactor {
  /** [needle, mask], longest needle first, so that no part of a longer secret is left behind. */
  readonly #needles: Array<[string, string]>;
  /** Passwords of any length, masked where they are a whole value (a form field, a JSON string, a path segment). */
  readonly #valueRules: Array<[RegExp, string]> = [];
  readonly #pathRules: RegExp[] = [];
  readonly #cookieMasks = new Map<string, string>();

  constructor(secrets: RedactionSecrets) {
    const needles = new Map<string, string>();
    for (const value of secrets.cookieValues ?? []) {
      const mask = this.#cookieMask(value);
      if (value.length < MIN_COOKIE_TEXT_LENGTH) continue;
      needles.set(value, mask);
      needles.set(encodeURIComponent(value), mask);
    }
    for (const token of secrets.tokens ?? []) {
      // A cookie value learnt again under a secret's name (a page echoing the session) keeps its cookie mask.
      if (token.length >= MIN_SECRET_LENGTH && !needles.has(token)) needles.set(token, MASK);
    }
    const passwords = new Set<string>();
    for (const password of secrets.passwords) if (password) passwords.add(password);
    for (const password of passwords) {
      const forms = new Set([...secretForms(password), jsonForm(password)]);
      if (password.length >= MIN_SECRET_LENGTH) for (const form of forms) needles.set(form, MASK);
      // Short passwords too, where they are a whole value: name=pw, "pw", /pw/.
      this.#valueRules.push([new RegExp(`"${escapeRegExp(jsonForm(password))}"`, 'g'), `"${MASK}"`]);
      for (const form of forms) {
        this.#valueRules.push([new RegExp(`(^|[?&])([^=&#]*)=${escapeRegExp(form)}(?=[&#]|$)`, 'g'), `$1$2=${MASK}`]);
      }
      this.#pathRules.push(new RegExp(`/${escapeRegExp(new URL(`http://h/${password}`).pathname.slice(1))}(?=[/?#]|$)`, 'g'));
    }
    this.#needles = [...needles].sort((a, b) => b[0].length - a[0].length);
  }

  /** The stable mask of a cookie value: ***cookie-1***, ***cookie-2***… */
  #cookieMask(value: string): string {
    let mask = this.#cookieMasks.get(value);
    if (mask === undefined) {
      mask = `${MASK}cookie-${this.#cookieMasks.size + 1}${MASK}`;
      this.#cookieMasks.set(value, mask);
    }
    return mask;
  }

  text(value: string): string {
    let out = value;
    for (const [needle, mask] of this.#needles) if (out.includes(needle)) out = out.replaceAll(needle, mask);
    return out;
  }

  /** A body's text: secrets anywhere, short passwords where they are a whole JSON or form value, secret-named fields. */
  body(value: string): string {
    let out = this.text(value);
    for (const [rule, mask] of this.#valueRules) out = out.replace(rule, mask);
    return maskBodyFields(out);
  }

  /**
   * A url: as a body, plus a password that is a whole path segment (a `${password}` placeholder).
   * Its origin and the path's leading / stay: a recorded url must stay a url (a parameter may be
   * the very host name dialled), and the address is in the recording anyway.
   */
  url(href: string): string {
    const hash = href.indexOf('#');
    const queryAt = href.indexOf('?');
    const end = queryAt >= 0 ? queryAt : hash >= 0 ? hash : href.length;
    const slash = href.indexOf('/', href.indexOf('//') + 2);
    const pathAt = slash >= 0 && slash < end ? slash : end;
    let path = href.slice(pathAt, end);
    let query = href.slice(end);
    if (path !== '') path = `/${this.text(path.slice(1))}`;
    for (const rule of this.#pathRules) path = path.replace(rule, `/${MASK}`);
    query = this.text(query);
    for (const [rule, mask] of this.#valueRules) query = query.replace(rule, mask);
    return href.slice(0, pathAt) + path + maskUrlQuery(query);
  }

  headers<T extends string | string[]>(headers: Record<string, T>): Record<string, T> {
    return maskHeaders(headers, (pair) => this.#maskPair(pair), (text) => this.text(text));
  }

  #maskPair(pair: string): string {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    const value = pair.slice(eq + 1).trim();
    return value === '' ? pair : `${pair.slice(0, eq)}=${this.#cookieMask(value)}`;
  }
}

/**
 * Option names of the protocol modules that hold a secret (password, community, v3 keys,
 * a private key or its passphrase): their values are masked in a recording whatever they are.
 */
const SECRET_OPTION = /pass(word|wd|phrase)?$|secret|community|token|(auth|priv|private|api)_?key$/i;

/** Options nested this deep are not walked further (they are the driver's, copied as JSON). */
const MAX_OPTION_DEPTH = 32;

/** Whether an option of this name holds a secret. */
export function isSecretOption(name: string): boolean {
  return SECRET_OPTION.test(name);
}

/** The string values of secret options anywhere in `options`: masked wherever else they appear too. */
export function secretOptionValues(options: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > MAX_OPTION_DEPTH || typeof options !== 'object' || options === null) return out;
  for (const [name, value] of Object.entries(options)) {
    if (typeof value === 'string' && value !== '' && isSecretOption(name)) out.push(value);
    else if (typeof value === 'object') secretOptionValues(value, out, depth + 1);
  }
  return out;
}

/**
 * A protocol call's options (or answer) as a recording keeps them: secret options → ***, and
 * every string redacted as text (a password inside a command line, a community in an error).
 */
export function redactValue(value: unknown, redactor: RecordingRedactor, depth = 0): unknown {
  if (typeof value === 'string') return redactor.text(value);
  if (typeof value !== 'object' || value === null || depth > MAX_OPTION_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redactor, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    out[name] = typeof item === 'string' && item !== '' && isSecretOption(name) ? MASK : redactValue(item, redactor, depth + 1);
  }
  return out;
}

/** Options with their secret options masked (the transcript of a replayed call). */
export function redactSecretOptions(options: Record<string, unknown>): unknown {
  return redactValue(options, new RecordingRedactor({ passwords: [] }));
}

/**
 * Values a request or an answer holds under a secret's name (headers other than cookies, which
 * have masks of their own; query parameters; JSON / XML / form fields of a text body), long
 * enough to be masked wherever else they appear in the recording.
 */
export function learntSecrets(url: string | null, headers: Record<string, string | string[] | undefined>, body: string | null): string[] {
  const found = headerSecrets(headers, false);
  if (url !== null) maskUrlQuery(url, found);
  if (body !== null) maskBodyFields(body, found);
  return learnable(found);
}
