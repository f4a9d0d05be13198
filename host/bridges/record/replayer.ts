// Replaying a recording: one Replayer per run. Its wire answers each hop and certificate read
// from the recording and never opens a socket; the rest of the bridge (options, url building,
// cookie jar, redirects, auth, the transcript) runs as it does against a device. A request
// that was not recorded fails with REPLAY_MISS, naming it and the closest recorded requests.
import { CookieJar } from 'tough-cookie';
import { Dispatcher } from 'undici';
import type { DeviceSpec } from '../../contract/device.js';
import { defaultLimits, type RunLimits } from '../../contract/limits.js';
import { answerTooLarge, type Hop, type HopResponse } from '../http/send.js';
import { SendFailure } from '../http/errors.js';
import type { HttpSession, SessionSource } from '../http/sessions.js';
import { MASK } from '../../secrets/secret-mask.js';
import type { TlsAnswer } from '../tls/index.js';
import type { NetworkWire } from './wire.js';
import type { ProtocolModule } from '../../../runtime/protocol.js';
import type { ProtocolAnswer } from '../core/protocol-handler.js';
import { passedThrough, type DriverErrorCode } from '../../contract/driver-error-codes.js';
import { bodyBytes, bodyText, type RecordedBody, type RecordedHttp, type RecordedProtocol, type RecordedTls, type RecordingFile } from '../../contract/recording.js';
import { basicCredentials, learntSecrets, RecordingRedactor, redactValue, secretOptionValues } from './redact.js';
import {
  describeProtocol,
  describeShape,
  differences,
  likeness,
  protocolDifferences,
  protocolKey,
  protocolLikeness,
  protocolShape,
  requestShape,
  shapeKey,
  tlsKey,
  type ProtocolShape,
  type RequestShape,
} from './request-key.js';

/** The error code a driver's callback gets for a request the recording does not have. */
export const REPLAY_MISS = 'REPLAY_MISS' satisfies DriverErrorCode;
/** Closest recorded requests named in a miss. */
const CANDIDATES = 3;
/** Recorded exchanges never asked for, named in the run's warning. */
const UNUSED_SHOWN = 5;

interface Slot<T> {
  entry: T;
  used: boolean;
}

interface HttpSlot extends Slot<RecordedHttp> {
  shape: RequestShape;
}

interface ProtocolSlot extends Slot<RecordedProtocol> {
  shape: ProtocolShape;
}

/** A dispatcher that refuses: nothing in a replay may reach the network. */
class NoNetwork extends Dispatcher {
  override dispatch(): boolean {
    throw new Error('replay: no request may reach the network');
  }
}

const noNetwork = new NoNetwork();

/** A replay run's own sessions: a fresh jar per target, as a first run against the device has. */
class ReplaySessions implements SessionSource {
  readonly #sessions = new Map<string, HttpSession>();

  get(key: string): HttpSession {
    let session = this.#sessions.get(key);
    if (!session) {
      session = { jar: new CookieJar(), dispatcher: () => noNetwork };
      this.#sessions.set(key, session);
    }
    return session;
  }
}

/** Resolves never; rejects when the run ends, as a request the device never answered. */
function unanswered<T>(signal: AbortSignal, failure: () => T): Promise<T> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(failure());
    signal.addEventListener('abort', () => resolve(failure()), { once: true });
  });
}

function copyHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? [...value] : value;
  return out;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The run's bounds a replay keeps as the live modules do (HTTP's are kept by the bridge and the hop). */
export type ReplayBounds = Pick<RunLimits, 'maxOutputBytes' | 'maxProtocolCommands'>;

/** Bytes a recorded body decodes to, without decoding it. */
function recordedBodyBytes(body: RecordedBody | null): number {
  if (body === null) return 0;
  return 'text' in body ? Buffer.byteLength(body.text, 'utf8') : Buffer.byteLength(body.base64, 'base64');
}

/** A protocol answer's output: the UTF-8 bytes of every string in its result, together. Iterative. */
function outputBytes(result: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [result];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') bytes += Buffer.byteLength(item, 'utf8');
    else if (Array.isArray(item)) stack.push(...item);
    else if (typeof item === 'object' && item !== null) for (const value of Object.values(item)) stack.push(value);
  }
  return bytes;
}

