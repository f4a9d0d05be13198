// Recording a run: its wire sends every hop and reads every certificate for real, as a normal
// run does, and keeps what went each way. When the run ends the whole is redacted at once
// (a cookie value learnt late is masked everywhere, with one mask) and written atomically.
import type { DeviceSpec } from '../../contract/device.js';
import type { RunResult } from '../../contract/run-result.js';
import { canonicalHost } from '../core/host-name.js';
import { sendHop, type HopResponse } from '../http/send.js';
import { SendFailure } from '../http/errors.js';
import { readCertificate, type TlsAnswer } from '../tls/index.js';
import type { NetworkWire } from './wire.js';
import type { ProtocolAnswer, ProtocolModule } from '../../../runtime/protocol.js';
import { bodyText, RECORDING_VERSION, type RecordedBody, type RecordedExchange, type RecordedHttp, type RecordingFile } from '../../contract/recording.js';
import { PendingFile } from './pending-file.js';
import { basicCredentials, cookieValues, learntSecrets, RecordingRedactor, redactValue, secretOptionValues } from './redact.js';
import { tlsKey } from './request-key.js';

/** A hop as it went: raw until the run ends. */
interface CapturedHttp {
  kind: 'http';
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  response?: HopResponse;
  error?: SendFailure;
}

interface CapturedTls {
  kind: 'tls';
  url: string;
  answer?: TlsAnswer;
}

/** A protocol module's call: its options as the wire got them (a copy), and the answer if it came in time. */
interface CapturedProtocol {
  kind: 'protocol';
  module: ProtocolModule;
  url: string;
  options: Record<string, unknown>;
  answer?: ProtocolAnswer;
}

export interface RecordingMeta {
  driver: string;
  action: string;
  device: DeviceSpec;
  /** The run's host-name pins, kept so a replay dials the same URLs. */
  resolve?: RecordingFile['resolve'];
}

/** The run ended first: the answer came too late to matter, and replay leaves it unanswered too. */
const cutShort = (code: string | undefined) => code === 'ABORTED';

export class Recorder {
  readonly #file: PendingFile;
  readonly #meta: RecordingMeta;
  readonly #recordedAt = new Date().toISOString();
  readonly #captured: Array<CapturedHttp | CapturedTls | CapturedProtocol> = [];
  readonly #passwords = new Set<string>();

  private constructor(file: PendingFile, meta: RecordingMeta) {
    this.#file = file;
    this.#meta = meta;
    if (meta.device.password) this.#passwords.add(meta.device.password);
    // The device's SNMP community and v3 keys: an SNMP call uses them without the driver passing them.
    const snmp = meta.device.snmp;
    for (const secret of [snmp?.community, snmp?.writeCommunity, snmp?.user?.authKey, snmp?.user?.privKey]) if (secret) this.#passwords.add(secret);
  }

  /** Reserves the file (RECORD_UNWRITABLE when it cannot be written) before the run starts. */
  static async open(file: string, meta: RecordingMeta): Promise<Recorder> {
    return new Recorder(await PendingFile.reserve(file), meta);
  }

  get path(): string {
    return this.#file.target;
  }

  readonly wire: NetworkWire = {
    send: (hop, secrets) => {
      for (const secret of secrets) if (secret) this.#passwords.add(secret);
      // A copy: the bridge changes the cookie and content-type headers between hops.
      const entry: CapturedHttp = { kind: 'http', method: hop.method, url: hop.url.href, headers: { ...hop.headers }, body: hop.body };
      this.#captured.push(entry);
      return sendHop(hop).then(
        (response) => {
          entry.response = response;
          return response;
        },
        (error: unknown) => {
          entry.error = error instanceof SendFailure ? error : new SendFailure('NETWORK_ERROR', String(error));
          throw error;
        },
      );
    },
    readCertificate: (target, options, timeoutMs, signal, trust) => {
      if (target.password) this.#passwords.add(target.password);
      const entry: CapturedTls = { kind: 'tls', url: tlsKey(target, options) };
      this.#captured.push(entry);
      return readCertificate(target, options, timeoutMs, signal, trust).then((answer) => {
        entry.answer = answer;
        return answer;
      });
    },
    protocol: (module, url, options, perform, signal, secrets) => {
      // A copy now (JSON: the options are plain data from the sandbox): the handler may not change what is kept.
      const entry: CapturedProtocol = { kind: 'protocol', module, url, options: JSON.parse(JSON.stringify(options)) as Record<string, unknown> };
      for (const secret of [...(secrets ?? []), ...secretOptionValues(options)]) if (secret) this.#passwords.add(secret);
      this.#captured.push(entry);
      return perform().then((answer) => {
        // An answer that came after the run ended (ABORTED by its signal) is not the device's: left unanswered.
        if (!signal.aborted) entry.answer = answer;
        return answer;
      });
    },
  };

