// Checks of what the in-isolate runtime sends with each operation (run-steps.ts). The
// runtime runs in the driver's context, so its payloads are the driver's to forge: each is
// checked for type and shape here and rebuilt from the checked fields, never cast, and nothing
// nested deeper than MAX_PAYLOAD_DEPTH goes on (this thread's JSON.stringify, structured clone
// and the network bridge all recurse, and overflow their stack on deep values).
import type { CryptoCall, ExternalDeviceCall, HttpCall, LibName, ProtocolCall, ProtocolModule, TlsCall } from '../../../runtime/protocol.js';
import { MAX_JSON_DEPTH } from '../../untrusted-input/plain-values.js';

/** Deepest nesting of objects and arrays accepted in a payload (a request's options and body included). */
export const MAX_PAYLOAD_DEPTH = 64;

/** A refused operation: its message is the driver's to see. */
export class BadPayload extends Error {}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON text from the isolate, parsed (V8's JSON.parse does not recurse, so depth cannot overflow it). */
export function parsePayload(json: unknown): unknown {
  if (typeof json !== 'string') throw new BadPayload(`the runtime sent ${typeof json} where JSON text was expected`);
  return JSON.parse(json) as unknown;
}

/** Is `value` nested at most `max` levels deep? Iterative: no depth can overflow it. */
export function withinDepth(value: unknown, max = MAX_PAYLOAD_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return false;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return true;
}

const id = (value: unknown, where: string): number => {
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw new BadPayload(`${where}: the operation id must be a positive integer`);
  return value as number;
};

const libs: ReadonlySet<string> = new Set<LibName>(['q', 'lodash', 'cheerio', 'buffer']);

export function checkLibName(payload: unknown): LibName {
  if (typeof payload !== 'string' || !libs.has(payload)) {
    throw new BadPayload(`there is no library ${typeof payload === 'string' ? JSON.stringify(payload.slice(0, 40)) : `given as ${payload === null ? 'null' : typeof payload}`}`);
  }
  return payload as LibName;
}

/** `again`: the next firing of an interval (not counted again against maxTimers). */
export function checkTimer(payload: unknown): { id: number; ms: number; again: boolean } {
  if (!isRecord(payload)) throw new BadPayload('a timer must be an object');
  const ms = payload.ms;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new BadPayload('a timer needs a delay of 0 ms or more');
  if (payload.again !== undefined && payload.again !== true) throw new BadPayload('a timer\'s again flag must be true when given');
  return { id: id(payload.id, 'timer'), ms, again: payload.again === true };
}

export function checkCancel(payload: unknown): { id: number } {
  if (!isRecord(payload)) throw new BadPayload('a cancellation must be an object');
  return { id: id(payload.id, 'cancel') };
}

const optionalText = (value: unknown, where: string): string | undefined => {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new BadPayload(`${where} must be a string`);
  return value;
};

export function checkExternalCall(payload: unknown): ExternalDeviceCall {
  if (!isRecord(payload)) throw new BadPayload('D.createExternalDevice: the call must be an object');
  if (typeof payload.host !== 'string') throw new BadPayload('D.createExternalDevice: host must be a string');
  const credentials = payload.credentials;
  if (credentials !== null && credentials !== undefined && !isRecord(credentials)) throw new BadPayload('D.createExternalDevice: credentials must be an object');
  return {
    host: payload.host,
    credentials: credentials
      ? { username: optionalText(credentials.username, 'D.createExternalDevice: username'), password: optionalText(credentials.password, 'D.createExternalDevice: password') }
      : null,
  };
}

const cryptoFns: ReadonlySet<string> = new Set(['hash', 'hmac', 'pbkdf2', 'cipherCreate', 'cipherUpdate', 'cipherFinal', 'cipherSetAutoPadding']);

export function checkCryptoCall(payload: unknown): CryptoCall {
  if (!isRecord(payload) || typeof payload.fn !== 'string' || !cryptoFns.has(payload.fn) || !Array.isArray(payload.args) || payload.args.length > 8) {
    throw new BadPayload('D.crypto: malformed call');
  }
  const args = payload.args.map((arg: unknown) => {
    if (isRecord(arg)) {
      if (typeof arg.s === 'string') return { s: arg.s };
      if (typeof arg.b64 === 'string') return { b64: arg.b64 };
      if (arg.v === null || typeof arg.v === 'number' || typeof arg.v === 'boolean') return { v: arg.v };
    }
    throw new BadPayload('D.crypto: malformed argument');
  });
  return { fn: payload.fn as CryptoCall['fn'], args };
}

const methods: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'DELETE']);

/** A request (or TLS read) as the network bridge gets it; or the text of why it is refused. */
export function checkNetworkCall(payload: unknown): ((HttpCall | TlsCall) & { id: number }) | string {
  if (!isRecord(payload)) return 'the request must be an object';
  if (!Number.isSafeInteger(payload.id) || (payload.id as number) < 1) return 'the request has no valid id';
  if (!Number.isSafeInteger(payload.target) || (payload.target as number) < 0) return 'the request has no valid target';
  if (!isRecord(payload.options)) return 'the request options must be an object';
  // The bridge refuses a json / body / form value nested past MAX_JSON_DEPTH with its own message;
  // this bound (one level more, for the options object) only keeps deeper values off the wire.
  if (!withinDepth(payload.options, MAX_JSON_DEPTH + 1)) return `the request options are nested more than ${MAX_JSON_DEPTH} levels deep`;
  const base = { id: payload.id as number, target: payload.target as number, options: payload.options };
  if (payload.method === undefined) return base;
  if (typeof payload.method !== 'string' || !methods.has(payload.method)) return 'the request method must be GET, POST, PUT or DELETE';
  return { ...base, method: payload.method as HttpCall['method'] };
}

const modules: ReadonlySet<string> = new Set<ProtocolModule>(['ssh', 'sshShell', 'telnet', 'snmp', 'winrm', 'tftp']);

/** A call of a protocol module (SSH, Telnet, SNMP, WinRM); or the text of why it is refused. */
export function checkProtocolCall(payload: unknown): (ProtocolCall & { id: number }) | string {
  if (!isRecord(payload)) return 'the call must be an object';
  if (!Number.isSafeInteger(payload.id) || (payload.id as number) < 1) return 'the call has no valid id';
  if (!Number.isSafeInteger(payload.target) || (payload.target as number) < 0) return 'the call has no valid target';
  if (typeof payload.module !== 'string' || !modules.has(payload.module)) return 'the call names no known module';
  if (!isRecord(payload.options)) return 'the options must be an object';
  if (!withinDepth(payload.options, MAX_PAYLOAD_DEPTH)) return `the options are nested more than ${MAX_PAYLOAD_DEPTH} levels deep`;
  return { id: payload.id as number, target: payload.target as number, module: payload.module as ProtocolModule, options: payload.options };
}

/** The answer to a sync operation the host refused: the runtime throws an Error with this text. */
export function hostAnswerError(message: string): string {
  return JSON.stringify({ ok: false, error: message.slice(0, 2_000) });
}

/** What the console dropped past the log limit (runtime/console.ts): counts as non-negative integers. */
export function checkLogDropped(payload: unknown): { lines: number; chars: number; final: boolean } {
  const entry = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
  const count = (value: unknown): number => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0);
  return { lines: count(entry.lines), chars: count(entry.chars), final: entry.final === true };
}
