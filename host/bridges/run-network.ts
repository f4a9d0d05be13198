// Everything one run does on the network: its targets (the device and the external hosts it
// was allowed), its request bound and concurrency queue, the abort of what is in flight when
// the run ends, and its transcript. It lives on the run's sandbox thread (a plain run:
// host/engine/threads/thread-network.ts), or on the host thread (a record, replay or deviceState run,
// or HostOptions.networkInThreads false), where the sandbox thread sends it the driver's calls.
import { createHash } from 'node:crypto';
import type { ExternalDeviceCall, HttpAnswer, HttpCall, ProtocolAnswer, ProtocolCall, TlsCall } from '../../runtime/protocol.js';
import type { DeviceSpec } from '../contract/device.js';
import type { RunLimits } from '../contract/limits.js';
import type { HttpExchange } from '../contract/run-result.js';
import type { ByteBudget } from './http/buffer-budget.js';
import { canonicalHost } from './http/host-name.js';
import { performRequest } from './http/index.js';
import { numberOption } from './http/options.js';
import { describe, isPlainObject } from './http/plain.js';
import type { HttpSession, SessionSource } from './http/sessions.js';
import { deviceTarget, externalTarget, type HttpTarget, type ResolveMap } from './http/target.js';
import { RedactorCache, round, startExchange, type TranscriptMode } from './http/transcript.js';
import { protocolEndpoint } from './protocol-endpoint.js';
import { protocolHandlers, transcriptMethod, type ProtocolContext } from './protocols.js';
import type { TrustStore } from './tls/trust.js';
import { redactSecretOptions } from './record/redact.js';
import { liveWire, type NetworkWire } from './wire.js';

export interface NetworkPlan {
  device: DeviceSpec;
  limits: RunLimits;
  sessions: SessionSource;
  trust: TrustStore;
  /** Where exchanges go: the device (default), or a recorder / a replay of a recording. */
  wire?: NetworkWire;
  /** 'full' records headers and bodies of every exchange (redacted). */
  transcript: TranscriptMode;
  /** May the driver reach this external host? (D.createExternalDevice) */
  allowExternal: (host: string) => boolean;
  /** May a redirect lead to this host (canonical name), another than the target's? Default: none. */
  allowRedirect?: (host: string) => boolean;
  /** Host names this run dials at a given address (RunRequest.resolve). */
  resolve: ResolveMap;
  /**
   * The driver the run runs: part of its sessions' keys, so that a jar one driver logged in
   * is never another driver's. Without it, the run's sessions are those of drivers without one.
   */
  driver?: { filename: string; source: string };
  /** The host's bound on answer bytes held at once by all its runs (HostOptions.maxBufferedBytes). */
  buffers?: ByteBudget;
  /**
   * The run's other secrets (its parameters' secrets, the device's SNMP community and keys):
   * masked in the transcript and, like passwords, in a recording.
   */
  secrets?: ReadonlyArray<string>;
  /**
   * When the run started, as performance.timeOrigin + now (RunPlan.startedAt): the clock of its
   * deadline and transcript. Default: when this object is made.
   */
  startedAt?: number;
}

/** D.createExternalDevice calls one run may make: each is a target, a session and a secret to mask. */
export const MAX_EXTERNAL_DEVICES = 64;

type Answer = { error: { code: string; message: string } | null };

function refusal(code: string, message: string, extra: Record<string, unknown>): Answer {
  return { error: { code, message }, ...extra };
}

/**
 * Digests of recent drivers by source, then file name: a host runs a few drivers many times.
 * Only sources up to 64 KiB are kept (32 of them at most): the cache must not hold drivers alive.
 */
const driverDigests = new Map<string, Map<string, string>>();
const CACHED_SOURCE_CHARS = 64 * 1024;

