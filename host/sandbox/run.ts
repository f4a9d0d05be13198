// Executes one driver run in a borrowed isolate: a fresh context, the runtime bundle,
// the driver, its entry point, then every callback the host delivers, until the driver
// ends the run, a limit ends it, or nothing is left that could ever end it.
import ivm from 'isolated-vm';
import type { DeviceInfo, ExternalDeviceCall, HostOp, HttpCall, LibName, LogMessage, QueuedOp, RunEnd, SandboxConfig, TlsCall } from '../../runtime/protocol.js';
import { describeError } from '../../runtime/error-text.js';
import { CryptoSession } from '../bridges/crypto/index.js';
import { performRequest } from '../bridges/http/index.js';
import type { DeviceSessions } from '../bridges/http/sessions.js';
import { deviceTarget, externalTarget, type HttpTarget } from '../bridges/http/target.js';
import { RedactorCache, round, startExchange, type TranscriptMode } from '../bridges/http/transcript.js';
import { readCertificate } from '../bridges/tls/certificate.js';
import type { TrustStore } from '../bridges/tls/trust.js';
import type { DeviceSpec } from '../device.js';
import { findImport } from '../driver/checks.js';
import type { DriverSource } from '../driver/load.js';
import type { RunLimits } from '../limits.js';
import type { HttpExchange, LimitName, RunResult } from '../run-result.js';
import type { WarmIsolate } from './warm-isolate.js';

export interface RunPlan {
  driver: DriverSource;
  action: string;
  device: DeviceSpec;
  parameters: Record<string, unknown>;
  limits: RunLimits;
  sessions: DeviceSessions;
  trust: TrustStore;
  /** 'full' records headers and bodies of every exchange (redacted). */
  transcript: TranscriptMode;
  /** May the driver reach this external host? (D.createExternalDevice) */
  allowExternal: (host: string) => boolean;
}

export interface RunOutcome {
  result: RunResult;
  /** The isolate must not serve another run (it hit a limit or may still be running). */
  discard: boolean;
}

/** After D.success/D.failure, how long the driver's current call may go on before we stop waiting. */
const END_GRACE_MS = 1_000;
const MAX_WARNINGS = 200;

type Ending = { end: RunEnd; limit: LimitName | null; discard: boolean };

function failure(errorType: string, message: string): RunEnd {
  return { status: 'failure', errorType, message, variables: [], tables: [] };
}

/**
 * Did isolated-vm stop the call (its timeout, a memory limit, disposal), as opposed to the
 * driver throwing? A disposed isolate says so by itself. For a timeout, isolated-vm's error may
 * carry the driver's frame where it was interrupted, so it is told from a driver's look-alike
 * by time: only a call that used up the time it was given can have timed out.
 */
function isSandboxLimit(error: unknown, disposed: boolean, usedItsTime: boolean): boolean {
  if (disposed) return true;
  return usedItsTime && error instanceof Error && error.message === 'Script execution timed out.';
}

/** "Unexpected token [drv.js:3:5]" → a message with the position and the offending line. */
function describeSyntaxError(error: Error, driver: DriverSource): string {
  const match = /^(.*) \[(.*):(\d+):(\d+)\]$/.exec(error.message);
  if (!match) return `${error.name}: ${error.message}`;
  const [, text, file, line, column] = match;
  const source = driver.source.split('\n')[Number(line) - 1] ?? '';
  const caret = `${' '.repeat(Math.max(0, Number(column) - 1))}^`;
  return `SyntaxError: ${text} at ${file}:${line}:${column}\n    ${line} | ${source}\n    ${' '.repeat(line.length)} | ${caret}`;
}