/** The result of a refused call, of the recorded result's type: the driver's callback reads it as it would live. */
function emptyLike(result: unknown): unknown {
  if (typeof result === 'string') return '';
  if (Array.isArray(result)) return [];
  return result === null || result === undefined ? result : {};
}

export class Replayer {
  readonly #recording: RecordingFile;
  readonly #http: HttpSlot[] = [];
  /** Recorded hops by request key, in recorded order: identical requests are answered in that order. */
  readonly #byKey = new Map<string, HttpSlot[]>();
  readonly #tls: Array<Slot<RecordedTls>> = [];
  readonly #calls: ProtocolSlot[] = [];
  /** Recorded protocol calls by key, in recorded order: identical calls are answered in that order. */
  readonly #callsByKey = new Map<string, ProtocolSlot[]>();
  /** The replay device's password (the caller's, or the stand-in): redacted away as at recording. */
  #devicePassword: string | null = null;
  readonly #redactors = new Map<string, RecordingRedactor>();
  /** Values the run's requests sent under a secret's name: the recording masked them wherever they appeared. */
  readonly #learnt = new Set<string>();
  #misses = 0;
  /** Set when the caller gave another device address than the recorded one, which is not used. */
  #addressIgnored: string | null = null;
  readonly sessions: SessionSource = new ReplaySessions();
  readonly #bounds: ReplayBounds;
  /** Device commands answered so far (a shell sequence counts each), against maxProtocolCommands. */
  #commands = 0;

  constructor(recording: RecordingFile, bounds: ReplayBounds = defaultLimits) {
    this.#recording = recording;
    this.#bounds = bounds;
    for (const entry of recording.exchanges) {
      if (entry.kind !== 'tls' && entry.kind !== 'http') {
        const slot: ProtocolSlot = { entry, used: false, shape: protocolShape(entry.kind, entry.url, entry.request) };
        this.#calls.push(slot);
        const key = protocolKey(slot.shape);
        const list = this.#callsByKey.get(key);
        if (list) list.push(slot);
        else this.#callsByKey.set(key, [slot]);
        continue;
      }
      if (entry.kind === 'tls') {
        this.#tls.push({ entry, used: false });
        continue;
      }
      const slot: HttpSlot = { entry, used: false, shape: requestShape(entry.method, entry.url, entry.request.body) };
      this.#http.push(slot);
      const key = shapeKey(slot.shape);
      const list = this.#byKey.get(key);
      if (list) list.push(slot);
      else this.#byKey.set(key, [slot]);
    }
  }

  /**
   * The device of the replay run: the recorded address (urls are built on it, so they are the
   * recorded ones), the caller's credentials or else the recorded username, and, for a device
   * recorded with a password, a stand-in: the mask itself, which redacts to what was recorded.
   */
  device(given: DeviceSpec = {}): DeviceSpec {
    const recorded = this.#recording.device;
    const portMap: Record<number, number> = {};
    for (const [from, to] of Object.entries(recorded.portMap)) portMap[Number(from)] = to;
    const differs = [
      given.ip && given.ip !== recorded.ip ? `ip ${given.ip}` : null,
      given.host && given.host !== recorded.host ? `host ${given.host}` : null,
      given.portMap && Object.keys(given.portMap).length && JSON.stringify(given.portMap) !== JSON.stringify(recorded.portMap) ? `port map ${JSON.stringify(given.portMap)}` : null,
    ].filter(Boolean);
    if (differs.length) {
      this.#addressIgnored = `replay: the device address given (${differs.join(', ')}) is not used; urls are built on the recorded one (${recorded.host ?? recorded.ip ?? 'none'})`;
    }
    this.#devicePassword = given.password ?? (recorded.hasPassword ? MASK : null);
    return {
      ...given,
      ip: recorded.ip,
      host: recorded.host,
      portMap,
      username: given.username ?? recorded.username,
      password: given.password ?? (recorded.hasPassword ? MASK : null),
    };
  }

