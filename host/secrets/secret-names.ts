// Secrets known by their name rather than their value: a header, a query parameter or a body
// field called like a key, a token, a password… holds a secret whatever its value, and that
// value (when long enough) is then a secret wherever else it turns up (a run "learns" it).
// Shared by transcripts, recordings (and the replay that must redact a live request the same
// way) and the masking of a run's result.
import { MASK } from './secret-mask.js';

/** A name containing one of these (case-insensitive) is a secret's: x-cisco-meraki-api-key, X-Auth-Token, accessToken… */
const SECRET_PARTS = ['key', 'token', 'secret', 'session', 'password', 'passwd', 'passphrase', 'auth', 'credential', 'signature', 'cookie', 'community', 'csrf', 'xsrf'];
/** Short names that are secrets' when they are the whole name (leading _ or $ ignored): Synology's _sid, pwd… */
const SECRET_NAMES = new Set(['sid', 'pwd', 'pw', 'pass', 'psk', 'otp', 'sig', 'jwt']);
/** Headers whose name matches but that carry a challenge, not a secret: a driver answering a Digest challenge needs them. */
const CHALLENGE_HEADERS = new Set(['www-authenticate', 'proxy-authenticate']);

/**
 * A value learnt from a secret's name is masked wherever else it appears only from this
 * length: shorter ones ("true", "30", "basic") are ordinary words everywhere, and stay masked
 * where their name is.
 */
export const MIN_LEARNED_LENGTH = 8;

/** Whether a header, query parameter or field of this name holds a secret. */
export function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  if (SECRET_NAMES.has(lower.replace(/^[_$]+/, ''))) return true;
  for (const part of SECRET_PARTS) if (lower.includes(part)) return true;
  return false;
}

/** A header whose value is masked (Authorization keeps its scheme; Cookie / Set-Cookie are masked per pair elsewhere). */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return !CHALLENGE_HEADERS.has(lower) && isSecretName(lower);
}

/**
 * A body field (JSON, form, XML element) whose value is masked. A field called just "key" is
 * left alone: in bodies it is nearly always the name half of a key/value list
 * ({"key": "cpu", "value": 12}); as a query parameter (Google's ?key=…) or a header it is masked.
 */
export function isSecretField(name: string): boolean {
  return name.toLowerCase() !== 'key' && isSecretName(name);
}

