// One SSH call from start to answer: the checks every call makes before it dials (an address,
// a session, the password masked), its transcript exchange, its one timer (the call's timeout,
// never past the run's deadline), the run's end, and the single answer that closes it all.
import type { ProtocolAnswer, ProtocolContext, ProtocolExchange } from '../core/protocol-handler.js';
import { refusal, runEnded, sshAnswer, type SshError } from './errors.js';
import type { SshConnection } from './connect.js';
import type { ConnectOptions } from './options.js';

export type Outcome = { error: SshError; response?: string } | { result: unknown; response: string };

export interface SshCall {
  readonly endpoint: { host: string; port: number };
  readonly promise: Promise<ProtocolAnswer>;
  /** Whether the call has answered (later events are ignored). */
  readonly ended: boolean;
  /** The connection to close when the call ends. */
  connection: SshConnection | null;
  /** Answers (the first call wins), closes the connection, finishes the exchange. */
  end(outcome: Outcome): void;
  /**
   * A shell sequence's command is done: its exchange gets `response`, and the next command
   * (when there is one) gets an exchange of its own.
   */
  step(response: string, next: string | null): void;
  /** Counts `bytes` more output; false (and the call ended with OUTPUT_TOO_LARGE) past ctx.maxOutputBytes. */
  addOutput(bytes: number): boolean;
  /** ms the call may still wait (its own bound and the run's deadline). */
  timeLeftMs(): number;
}

/**
 * Starts a call, or answers a refusal when it may not dial. `request` is what the transcript
 * shows as sent; `timeoutMs` bounds the whole call from now, connection included.
 */
export function startCall(
  ctx: ProtocolContext,
  options: ConnectOptions,
  request: string,
  timeoutMs: number,
  timeoutError: SshError,
): SshCall | ProtocolAnswer {
  // Masked before anything is logged or can fail.
  ctx.addSecret(options.password);
  const endpoint = ctx.endpoint(options.port);
  if (!endpoint) return sshAnswer(refusal('NO_ADDRESS', 'the device has no IP address or host name to connect to'));
  if ('refused' in endpoint) return sshAnswer(refusal(endpoint.refused.code, endpoint.refused.message));
  if (ctx.signal.aborted) return sshAnswer(runEnded());
  if (!ctx.takeSession()) return sshAnswer(refusal('TOO_MANY_SESSIONS', "the run opened as many device sessions as its maxProtocolSessions allows"));

  const url = `ssh://${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
  // One exchange per command: the first opens now, so a failed connection shows on it.
  let exchange: ProtocolExchange | null = ctx.exchange(url, request);
  let exchangeBytes = 0;
  const deadline = performance.now() + Math.max(0, Math.min(timeoutMs, ctx.timeLeftMs()));
  let settle!: (answer: ProtocolAnswer) => void;
  const promise = new Promise<ProtocolAnswer>((resolve) => (settle = resolve));
  let output = 0;
  const onAbort = () => call.end({ error: runEnded() });
  const timer = setTimeout(() => call.end({ error: timeoutError }), Math.max(0, deadline - performance.now()));

  const call: SshCall = {
    endpoint,
    promise,
    ended: false,
    connection: null,
    end(outcome) {
      if (call.ended) return;
      (call as { ended: boolean }).ended = true;
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
      call.connection?.close(!('error' in outcome));
      if ('error' in outcome) {
        exchange?.finish({ error: { code: outcome.error.code, message: outcome.error.message }, response: outcome.response ?? null, responseBytes: exchangeBytes });
        settle(sshAnswer(outcome.error));
      } else {
        exchange?.finish({ error: null, response: outcome.response, responseBytes: exchangeBytes });
        settle({ error: null, result: outcome.result });
      }
    },
    step(response, next) {
      if (call.ended) return;
      exchange?.finish({ error: null, response, responseBytes: exchangeBytes });
      exchangeBytes = 0;
      exchange = next === null ? null : ctx.exchange(url, next);
    },
    addOutput(bytes) {
      output += bytes;
      exchangeBytes += bytes;
      if (output <= ctx.maxOutputBytes) return true;
      call.end({ error: refusal('OUTPUT_TOO_LARGE', `the output passed ${ctx.maxOutputBytes} bytes (the run's maxOutputBytes): the connection was closed`) });
      return false;
    },
    timeLeftMs: () => deadline - performance.now(),
  };
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  return call;
}

export const isCall = (value: SshCall | ProtocolAnswer): value is SshCall => 'end' in value;
