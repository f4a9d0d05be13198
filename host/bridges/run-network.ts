// Everything one run does on the network: its targets (the device and the external hosts it
// was allowed), its request bound and concurrency queue, the abort of what is in flight when
// the run ends, and its transcript. It lives on the run's sandbox thread (a plain run:
// host/engine/threads/thread-network.ts), or on the host thread (a record, replay or deviceState run,
// or HostOptions.networkInThreads false), where the sandbox thread sends it the driver's calls.
import type { ExternalDeviceCall, HttpAnswer, HttpCall, ProtocolAnswer, ProtocolCall, TlsCall } from '../../runtime/protocol.js';
import type { DriverCode, DriverErrorCode } from '../contract/driver-error-codes.js';
import type { HttpExchange } from '../contract/run-result.js';
import { describe, isPlainObject } from '../untrusted-input/plain-values.js';
import { protocolEndpoint } from './core/endpoint.js';
import { canonicalHost } from './core/host-name.js';
import type { ProtocolContext } from './core/protocol-handler.js';
import { deviceTarget, externalTarget, type RunTarget } from './core/target.js';
import { RedactorCache, round, startExchange } from './core/transcript.js';
import { driverDigest } from './driver-digest.js';
import { failure } from './http/errors.js';
import { performRequest } from './http/index.js';
import type { HttpSession } from './http/sessions.js';
import type { NetworkPlan } from './network-plan.js';
import { protocolHandlers, transcriptMethod } from './protocol-table.js';
import { replayedExchange } from './record/replayed-exchange.js';
import { liveWire, type NetworkWire } from './record/wire.js';
import { RequestSlots } from './request-slots.js';
import { readTlsOptions } from './tls/options.js';

/** D.createExternalDevice calls one run may make: each is a target, a session and a secret to mask. */
export const MAX_EXTERNAL_DEVICES = 64;

type Answer = { error: { code: DriverCode; message: string } | null };

function refusal(code: DriverErrorCode, message: string, extra: Record<string, unknown>): Answer {
  return { error: { code, message }, ...extra };
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
  readonly #targets: RunTarget[];
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
  /** At most maxConcurrentRequests of the run's requests are in flight. */
  readonly #slots: RequestSlots;
  /** A protocol call left something open past its answer (ProtocolContext.holdsUntilEnd): abort at close. */
  #holding = false;

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
    this.#slots = new RequestSlots(plan.limits.maxConcurrentRequests);
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
  #session(target: RunTarget) {
    this.#driverKey ??= driverDigest(this.#plan.driver);
    return this.#plan.sessions.get(`${target.sessionKey}|${this.#driverKey}`, target.pinnedIp, target.sessionKey);
  }

  /** Answers the driver, whatever happens: an answer that cannot be sent becomes an error answer. */
  #answer(answer: (payload: unknown) => void, payload: unknown, empty: Record<string, unknown>): void {
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
      if (!target) return reply(failure('INVALID_TARGET', 'unknown device'));
      const method = call.method;
      if (method !== 'GET' && method !== 'POST' && method !== 'PUT' && method !== 'DELETE') {
        return reply(failure('INVALID_OPTIONS', `unknown method ${describe(method)}`));
      }
      const { limits } = this.#plan;
      this.#slots.run(() =>
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
  #elsewhere(hostname: string): { target: RunTarget; session: HttpSession } | null {
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
      const checked = readTlsOptions(isPlainObject(call) ? call.options : undefined);
      const exchange = startExchange('TLS', `tls://${target.host ?? target.ip}:${typeof checked === 'string' ? '?' : checked.port}`, this.#started);
      this.#exchanges.push(exchange);
      const refuse = (code: DriverErrorCode, message: string) => {
        exchange.error = code;
        exchange.errorMessage = message;
        reply(refusal(code, message, empty));
      };
      if (typeof checked === 'string') return refuse('INVALID_OPTIONS', checked);
      if (!this.#takeRequest()) return refuse('TOO_MANY_REQUESTS', `this run already made ${this.#plan.limits.maxHttpRequests} requests, its limit`);
      const timeoutMs = () => Math.max(1, Math.ceil(Math.min(TLS_TIMEOUT_MS, this.#deadline - performance.now())));
      this.#pendingTls.add(exchange);
      this.#slots.run(() => this.#wire.readCertificate(target, checked, timeoutMs(), this.#abort.signal, this.#plan.trust))
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
   * A call of a protocol module (SSH, Telnet, SNMP, WinRM): its handler (host/bridges/protocol-table.ts)
   * gets the target, the run's clock, signal, bounds, secrets and transcript; answered once.
   */
  protocol(call: ProtocolCall, answer: (payload: ProtocolAnswer) => void): void {
    const reply = (payload: ProtocolAnswer) => this.#answer(answer as (p: unknown) => void, payload, {});
    try {
      if (this.#closed) return;
      const index = isPlainObject(call) && typeof call.target === 'number' ? call.target : -1;
      const target = this.#targets[index];
      const module = isPlainObject(call) ? call.module : undefined;
      const handler = typeof module === 'string' && Object.hasOwn(protocolHandlers, module) ? protocolHandlers[module] : undefined;
      if (!target || !handler || !isPlainObject(call.options)) return reply(refusal('INVALID_OPTIONS', 'unknown device or module', {}));
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
      this.#slots.run(() => this.#wire.protocol(module as ProtocolCall['module'], url, options, perform, this.#abort.signal, this.#secrets))
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
    if (this.#slots.busy || this.#holding) this.#abort.abort();
    this.#slots.drop();
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
}

const protocolMethods: ReadonlySet<string> = new Set(Object.values(transcriptMethod));
const isProtocolMethod = (method: string) => protocolMethods.has(method);

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
