// Everything one run does on the network, on the host thread: its targets (the device and
// the external hosts it was allowed), its request bound and concurrency queue, the abort of
// what is in flight when the run ends, and its transcript. The sandbox thread only sends
// the driver's calls here and gets the answers back.
import { isIP } from 'node:net';
import type { ExternalDeviceCall, HttpAnswer, HttpCall, TlsCall } from '../../runtime/protocol.js';
import type { DeviceSpec } from '../device.js';
import type { RunLimits } from '../limits.js';
import type { HttpExchange } from '../run-result.js';
import { performRequest } from './http/index.js';
import type { SessionSource } from './http/sessions.js';
import { deviceTarget, externalTarget, type HttpTarget, type ResolveMap } from './http/target.js';
import { RedactorCache, round, startExchange, type TranscriptMode } from './http/transcript.js';
import type { TrustStore } from './tls/trust.js';
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
  /** Host names this run dials at a given address (RunRequest.resolve). */
  resolve: ResolveMap;
}

/** The longest a TLS read may take, whatever is left of the run. */
const TLS_TIMEOUT_MS = 30_000;
/**
 * The run's deadline is kept by its sandbox thread, which starts it a little after this
 * object exists; requests here may run that much longer, so that the run's end (which
 * aborts them, see close) and not their own timer decides how they are recorded.
 */
const DEADLINE_SLACK_MS = 250;

/** A DNS name (letters, digits, '-', '_', dots) or an IP address: nothing a URL could read as more. */
function isBareHost(host: string): boolean {
  return isIP(host) !== 0 || /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9_.])?$/.test(host);
}

export class RunNetwork {
  readonly #plan: NetworkPlan;
  readonly #started = performance.now();
  readonly #deadline: number;
  readonly #targets: HttpTarget[];
  readonly #abort = new AbortController();
  readonly #exchanges: HttpExchange[] = [];
  readonly #redactors = new RedactorCache();
  readonly #wire: NetworkWire;
  /** TLS reads not answered yet: unlike an HTTP exchange, a good one keeps status and error null. */
  readonly #pendingTls = new Set<HttpExchange>();
  #requests = 0;
  #closed = false;
  // At most maxConcurrentRequests of the run's requests are in flight; the others wait here,
  // so a driver that fires a hundred requests at once does not flood its device.
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(plan: NetworkPlan) {
    this.#plan = plan;
    this.#deadline = this.#started + plan.limits.timeoutMs + DEADLINE_SLACK_MS;
    this.#targets = [deviceTarget(plan.device, plan.resolve)];
    this.#wire = plan.wire ?? liveWire;
  }

  /** D.createExternalDevice: the new target's number, or an Error when the host does not allow it. */
  external({ host, credentials }: ExternalDeviceCall): number {
    // The allow-list judges the name; the URL is later built around it. Anything but a bare
    // name or IP ('evil.test/.allowed.test', 'evil.test#', 'a@b') would let a name that passes
    // the check (a suffix rule, say) dial another host.
    if (!isBareHost(host)) throw new Error(`D.createExternalDevice: "${host}" is not a host name or IP address (no port, path, user or other URL parts)`);
    if (!this.#plan.allowExternal(host)) throw new Error(`D.createExternalDevice: the host application does not allow "${host}"`);
    this.#targets.push(externalTarget(this.#targets[0]!, host, credentials, this.#plan.resolve));
    return this.#targets.length - 1;
  }

  http(call: HttpCall, answer: (payload: HttpAnswer) => void): void {
    if (this.#closed) return; // the run is over (answered after its grace): nothing more goes out
    const target = this.#targets[call.target];
    if (!target) return answer({ error: { code: 'INVALID_TARGET', message: 'unknown device' }, response: null });
    const { limits } = this.#plan;
    void this.#limited(() =>
      performRequest(
        {
          target,
          session: this.#plan.sessions.get(target.sessionKey, target.pinnedIp),
          wire: this.#wire,
          signal: this.#abort.signal,
          maxResponseBytes: limits.maxResponseBytes,
          timeLeftMs: () => this.#deadline - performance.now(),
          takeRequest: this.#takeRequest,
          maxRequests: limits.maxHttpRequests,
          secrets: this.#targets.map((t) => t.password),
          redactors: this.#redactors,
          transcript: this.#plan.transcript,
          runStarted: this.#started,
          record: (exchange) => {
            if (!this.#closed) this.#exchanges.push(exchange);
          },
        },
        call.method,
        call.options,
      ),
    ).then((result) => {
      if (!this.#closed) answer(result);
    });
  }

  tls(call: TlsCall, answer: (payload: unknown) => void): void {
    if (this.#closed) return;
    const target = this.#targets[call.target] ?? this.#targets[0]!;
    const exchange = startExchange('TLS', `tls://${target.host ?? target.ip}:${String(call.options.port ?? 443)}`, this.#started);
    this.#exchanges.push(exchange);
    if (!this.#takeRequest()) {
      exchange.error = 'TOO_MANY_REQUESTS';
      exchange.errorMessage = `this run already made ${this.#plan.limits.maxHttpRequests} requests, its limit`;
      return answer({ error: { code: exchange.error, message: exchange.errorMessage }, certificate: null });
    }
    const timeoutMs = () => Math.max(1, Math.ceil(Math.min(TLS_TIMEOUT_MS, this.#deadline - performance.now())));
    this.#pendingTls.add(exchange);
    void this.#limited(() => this.#wire.readCertificate(target, call.options, timeoutMs(), this.#abort.signal, this.#plan.trust)).then((result) => {
      if (this.#closed) return;
      this.#pendingTls.delete(exchange);
      exchange.durationMs = round(performance.now() - this.#started - exchange.startedMs);
      exchange.error = result.error?.code ?? null;
      exchange.errorMessage = result.error?.message ?? null;
      answer(result);
    });
  }

  /** The run is over: what is in flight is dropped. Returns the transcript, in the order sent. */
  close(): HttpExchange[] {
    this.#closed = true;
    // Aborting dispatches an event (~10 us): only worth it when something is still in flight.
    if (this.#active > 0) this.#abort.abort();
    this.#waiting.length = 0;
    // Copies: a request cut short by the run's end would otherwise still change its record later.
    return this.#exchanges.map((e) => {
      const cut = e.method === 'TLS' ? this.#pendingTls.has(e) : e.status === null && e.error === null;
      return cut ? { ...e, error: 'ABORTED', errorMessage: 'the run ended before the answer came' } : { ...e };
    });
  }

  /** One bound for HTTP exchanges (redirect hops included) and TLS reads alike. */
  readonly #takeRequest = (): boolean => ++this.#requests <= this.#plan.limits.maxHttpRequests;

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