/** A session key's part for the driver: a digest of its file name and source (never the source). */
function driverDigest(driver: NetworkPlan['driver']): string {
  if (!driver) return 'driver:-';
  const cacheable = driver.source.length <= CACHED_SOURCE_CHARS;
  let byName = cacheable ? driverDigests.get(driver.source) : undefined;
  let digest = byName?.get(driver.filename);
  if (digest === undefined) {
    digest = `driver:${createHash('sha256').update(driver.filename).update('\0').update(driver.source).digest('base64url').slice(0, 22)}`;
    if (!cacheable) return digest;
    if (!byName) {
      if (driverDigests.size >= 32) driverDigests.clear();
      byName = new Map();
      driverDigests.set(driver.source, byName);
    }
    if (byName.size >= 16) byName.clear();
    byName.set(driver.filename, digest);
  }
  return digest;
}

/** The longest a TLS read may take, whatever is left of the run. */
const TLS_TIMEOUT_MS = 30_000;
/**
 * The run's deadline is kept by its sandbox thread, which starts it a little after this
 * object exists; requests here may run that much longer, so that the run's end (which
 * aborts them, see close) and not their own timer decides how they are recorded.
 */
const DEADLINE_SLACK_MS = 250;

export class RunNetwork {
  readonly #plan: NetworkPlan;
  readonly #started: number;
  readonly #deadline: number;
  readonly #targets: HttpTarget[];
  readonly #abort = new AbortController();
  readonly #exchanges: HttpExchange[] = [];
  readonly #redactors = new RedactorCache();
  /** The targets' passwords and the plan's secrets (the recording and replay wires redact with them). */
  readonly #secrets: Array<string | null> = [];
  #driverKey: string | null = null;
  readonly #wire: NetworkWire;
  /** TLS reads not answered yet: unlike an HTTP exchange, a good one keeps status and error null. */
  readonly #pendingTls = new Set<HttpExchange>();
  /** Protocol calls not answered yet (their exchanges): the run's end marks them ABORTED. */
  readonly #pendingCalls = new Set<HttpExchange>();
  #requests = 0;
  #deviceSessions = 0;
  #deviceCommands = 0;
  #closed = false;
  // At most maxConcurrentRequests of the run's requests are in flight; the others wait here,
  // so a driver that fires a hundred requests at once does not flood its device.
  #active = 0;
  /** A protocol call left something open past its answer (protocols.ts holdsUntilEnd): abort at close. */
  #holding = false;
  readonly #waiting: Array<() => void> = [];

  constructor(plan: NetworkPlan) {
    this.#plan = plan;
    this.#started = plan.startedAt === undefined ? performance.now() : plan.startedAt - performance.timeOrigin;
    this.#deadline = this.#started + plan.limits.timeoutMs + DEADLINE_SLACK_MS;
    this.#targets = [deviceTarget(plan.device, plan.resolve)];
    this.#secrets.push(this.#targets[0]!.password);
    this.#redactors.add(this.#targets[0]!.password);
    for (const secret of plan.secrets ?? []) {
      this.#secrets.push(secret);
      this.#redactors.add(secret);
    }
    this.#exempt(this.#targets[0]!.host);
    this.#exempt(this.#targets[0]!.ip);
    this.#wire = plan.wire ?? liveWire;
  }

  /** A host name or address the run dials is not a secret, even when a parameter gave it (RedactorCache.exempt). */
  #exempt(address: string | null): void {
    if (!address) return;
    this.#redactors.exempt(address);
    const lower = address.toLowerCase();
    for (let i = this.#secrets.length - 1; i >= 1; i--) if (this.#secrets[i]?.toLowerCase() === lower) this.#secrets.splice(i, 1);
  }

  /**
   * Every secret the run has known: passwords (device, external devices, request options), the
   * plan's, those protocol calls added, and values it sent or got under a secret's name. The
   * host masks the run's result (message, logs, warnings, exchanges) with them.
   */
  secrets(): string[] {
    return this.#redactors.secrets();
  }