export async function executeRun(warm: WarmIsolate, plan: RunPlan): Promise<RunOutcome> {
  const { limits, driver } = plan;
  const started = performance.now();
  const deadline = started + limits.timeoutMs;
  const cpuStart = warm.isolate.cpuTime;
  const logs: LogMessage[] = [];
  const warnings: string[] = [];
  const http: HttpExchange[] = [];
  const crypto = new CryptoSession();
  const targets: HttpTarget[] = [deviceTarget(plan.device)];
  const pending = new Map<number, () => void>();
  const abort = new AbortController();
  let logChars = 0;
  let requests = 0;
  let inFlight = 0;
  let entryStarted = false; // before the entry point is called, an empty queue means nothing
  let reported: RunEnd | null = null;
  let ending: Ending | null = null;
  let context: ivm.Context | null = null;
  let dispatchRef: ivm.Reference | null = null;
  let graceTimer: NodeJS.Timeout | undefined;
  let settle!: (ending: Ending) => void;
  const settled = new Promise<Ending>((resolve) => (settle = resolve));

  const cpuUsedMs = () => Number(warm.isolate.isDisposed ? 0n : warm.isolate.cpuTime - cpuStart) / 1e6;
  const budgetMs = () => Math.max(1, Math.ceil(Math.min(deadline - performance.now(), limits.cpuTimeMs - cpuUsedMs())));

  const finish = (next: Ending) => {
    if (ending) return;
    ending = next;
    clearTimeout(deadlineTimer);
    clearTimeout(graceTimer);
    abort.abort();
    for (const cancel of pending.values()) cancel();
    pending.clear();
    // Code still running in the isolate cannot be trusted to stop: the isolate goes.
    if (inFlight > 0) {
      ending.discard = true;
      warm.dispose();
    }
    settle(ending);
  };

  const deadlineTimer = setTimeout(() => {
    if (reported) {
      // The driver ended the run but its code is still going: its outcome stands.
      warnings.push(`the driver's code was still running at the ${limits.timeoutMs} ms deadline after it ended the run; it was stopped`);
      finish({ end: reported, limit: null, discard: inFlight > 0 });
      return;
    }
    finish({
      end: failure('TIMEOUT_ERROR', `the driver did not call D.success or D.failure within the ${limits.timeoutMs} ms deadline`),
      limit: 'timeout',
      discard: inFlight > 0,
    });
  }, limits.timeoutMs);

  const limitEnding = (error: unknown): Ending => {
    const message = error instanceof Error ? error.message : String(error);
    if (warm.isolate.isDisposed || /memory limit/i.test(message)) {
      return { end: failure('GENERIC_ERROR', `the driver exceeded the memory limit of ${limits.memoryMb} MB`), limit: 'memory', discard: true };
    }
    if (/timed out/i.test(message)) {
      if (cpuUsedMs() >= limits.cpuTimeMs) {
        return { end: failure('TIMEOUT_ERROR', `the driver used more than its CPU time limit of ${limits.cpuTimeMs} ms`), limit: 'cpu', discard: true };
      }
      return {
        end: failure('TIMEOUT_ERROR', `the driver's code was still running at the ${limits.timeoutMs} ms deadline (an endless loop?)`),
        limit: 'timeout',
        discard: true,
      };
    }
    return { end: failure('GENERIC_ERROR', `the sandbox failed: ${message}`), limit: null, discard: true };
  };

  /** After each call into the isolate: has the run ended, or can it never end? */
  const checkpoint = () => {
    if (ending) return;
    if (cpuUsedMs() > limits.cpuTimeMs) {
      finish({ end: failure('TIMEOUT_ERROR', `the driver used more than its CPU time limit of ${limits.cpuTimeMs} ms`), limit: 'cpu', discard: true });
    } else if (reported) {
      finish({ end: reported, limit: null, discard: false });
    } else if (entryStarted && inFlight === 0 && pending.size === 0) {
      finish({
        end: failure(
          'TIMEOUT_ERROR',
          `${plan.action}() returned without calling D.success or D.failure, and no request or timer is pending: ` +
            `the run could never end (it would time out after ${limits.timeoutMs} ms)`,
        ),
        limit: null,
        discard: false,
      });
    }
  };

  /** Every entry into the isolate goes through here: timed, counted, and classified on error. */
  const enter = async (call: () => Promise<unknown>, onDriverError?: (error: unknown) => Ending): Promise<boolean> => {
    if (ending) return false;
    inFlight++;
    const calledAt = performance.now();
    const allowedMs = budgetMs(); // what the call's own timeout is (it computes the same just after)
    try {
      await call();
      drain();
      return true;
    } catch (error) {
      if (ending) return false;
      const limit = isSandboxLimit(error, warm.isolate.isDisposed, performance.now() - calledAt >= allowedMs - 1);
      if (reported) finish({ end: reported, limit: null, discard: limit }); // e.g. require() threw after ending the run
      else finish(!limit && onDriverError ? onDriverError(error) : limitEnding(error));
      return false;
    } finally {
      inFlight--;
      checkpoint();
    }
  };

  const deliver = (id: number, payload: unknown) => {
    if (ending || !pending.delete(id) || !dispatchRef) return;
    const ref = dispatchRef;
    void enter(() => ref.apply(undefined, ['done', id, JSON.stringify(payload)], { timeout: budgetMs() }));
  };

  /** One bound for HTTP exchanges (redirect hops included) and TLS reads alike. */
  const takeRequest = () => ++requests <= limits.maxHttpRequests;
  const secrets = () => targets.map((t) => t.password);
  const redactors = new RedactorCache();

  // At most maxConcurrentRequests of the run's requests are in flight; the others wait here,
  // so a driver that fires a hundred requests at once does not flood its device.
  let active = 0;
  const waiting: Array<() => void> = [];
  const limited = <T>(work: () => Promise<T>): Promise<T> =>
    new Promise<void>((resolve) => (active < limits.maxConcurrentRequests ? (active++, resolve()) : waiting.push(resolve)))
      .then(work)
      .finally(() => {
        const next = waiting.shift();
        if (next) next();
        else active--;
      });

  const startHttp = (id: number, call: HttpCall) => {
    const target = targets[call.target];
    if (!target) return deliver(id, { error: { code: 'INVALID_TARGET', message: 'unknown device' }, response: null });
    pending.set(id, () => {});
    void limited(() => performRequest(
      {
        target,
        session: plan.sessions.get(target.sessionKey),
        signal: abort.signal,
        maxResponseBytes: limits.maxResponseBytes,
        timeLeftMs: () => deadline - performance.now(),
        takeRequest,
        maxRequests: limits.maxHttpRequests,
        secrets: secrets(),
        redactors,
        transcript: plan.transcript,
        runStarted: started,
        record: (exchange) => {
          if (!ending) http.push(exchange);
        },
      },
      call.method,
      call.options,
    )).then((answer) => deliver(id, answer));
  };

  const startTls = (id: number, call: TlsCall) => {
    const target = targets[call.target] ?? targets[0]!;
    pending.set(id, () => {});
    const exchange = startExchange('TLS', `tls://${target.host ?? target.ip}:${String(call.options.port ?? 443)}`, started);
    if (!takeRequest()) {
      // Refused like an HTTP request past the bound: recorded, and answered on the next tick.
      exchange.error = 'TOO_MANY_REQUESTS';
      exchange.errorMessage = `this run already made ${limits.maxHttpRequests} requests, its limit`;
      http.push(exchange);
      const error = { code: exchange.error, message: exchange.errorMessage };
      queueMicrotask(() => deliver(id, { error, certificate: null }));
      return;
    }
    void limited(() => readCertificate(target, call.options, Math.max(1, Math.ceil(Math.min(30_000, deadline - performance.now()))), abort.signal, plan.trust)).then((answer) => {
      if (ending) return;
      exchange.durationMs = round(performance.now() - started - exchange.startedMs);
      exchange.error = answer.error?.code ?? null;
      exchange.errorMessage = answer.error?.message ?? null;
      http.push(exchange);
      deliver(id, answer);
    });
  };

  // Every operation of the runtime: called synchronously (hostCall) or drained from its queue.
  const handle = (op: HostOp, payload: unknown): string | undefined => {
    if (ending) return undefined;
    switch (op) {
      case 'log': {
        const entry = payload as LogMessage;
        logChars += entry.message.length;
        if (logChars <= limits.maxLogChars + 1_000) logs.push({ level: entry.level, message: entry.message });
        return undefined;
      }
      case 'warn':
        if (warnings.length < MAX_WARNINGS) warnings.push(String(payload));
        return undefined;
      case 'end':
        reported ??= payload as RunEnd;
        if (inFlight > 0) graceTimer = setTimeout(() => finish({ end: reported!, limit: null, discard: true }), END_GRACE_MS);
        return undefined;
      case 'loadLib':
        if (context) warm.lib(payload as LibName).runSync(context, { timeout: budgetMs() });
        return undefined;
      case 'crypto':
        return JSON.stringify(crypto.call(payload as Parameters<CryptoSession['call']>[0]));
      case 'external': {
        const { host, credentials } = payload as ExternalDeviceCall;
        if (!plan.allowExternal(host)) throw new Error(`D.createExternalDevice: the host application does not allow "${host}"`);
        targets.push(externalTarget(targets[0]!, host, credentials));
        return JSON.stringify(targets.length - 1);
      }
      case 'http': {
        const call = payload as HttpCall & { id: number };
        startHttp(call.id, call);
        return undefined;
      }
      case 'tls': {
        const call = payload as TlsCall & { id: number };
        startTls(call.id, call);
        return undefined;
      }
      case 'timer': {
        const { id, ms } = payload as { id: number; ms: number };
        // A timer due after the deadline can never fire in this run: it only keeps the run waiting.
        if (ms >= deadline - performance.now()) {
          pending.set(id, () => {});
        } else {
          const timer = setTimeout(() => deliver(id, null), ms);
          pending.set(id, () => clearTimeout(timer));
        }
        return undefined;
      }
      case 'cancel': {
        const { id } = payload as { id: number };
        pending.get(id)?.();
        pending.delete(id);
        return undefined;
      }
    }
  };

  // The one function the runtime may call. It runs on the host while the isolate waits.
  const hostCall = (op: HostOp, json: string): string | undefined => (ending ? undefined : handle(op, JSON.parse(json) as unknown));

  /** Takes the async operations the driver queued during the last call (see DispatchKind 'drain'). */
  const drain = () => {
    if (ending || !dispatchRef) return;
    const text = dispatchRef.applySync(undefined, ['drain', 0, ''], { timeout: budgetMs() }) as unknown;
    const ops = JSON.parse(typeof text === 'string' ? text : '[]') as Array<[QueuedOp, unknown]>;
    for (const [op, payload] of ops) {
      if (op !== 'http' && op !== 'tls' && op !== 'timer' && op !== 'cancel') throw new Error(`unexpected queued operation ${JSON.stringify(op)}`);
      handle(op, payload);
    }
  };

  const deviceInfo: DeviceInfo = {
    ip: plan.device.ip ?? null,
    host: plan.device.host ?? null,
    username: plan.device.username ?? null,
    password: plan.device.password ?? null,
    serial: plan.device.serial ?? null,
    macAddress: plan.device.macAddress ?? null,
  };
  const config: SandboxConfig = {
    action: plan.action,
    device: deviceInfo,
    parameters: plan.parameters,
    limits: { maxVariables: limits.maxVariables, maxTableRows: limits.maxTableRows, maxLogChars: limits.maxLogChars },
    driverFilename: driver.filename,
  };

  const hostRef = new ivm.Reference(hostCall);
  const refs: Array<{ release(): void }> = [hostRef];
  try {
    const problem = findImport(driver.source, driver.filename);
    if (problem) {
      finish({ end: failure(problem.errorType, problem.message), limit: null, discard: false });
    } else {
      let script: ivm.Script | null = null;
      try {
        script = await warm.driver(driver.source, driver.filename);
      } catch (error) {
        finish({ end: failure('GENERIC_ERROR', describeSyntaxError(error as Error, driver)), limit: null, discard: false });
      }
      if (script) {
        // Our own setup runs synchronously: short, bounded, and cheaper than a thread hand-off per step.
        const ctx = warm.isolate.createContextSync();
        context = ctx;
        refs.push(ctx);
        const ok = await enter(async () => {
          warm.core.runSync(ctx, { timeout: budgetMs() });
          const install = ctx.global.getSync('__driverboxInstall', { reference: true }) as ivm.Reference;
          refs.push(install);
          dispatchRef = install.applySync(undefined, [hostRef, JSON.stringify(config)], { timeout: budgetMs(), result: { reference: true } }) as ivm.Reference;
          refs.push(dispatchRef);
        });
        if (ok && !ending) {
          const ranTopLevel = await enter(
            () => script!.run(ctx, { timeout: budgetMs() }),
            (error) => ({ end: failure('GENERIC_ERROR', describeError(error, driver.filename)), limit: null, discard: false }),
          );
          if (ranTopLevel && !ending && !reported && dispatchRef) {
            const ref: ivm.Reference = dispatchRef;
            entryStarted = true;
            await enter(() => ref.apply(undefined, ['entry', 0, JSON.stringify(plan.action)], { timeout: budgetMs() }));
          }
        }
      }
    }
  } catch (error) {
    finish(limitEnding(error));
  }

  const final = await settled;
  if (!final.discard) {
    for (const ref of refs.reverse()) {
      try {
        ref.release();
      } catch {
        // already released with its isolate
      }
    }
  }
  const end = final.end;
  return {
    discard: final.discard,
    result: {
      status: end.status,
      errorType: end.errorType,
      message: end.message,
      variables: end.variables,
      tables: end.tables,
      logs,
      warnings,
      // Copies: a request cut short by the run's end would otherwise still change its record later.
      http: http.map((e) => (e.status === null && e.error === null ? { ...e, error: 'ABORTED', errorMessage: 'the run ended before the answer came' } : { ...e })),
      action: plan.action,
      limitExceeded: final.limit,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    },
  };
}