  readonly wire: NetworkWire = {
    send: (hop, secrets) => this.#send(hop, secrets),
    readCertificate: (target, options, _timeoutMs, signal) => {
      const url = tlsKey(target, options);
      const slot = this.#tls.find((s) => !s.used && s.entry.url === url);
      if (!slot) {
        this.#misses++;
        const recorded = [...new Set(this.#tls.map((s) => s.entry.url))];
        const message = `replay: no recorded answer for getTLSCertificate of ${url}; recorded: ${recorded.length ? recorded.join(', ') : 'no certificate reads'}`;
        return Promise.resolve({ error: { code: REPLAY_MISS, message }, certificate: null });
      }
      slot.used = true;
      if (!slot.entry.answer) return unanswered<TlsAnswer>(signal, () => ({ error: { code: 'ABORTED', message: `the run ended while reading the TLS certificate of ${url}` }, certificate: null }));
      return Promise.resolve(structuredClone(slot.entry.answer) as TlsAnswer);
    },
    protocol: (module, url, options, _perform, signal, secrets) => this.#call(module, url, options, signal, secrets ?? []),
  };

  /** A protocol call: the first unused recorded call with the same module, url and options (after redaction). */
  #call(module: ProtocolModule, url: string, options: Record<string, unknown>, signal: AbortSignal, secrets: ReadonlyArray<string | null>): Promise<ProtocolAnswer> {
    const redactor = new RecordingRedactor({ passwords: [this.#devicePassword, ...secrets, ...secretOptionValues(options)], tokens: this.#learnt });
    const shape = protocolShape(module, redactor.text(url), redactValue(options, redactor) as Record<string, unknown>);
    const slot = this.#callsByKey.get(protocolKey(shape))?.find((s) => !s.used);
    if (!slot) {
      this.#misses++;
      return Promise.resolve({ error: { code: REPLAY_MISS, message: this.#callMissMessage(shape) } });
    }
    slot.used = true;
    // The run's bounds, as the live module keeps them: a replay fails where the run would have.
    this.#commands += module === 'sshShell' && Array.isArray(options.commands) ? Math.max(1, options.commands.length) : 1;
    const recorded = slot.entry.answer;
    if (this.#commands > this.#bounds.maxProtocolCommands) {
      return Promise.resolve({ error: { code: 'TOO_MANY_COMMANDS', message: `${module}: the run sent as many device commands as its limit (maxProtocolCommands ${this.#bounds.maxProtocolCommands}) allows` }, result: emptyLike(recorded?.result) });
    }
    if (!recorded) {
      return unanswered<ProtocolAnswer>(signal, () => ({ error: { code: 'ABORTED', message: `${module} on ${url}: the run ended before the answer` } }));
    }
    const bytes = outputBytes(recorded.result);
    if (bytes > this.#bounds.maxOutputBytes) {
      return Promise.resolve({ error: { code: 'OUTPUT_TOO_LARGE', message: `${module}: the output passed ${this.#bounds.maxOutputBytes} bytes (the run's maxOutputBytes; the recorded answer has ${bytes})` }, result: emptyLike(recorded.result) });
    }
    // The recording's codes, as the live call gave them.
    return Promise.resolve(structuredClone(recorded) as ProtocolAnswer);
  }

  #callMissMessage(shape: ProtocolShape): string {
    const kind = { key: protocolKey, likeness: protocolLikeness, describe: describeProtocol, differences: protocolDifferences };
    return missMessage(shape, this.#calls, this.#callsByKey, kind, 'the recording has no SSH, Telnet, SNMP or WinRM calls');
  }

  /** What the run's result should say about the replay: misses, and recorded exchanges never asked for. */
  warnings(): string[] {
    const out: string[] = [];
    if (this.#addressIgnored) out.push(this.#addressIgnored);
    if (this.#misses) out.push(`replay: ${plural(this.#misses, 'request')} had no recorded answer (${REPLAY_MISS}, see the HTTP exchanges)`);
    const unused = [
      ...this.#http.filter((s) => !s.used && !s.entry.unanswered).map((s) => describeShape(s.shape)),
      ...this.#tls.filter((s) => !s.used && !s.entry.unanswered).map((s) => `TLS ${s.entry.url}`),
      ...this.#calls.filter((s) => !s.used && !s.entry.unanswered).map((s) => describeProtocol(s.shape)),
    ];
    if (unused.length) {
      const shown = unused.slice(0, UNUSED_SHOWN).join('; ');
      out.push(`replay: ${plural(unused.length, 'recorded exchange was', 'recorded exchanges were')} never asked for: ${shown}${unused.length > UNUSED_SHOWN ? '; …' : ''}`);
    }
    return out;
  }

  #send(hop: Hop, secrets: ReadonlyArray<string | null>): Promise<HopResponse> {
    const shape = this.#shapeOf(hop, secrets);
    const slot = this.#byKey.get(shapeKey(shape))?.find((s) => !s.used);
    if (!slot) {
      this.#misses++;
      return Promise.reject(new SendFailure(REPLAY_MISS, this.#missMessage(shape)));
    }
    slot.used = true;
    const { entry } = slot;
    // The recording's code, as the live wire gave it.
    if (entry.error) return Promise.reject(new SendFailure(passedThrough(entry.error.code), entry.error.message));
    if (!entry.response) {
      return unanswered(hop.signal, () => new SendFailure('ABORTED', `${hop.method} ${hop.url.origin}: the run ended before the answer`)).then((failure) => {
        throw failure;
      });
    }
    const { status, headers, body, wireBytes } = entry.response;
    // The run's bounds on an answer, as the live wire keeps them (send.ts), checked before the body is decoded.
    const size = recordedBodyBytes(body);
    if (size > hop.maxResponseBytes) {
      return Promise.reject(answerTooLarge(hop));
    }
    if (hop.buffers && size > 0) {
      // Held as a live answer is while it arrives: the host's bound on answers held at once applies.
      if (!hop.buffers.take(size)) {
        return Promise.reject(new SendFailure('HOST_BUFFERS_FULL', `${hop.method} ${hop.url.origin}: the host already holds ${hop.buffers.max} bytes of answers for its runs (maxBufferedBytes); try again later`));
      }
      hop.buffers.give(size);
    }
    return Promise.resolve({ status, headers: copyHeaders(headers), body: bodyBytes(body), wireBytes, headersMs: 0 });
  }

  /**
   * The request as the recording would hold it: redacted with the run's secrets, the same way.
   * Values sent under a secret's name so far in the run (this hop's included) are masked as the
   * recording masked them.
   */
  #shapeOf(hop: Hop, secrets: ReadonlyArray<string | null>): RequestShape {
    const basic = basicCredentials(hop.headers.authorization);
    const text = hop.body && hop.body.length > 0 ? bodyText(hop.body) : null;
    for (const value of learntSecrets(hop.url.href, hop.headers, text)) this.#learnt.add(value);
    const passwords = [...secrets, basic?.password ?? null];
    const cacheKey = [...passwords, basic?.token ?? '', ...this.#learnt].map((s) => s ?? '').join('\0');
    let redactor = this.#redactors.get(cacheKey);
    if (!redactor) {
      redactor = new RecordingRedactor({ passwords, tokens: [...(basic ? [basic.token] : []), ...this.#learnt] });
      this.#redactors.set(cacheKey, redactor);
    }
    let body: RecordedBody | null = null;
    if (hop.body && hop.body.length > 0) {
      body = text === null ? { base64: hop.body.toString('base64') } : { text: redactor.body(text) };
    }
    return requestShape(hop.method, redactor.url(hop.url.href), body);
  }

  #missMessage(shape: RequestShape): string {
    const kind = { key: shapeKey, likeness, describe: describeShape, differences };
    return missMessage(shape, this.#http, this.#byKey, kind, 'the recording has no HTTP exchanges');
  }
}

/** How a replay miss is explained for one kind of exchange (HTTP requests, protocol calls). */
interface MissKind<S> {
  key: (shape: S) => string;
  likeness: (asked: S, recorded: S) => number;
  describe: (shape: S) => string;
  differences: (asked: S, recorded: S) => string[];
}

/** Why `shape` has no answer: its recorded answers are used up, or the closest recorded ones and how they differ. */
function missMessage<S>(shape: S, recorded: Array<{ shape: S }>, byKey: Map<string, unknown[]>, kind: MissKind<S>, none: string): string {
  const asked = kind.describe(shape);
  const same = byKey.get(kind.key(shape));
  if (same) return `replay: ${asked} was recorded ${plural(same.length, 'time')} and every recorded answer was already used`;
  const seen = new Set<string>();
  const closest = [...recorded]
    .sort((a, b) => kind.likeness(shape, b.shape) - kind.likeness(shape, a.shape))
    .filter((s) => {
      const key = kind.key(s.shape);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, CANDIDATES)
    .map((s) => `${kind.describe(s.shape)}, differs in ${kind.differences(shape, s.shape).join(' and ')}`);
  return `replay: no recorded answer for ${asked}; ${closest.length ? `closest recorded: ${closest.join('; ')}` : none}`;
}