function decodeFormPart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** `a=1&api_key=xyz` → `a=1&api_key=***`: form-encoded pairs whose name is a secret's; the rest as it was. */
export function maskFormPairs(text: string, isSecret: (name: string) => boolean, learned?: string[]): string {
  return text.replace(/(^|&)([^=&#]*)=([^&#]*)/g, (whole, lead: string, name: string, value: string) => {
    if (value === '' || value.includes(MASK) || !isSecret(decodeFormPart(name))) return whole;
    learned?.push(decodeFormPart(value));
    return `${lead}${name}=${MASK}`;
  });
}

/** A URL with the values of its secret-named query parameters masked (path, fragment and other parameters as they were). */
export function maskUrlQuery(href: string, learned?: string[]): string {
  const query = href.indexOf('?');
  if (query < 0) return href;
  const hash = href.indexOf('#', query);
  const end = hash < 0 ? href.length : hash;
  return href.slice(0, query + 1) + maskFormPairs(href.slice(query + 1, end), isSecretName, learned) + href.slice(end);
}

/**
 * "name": "value" pairs of JSON (anywhere in a text: a body, JSON inside HTML). Escapes are
 * skipped whole. A value that holds a mask already (***cookie-1***, Bearer ***) is left as it is.
 */
const JSON_STRING_FIELD = /"((?:[^"\\\n]|\\.)*)"(\s*:\s*)"((?:[^"\\\n]|\\.)*)"/g;
/** <name attr…>value</name>, with or without a namespace prefix (SOAP bodies). */
const XML_TEXT_ELEMENT = /<((?:[\w.-]+:)?([\w.-]+))((?:\s[^<>]*)?)>([^<]+)<\/\1>/g;
/** Whether a text may hold a secret's name at all (every name isSecretName knows contains one of these). */
const MAY_NAME_A_SECRET = new RegExp(`${[...SECRET_PARTS, ...SECRET_NAMES].join('|')}`, 'i');
/** A whole body that is form-encoded pairs. */
const FORM_BODY = /^[^\s=&]+=[^\s&]*(?:&[^\s=&]+=[^\s&]*)*$/;

function jsonUnescape(text: string): string {
  if (!text.includes('\\')) return text;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}

/**
 * A body's text with the values of its secret-named fields masked: JSON string fields, XML
 * elements holding text, and a form-encoded body's pairs. `learned` receives the values masked.
 */
export function maskBodyFields(text: string, learned?: string[]): string {
  // Most bodies name no secret at all: one scan says so, before the field-by-field ones.
  if (!MAY_NAME_A_SECRET.test(text)) return text;
  let out = text;
  if (out.includes('"')) {
    out = out.replace(JSON_STRING_FIELD, (whole, name: string, colon: string, value: string) => {
      if (value === '' || value.includes(MASK) || !isSecretField(jsonUnescape(name))) return whole;
      learned?.push(jsonUnescape(value));
      return `"${name}"${colon}"${MASK}"`;
    });
  }
  if (out.includes('</')) {
    out = out.replace(XML_TEXT_ELEMENT, (whole, tag: string, local: string, attributes: string, value: string) => {
      if (value.trim() === '' || value.includes(MASK) || !isSecretField(local)) return whole;
      learned?.push(value.trim());
      return `<${tag}${attributes}>${MASK}</${tag}>`;
    });
  }
  if (FORM_BODY.test(out)) out = maskFormPairs(out, isSecretField, learned);
  return out;
}

/**
 * The secret of an Authorization-like value: what follows the scheme ("Bearer abc" → abc), the
 * whole value when it has no scheme (an X-Auth-Token).
 */
function headerSecret(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization') {
    const match = /^\S+\s+(.+)$/s.exec(value.trim());
    return match ? match[1]!.trim() : value.trim();
  }
  return value.trim();
}

/** Cookie values of a Cookie header ("a=1; b=2") or of a Set-Cookie line (its first pair). */
function cookiePairValues(value: string, setCookie: boolean): string[] {
  const pairs = setCookie ? [value.split(';')[0]!] : value.split(';');
  return pairs.map((pair) => pair.slice(pair.indexOf('=') + 1).trim()).filter((v) => v !== '' && v !== MASK);
}

/**
 * The secret values of headers found by name: secret-named headers (the part after an
 * Authorization's scheme), and cookie values unless `cookies` is false (a recording masks
 * those with numbered masks of its own).
 */
export function headerSecrets(headers: Record<string, string | string[] | undefined>, cookies = true): string[] {
  const out: string[] = [];
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const lower = name.toLowerCase();
    const values = Array.isArray(raw) ? raw : [raw];
    if (lower === 'cookie' || lower === 'set-cookie') {
      if (cookies) for (const value of values) out.push(...cookiePairValues(String(value), lower === 'set-cookie'));
      continue;
    }
    if (!isSecretHeader(lower)) continue;
    for (const value of values) out.push(headerSecret(lower, String(value)));
  }
  return out;
}

/** The values worth masking everywhere among those learnt: long enough, and not a mask already. */
export function learnable(values: Iterable<string>): string[] {
  const out: string[] = [];
  for (const value of values) if (value.length >= MIN_LEARNED_LENGTH && !value.includes(MASK)) out.push(value);
  return out;
}

/**
 * A parameter value is a secret from this length on: API keys, tokens and passwords are longer,
 * while the short values parameters mostly hold ("true", "eth0", "8080", "auto") are not secrets
 * and would otherwise be masked in every URL and log line. A parameter whose name is a secret's
 * (apiKey, password…) is one at any length, as the device's password is.
 */
export const MIN_PARAMETER_LENGTH = 6;

/** Parameter values nested deeper than this (lists of lists…) are not looked at. */
const MAX_PARAMETER_DEPTH = 8;

/**
 * The secrets among a run's parameters: every string value long enough, and the strings of a
 * list value (the value types Domotz parameters have: string, number, list). Inside an object
 * value (a driverbox extension: structured settings) only the fields named like a secret's are;
 * a parameter named like a secret's is one whole, at any length.
 */
export function parameterSecrets(parameters: Record<string, unknown> | null | undefined): string[] {
  const out: string[] = [];
  // inObject: below an object value, only what is named like a secret counts.
  const walk = (value: unknown, secretName: boolean, inObject: boolean, depth: number) => {
    if (typeof value === 'string') {
      if (value !== '' && (secretName || (!inObject && value.length >= MIN_PARAMETER_LENGTH))) out.push(value);
    } else if (Array.isArray(value)) {
      if (depth < MAX_PARAMETER_DEPTH) for (const item of value) walk(item, secretName, inObject, depth + 1);
    } else if (typeof value === 'object' && value !== null && depth < MAX_PARAMETER_DEPTH) {
      for (const [name, item] of Object.entries(value)) walk(item, secretName || isSecretName(name), true, depth + 1);
    }
  };
  if (parameters && typeof parameters === 'object') for (const [name, value] of Object.entries(parameters)) walk(value, isSecretName(name), false, 0);
  return out;
}