  /** Writes the recording of the finished run. A failure to write is returned as a warning for the result. */
  async finish(result: RunResult): Promise<string | null> {
    try {
      await this.#file.commit(`${JSON.stringify(this.#document(result), null, 2)}\n`);
      return null;
    } catch (error) {
      return `the recording ${this.#file.target} could not be written: ${(error as Error).message}`;
    }
  }

  /** The run did not finish (the sandbox failed, the host closed): no recording. */
  discard(): Promise<void> {
    return this.#file.discard();
  }

  #redactor(): RecordingRedactor {
    const tokens: string[] = [];
    const cookies: string[] = [];
    for (const entry of this.#captured) {
      if (entry.kind !== 'http') continue;
      const basic = basicCredentials(entry.headers.authorization);
      if (basic) {
        tokens.push(basic.token);
        this.#passwords.add(basic.password);
      }
      if (entry.headers.cookie) cookies.push(...cookieValues(entry.headers.cookie, false));
      const setCookie = entry.response?.headers['set-cookie'];
      for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) cookies.push(...cookieValues(line, true));
      tokens.push(...learntSecrets(entry.url, entry.headers, entry.body ? bodyText(entry.body) : null));
      if (entry.response) tokens.push(...learntSecrets(null, entry.response.headers, bodyText(entry.response.body)));
    }
    return new RecordingRedactor({ passwords: this.#passwords, tokens, cookieValues: cookies });
  }

  #document(result: RunResult): RecordingFile {
    const redactor = this.#redactor();
    const body = (bytes: Buffer | undefined): RecordedBody | null => {
      if (!bytes || bytes.length === 0) return null;
      const text = bodyText(bytes);
      return text === null ? { base64: bytes.toString('base64') } : { text: redactor.body(text) };
    };
    const exchanges = this.#captured.map((entry): RecordedExchange => {
      if (entry.kind === 'protocol') {
        const request = redactValue(entry.options, redactor) as Record<string, unknown>;
        if (!entry.answer) return { kind: entry.module, url: redactor.text(entry.url), request, unanswered: true };
        return { kind: entry.module, url: redactor.text(entry.url), request, answer: redactValue(entry.answer, redactor) as ProtocolAnswer };
      }
      if (entry.kind === 'tls') {
        const answer = entry.answer;
        if (!answer || cutShort(answer.error?.code)) return { kind: 'tls', url: entry.url, unanswered: true };
        const error = answer.error && { code: answer.error.code, message: redactor.text(answer.error.message) };
        return { kind: 'tls', url: entry.url, answer: { error, certificate: answer.certificate as Record<string, unknown> | null } };
      }
      const recorded: RecordedHttp = {
        kind: 'http',
        method: entry.method,
        url: redactor.url(entry.url),
        request: { headers: redactor.headers(entry.headers), body: body(entry.body) },
      };
      if (entry.response) {
        const { status, headers, wireBytes } = entry.response;
        recorded.response = { status, headers: redactor.headers(headers), body: body(entry.response.body), wireBytes };
      } else if (entry.error && !cutShort(entry.error.code)) {
        recorded.error = { code: entry.error.code, message: redactor.text(entry.error.message) };
      } else {
        recorded.unanswered = true;
      }
      return recorded;
    });
    const { device } = this.#meta;
    return {
      recording: RECORDING_VERSION,
      driver: this.#meta.driver,
      action: this.#meta.action,
      recordedAt: this.#recordedAt,
      outcome: { status: result.status, errorType: result.errorType },
      device: {
        ip: device.ip ?? null,
        host: device.host ?? null,
        username: device.username ? redactor.text(device.username) : null,
        hasPassword: Boolean(device.password),
        portMap: Object.fromEntries(Object.entries(device.portMap ?? {}).map(([from, to]) => [from, to])),
      },
      ...(this.#meta.resolve && Object.keys(this.#meta.resolve).length ? { resolve: this.#meta.resolve } : {}),
      ...redirectHosts(result, device),
      exchanges,
    };
  }
}

/** Hosts other than the device the run followed a redirect to, which a replay follows again (no socket is opened). */
function redirectHosts(result: RunResult, device: RecordingMeta['device']): Pick<RecordingFile, 'redirectHosts'> {
  const own = new Set([device.ip, device.host].map((h) => (h ? canonicalHost(h) : null)));
  const hosts = new Set<string>();
  for (const exchange of result.http) {
    if (!exchange.redirectedTo) continue;
    let hostname: string;
    try {
      hostname = new URL(exchange.redirectedTo).hostname;
    } catch {
      continue;
    }
    const host = canonicalHost(hostname.replace(/^\[|\]$/g, ''));
    if (host !== null && !own.has(host)) hosts.add(host);
  }
  return hosts.size ? { redirectHosts: [...hosts].sort() } : {};
}