  readonly #learn = (values: string[]): void => {
    for (const value of values) this.#redactors.add(value);
  };

  /**
   * The session of a target. Its key names the target, its credentials and the driver (the
   * digest computed once, at the first request): a login one driver made, on the device or on an
   * external host, is never another driver's, and other credentials never find it either.
   */
  #session(target: HttpTarget) {
    this.#driverKey ??= driverDigest(this.#plan.driver);
    return this.#plan.sessions.get(`${target.sessionKey}|${this.#driverKey}`, target.pinnedIp, target.sessionKey);
  }

  /** Answers the driver, whatever happens: an answer that cannot be sent becomes an error answer. */
  #answer(answer: (payload: unknown) => void, payload: Answer, empty: Record<string, unknown>): void {
    if (this.#closed) return;
    try {
      answer(payload);
    } catch (error) {
      try {
        answer(refusal('INTERNAL_ERROR', `the answer could not be sent to the sandbox: ${error instanceof Error ? error.message : 'unknown error'}`, empty));
      } catch {
        // the sandbox is gone: the run ends without this answer
      }
    }
  }

  /**
   * D.createExternalDevice: the new target's number. A refusal is thrown as an Error with a
   * message for the driver (the sandbox thread turns it into the driver's exception); nothing
   * else is ever thrown.
   */
  external(call: ExternalDeviceCall): number {
    const given: unknown = isPlainObject(call) ? call.host : undefined;
    if (typeof given !== 'string') throw new Error('D.createExternalDevice: the host must be a host name or IP address');
    const shown = given.length > 100 ? `${given.slice(0, 100)}…` : given;
    // The policy judges the canonical name, which is also the one dialled: another spelling of
    // an address (127.1, 2130706433, ::ffff:7f00:1, upper case, a trailing dot…) is the same address.
    const host = canonicalHost(given);
    if (host === null) throw new Error(`D.createExternalDevice: "${shown}" is not a host name or IP address (no port, path, user or other URL parts)`);
    const credentials = credentialsOf(isPlainObject(call) ? call.credentials : null);
    if (this.#targets.length > MAX_EXTERNAL_DEVICES) {
      throw new Error(`D.createExternalDevice: a run may create at most ${MAX_EXTERNAL_DEVICES} external devices`);
    }
    let allowed: boolean;
    try {
      allowed = this.#plan.allowExternal(host) === true;
    } catch {
      allowed = false; // a policy that throws allows nothing
    }
    if (!allowed) throw new Error(`D.createExternalDevice: the host application does not allow "${host}"`);
    const target = externalTarget(this.#targets[0]!, host, credentials, this.#plan.resolve);
    this.#targets.push(target);
    this.#exempt(given.trim());
    this.#exempt(host);
    this.#secrets.push(target.password);
    this.#redactors.add(target.password);
    if (target.username && target.password) this.#redactors.add(`${target.username}:${target.password}`);
    return this.#targets.length - 1;
  }

  http(call: HttpCall, answer: (payload: HttpAnswer) => void): void {
    const empty = { response: null };
    const reply = (payload: HttpAnswer) => this.#answer(answer as (p: unknown) => void, payload, empty);
    try {
      if (this.#closed) return; // the run is over (answered after its grace): nothing more goes out
      const target = isPlainObject(call) && typeof call.target === 'number' ? this.#targets[call.target] : undefined;
      if (!target) return reply({ error: { code: 'INVALID_TARGET', message: 'unknown device' }, response: null });
      const method = call.method;
      if (method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE') {
        return reply({ error: { code: 'INVALID_OPTIONS', message: `unknown method ${describe(method)}` }, response: null });
      }
      const { limits } = this.#plan;
      this.#limited(() =>
        performRequest(
          {
            target,
            session: this.#session(target),
            wire: this.#wire,
            signal: this.#abort.signal,
            maxResponseBytes: limits.maxResponseBytes,
            memoryMb: limits.memoryMb,
            buffers: this.#plan.buffers,
            timeLeftMs: () => this.#deadline - performance.now(),
            takeRequest: this.#takeRequest,
            maxRequests: limits.maxHttpRequests,
            secrets: this.#secrets,
            redactors: this.#redactors,
            learn: this.#learn,
            transcript: this.#plan.transcript,
            runStarted: this.#started,
            elsewhere: (hostname) => this.#elsewhere(hostname),
            record: (exchange) => {
              if (!this.#closed) this.#exchanges.push(exchange);
            },
          },
          method,
          call.options,
        ),
      ).then(reply, (error: unknown) => reply(internalError(error) as HttpAnswer));
    } catch (error) {
      reply(internalError(error) as HttpAnswer);
    }
  }

  /**
   * Where a redirect to another host goes, when the run allows that host: a target without
   * credentials (none follow a redirect to another host) and that host's own connections. Null
   * when it is not allowed; the answer's `host` is the name judged, canonical.
   */
  #elsewhere(hostname: string): { target: HttpTarget; session: HttpSession } | null {
    const host = canonicalHost(hostname);
    if (host === null) return null;
    let allowed: boolean;
    try {
      allowed = this.#plan.allowRedirect?.(host) === true;
    } catch {
      allowed = false; // a policy that throws allows nothing
    }
    if (!allowed) return null;
    const target = externalTarget(this.#targets[0]!, host, null, this.#plan.resolve);
    return { target, session: this.#session(target) };
  }

  tls(call: TlsCall, answer: (payload: unknown) => void): void {
    const empty = { certificate: null };
    const reply = (payload: Answer) => this.#answer(answer, payload, empty);
    try {
      if (this.#closed) return;
      const target = (isPlainObject(call) && typeof call.target === 'number' ? this.#targets[call.target] : undefined) ?? this.#targets[0]!;
      const options = isPlainObject(call) ? call.options : undefined;
      const port = isPlainObject(options) ? (options.port === undefined || options.port === null ? 443 : numberOption(options.port)) : NaN;
      const shownPort = Number.isInteger(port) && port >= 1 && port <= 65535 ? String(port) : '?';
      const exchange = startExchange('TLS', `tls://${target.host ?? target.ip}:${shownPort}`, this.#started);
      this.#exchanges.push(exchange);
      const refuse = (code: string, message: string) => {
        exchange.error = code;
        exchange.errorMessage = message;
        reply(refusal(code, message, empty));
      };
      if (!isPlainObject(options)) return refuse('INVALID_OPTIONS', `options must be an object such as { port: 443 } (got ${describe(options)})`);
      if (shownPort === '?') return refuse('INVALID_OPTIONS', `port must be an integer from 1 to 65535 (got ${describe(options.port)})`);
      if (!this.#takeRequest()) return refuse('TOO_MANY_REQUESTS', `this run already made ${this.#plan.limits.maxHttpRequests} requests, its limit`);
      const timeoutMs = () => Math.max(1, Math.ceil(Math.min(TLS_TIMEOUT_MS, this.#deadline - performance.now())));
      this.#pendingTls.add(exchange);
      // Only plain values reach the wire: the port as a number, useHostname as the flag it is.
      const checked = { port, useHostname: options.useHostname !== false };
      this.#limited(() => this.#wire.readCertificate(target, checked, timeoutMs(), this.#abort.signal, this.#plan.trust))
        .then(undefined, (error: unknown) => internalError(error) as Answer & { certificate: null })
        .then((result) => {
          if (this.#closed) return;
          this.#pendingTls.delete(exchange);
          exchange.durationMs = round(performance.now() - this.#started - exchange.startedMs);
          exchange.error = result.error?.code ?? null;
          exchange.errorMessage = result.error?.message ?? null;
          reply(result);
        });
    } catch (error) {
      reply(internalError(error));
    }
  }

  /**
   * A call of a protocol module (SSH, Telnet, SNMP, WinRM): its handler (host/bridges/protocols.ts)
   * gets the target, the run's clock, signal, bounds, secrets and transcript; answered once.
   */
  protocol(call: ProtocolCall, answer: (payload: ProtocolAnswer) => void): void {
    const reply = (payload: ProtocolAnswer) => this.#answer(answer as (p: unknown) => void, payload as Answer, {});
    try {
      if (this.#closed) return;
      const index = isPlainObject(call) && typeof call.target === 'number' ? call.target : -1;
      const target = this.#targets[index];
      const module = isPlainObject(call) ? call.module : undefined;
      const handler = typeof module === 'string' && Object.hasOwn(protocolHandlers, module) ? protocolHandlers[module] : undefined;
      if (!target || !handler || !isPlainObject(call.options)) return reply({ error: { code: 'INVALID_OPTIONS', message: 'unknown device or module' } });
      const options = call.options;
      const redactor = () => this.#redactors.get(null, null);
      const full = this.#plan.transcript === 'full';
      const ctx: ProtocolContext = {
        target: {
          host: target.host,
          ip: target.ip,
          username: target.username,
          password: target.password,
          snmp: index === 0 ? (this.#plan.device.snmp ?? null) : null,
          external: index !== 0,
        },
        endpoint: (port, useHostname = false) => protocolEndpoint(target, module as ProtocolCall['module'], port, useHostname),
        signal: this.#abort.signal,
        // As for HTTP, the slack included: the run's end (its abort signal) and not a module's own
        // timer decides. Without it a session's timer fired first, its error reached the driver,
        // and a driver that reports whatever it gets ended as a success past its deadline.
        timeLeftMs: () => this.#deadline - performance.now(),
        takeSession: () => ++this.#deviceSessions <= this.#plan.limits.maxProtocolSessions,
        takeCommand: () => ++this.#deviceCommands <= this.#plan.limits.maxProtocolCommands,
        maxOutputBytes: this.#plan.limits.maxOutputBytes,
        holdsUntilEnd: () => {
          this.#holding = true;
        },
        addSecret: (secret) => this.#redactors.add(secret),
        mask: (text) => redactor().text(text),
        exchange: (url, request) => {
          const exchange = startExchange(transcriptMethod[module as keyof typeof transcriptMethod], redactor().text(url), this.#started);
          if (full) exchange.request = { headers: {}, body: request === null ? null : redactor().text(request) };
          if (!this.#closed) {
            this.#exchanges.push(exchange);
            this.#pendingCalls.add(exchange);
          }
          let finished = false;
          return {
            finish: (outcome) => {
              if (finished || this.#closed) return;
              finished = true;
              this.#pendingCalls.delete(exchange);
              exchange.durationMs = round(performance.now() - this.#started - exchange.startedMs);
              exchange.error = outcome.error?.code ?? null;
              exchange.errorMessage = outcome.error ? redactor().text(outcome.error.message) : null;
              const response = outcome.response ?? null;
              exchange.requestBytes = outcome.requestBytes ?? (request === null ? 0 : Buffer.byteLength(request));
              exchange.responseBytes = outcome.responseBytes ?? (response === null ? 0 : Buffer.byteLength(response));
              if (full) exchange.response = { headers: {}, body: response === null ? null : redactor().text(response) };
            },
          };
        },
      };
      const url = `${String(module).toLowerCase()}://${target.host ?? target.ip ?? '-'}`;
      let performed = false;
      const perform = () => {
        performed = true;
        return handler(ctx, options);
      };
      this.#limited(() => this.#wire.protocol(module as ProtocolCall['module'], url, options, perform, this.#abort.signal, this.#secrets))
        .then(undefined, (error: unknown) => internalError(error) as ProtocolAnswer)
        .then((answer) => {
          // Answered by the wire without the handler (a replay, a replay miss): in the transcript all the same.
          if (!performed) replayedExchange(ctx, url, options, answer);
          reply(answer);
        });
    } catch (error) {
      reply(internalError(error) as ProtocolAnswer);
    }
  }

  /** The run is over: what is in flight is dropped. Returns the transcript, in the order sent. */
  close(): HttpExchange[] {
    this.#closed = true;
    // Aborting dispatches an event (~10 us): only worth it when something is still in flight.
    if (this.#active > 0 || this.#holding) this.#abort.abort();
    this.#waiting.length = 0;
    return this.transcript();
  }

  /**
   * The transcript as it would be if the run ended now (what is in flight: ABORTED). Copies: a
   * request cut short by the run's end would otherwise still change its record later.
   */
  transcript(): HttpExchange[] {
    const now = performance.now() - this.#started;
    return this.#exchanges.map((e) => {
      const cut = e.method === 'TLS' ? this.#pendingTls.has(e) : this.#pendingCalls.size > 0 && this.#pendingCalls.has(e) ? true : e.status === null && e.error === null && !isProtocolMethod(e.method);
      // A cut exchange lasted until now, the run's end: its time is what it waited.
      return cut ? { ...e, error: 'ABORTED', errorMessage: 'the run ended before the answer came', durationMs: round(now - e.startedMs) } : { ...e };
    });
  }

  /** One bound for HTTP exchanges (redirect hops included) and TLS reads alike. */
  readonly #takeRequest = (): boolean => ++this.#requests <= this.#plan.limits.maxHttpRequests;

  /** Runs `work` when one of the run's request slots is free. Never rejects with a slot still taken. */
  #limited<T>(work: () => Promise<T>): Promise<T> {
    return new Promise<void>((resolve) => {
      if (this.#active < this.#plan.limits.maxConcurrentRequests) {
        this.#active++;
        resolve();
      } else {
        this.#waiting.push(resolve);
      }
    })
      .then(work)
      .finally(() => {
        const next = this.#waiting.shift();
        if (next) next();
        else this.#active--;
      });
  }
}

const protocolMethods: ReadonlySet<string> = new Set(Object.values(transcriptMethod));
const isProtocolMethod = (method: string) => protocolMethods.has(method);

/** The transcript entry of a protocol call the wire answered itself: the command (or the options) and the answer. */
function replayedExchange(ctx: ProtocolContext, url: string, options: Record<string, unknown>, answer: ProtocolAnswer): void {
  // A shell sequence that succeeded was one exchange per command when it ran live: so it is here.
  if (!answer.error && Array.isArray(options.commands) && Array.isArray(answer.result) && answer.result.length === options.commands.length) {
    const outputs = answer.result as unknown[];
    options.commands.forEach((command, i) => {
      const output = outputs[i];
      ctx.exchange(url, typeof command === 'string' ? command : JSON.stringify(command)).finish({ response: typeof output === 'string' ? output : JSON.stringify(output ?? null) });
    });
    return;
  }
  const command = typeof options.command === 'string' ? options.command : Array.isArray(options.commands) ? options.commands.join('\n') : JSON.stringify(redactSecretOptions(options));
  const result = answer.result;
  const response = result === undefined || result === null ? null : typeof result === 'string' ? result : JSON.stringify(result);
  ctx.exchange(url, command).finish({ error: answer.error ? { code: answer.error.code, message: answer.error.message } : null, response });
}

/** A failure of the host's own code while serving a request: that request fails, never the host. */
function internalError(error: unknown): Answer {
  const detail = error instanceof Error ? error.message : 'unknown error';
  return { error: { code: 'INTERNAL_ERROR', message: `the host could not complete this request (${detail})` } };
}

/** The credentials of an external device, as text; anything else is taken as none. */
function credentialsOf(given: unknown): { username?: string; password?: string } | null {
  if (!isPlainObject(given)) return null;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return { username: text(given.username), password: text(given.password) };
}
