// D.device.sendWinRMCommand: the WS-Management shell sequence (Create shell, Command, Receive
// until an exit code, Delete; Signal terminate when the call gives up on a running command)
// over undici, to the device's endpoint only, within the call's timeout and the run's.
// Answers { result: {commandId, shellId, stdout, stderr, exitCode} } or an error the runtime
// hands the driver as { outcome: null, error }.
import type { ProtocolContext, ProtocolHandler } from '../core/protocol-handler.js';
import { CallFailure, TransportError, winrmRefusal, WinrmOptionError } from './errors.js';
import { WinrmHttp } from './http.js';
import { winrmOptions, type WinrmOptions } from './options.js';
import { commandIdOf, createShell, deleteShell, faultOf, MAX_ENVELOPE_SIZE, receiveOf, receiveOutput, runCommand, shellIdOf, terminateCommand } from './soap.js';
import type { XmlDocument } from './xml-reader.js';

/** Longest wait the server is asked for on one Receive, s (the platform's OperationTimeout). */
const MAX_OPERATION_TIMEOUT_S = 60;
/** Time the closing Signal / Delete may take after the answer, ms. */
const CLEANUP_MS = 5_000;

export const winrmCommand: ProtocolHandler = async (ctx, raw) => {
  let options: WinrmOptions;
  try {
    options = winrmOptions(raw, ctx.target);
  } catch (error) {
    if (error instanceof WinrmOptionError) return winrmRefusal('INVALID_OPTIONS', error.message);
    throw error;
  }
  ctx.addSecret(options.password);
  const endpoint = ctx.endpoint(options.port);
  if (!endpoint) return winrmRefusal('NO_ADDRESS', 'the device has no IP address or host name');
  if ('refused' in endpoint) return winrmRefusal(endpoint.refused.code, endpoint.refused.message);
  if (!ctx.takeSession()) return winrmRefusal('TOO_MANY_SESSIONS', 'the run opened as many device sessions as its limit (maxProtocolSessions) allows');
  if (!ctx.takeCommand()) return winrmRefusal('TOO_MANY_COMMANDS', 'the run sent as many device commands as its limit (maxProtocolCommands) allows');
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  const url = `${options.scheme}://${host}:${endpoint.port}/wsman`;
  const exchange = ctx.exchange(url, options.commandLine);
  const http = new WinrmHttp({
    url,
    username: options.username,
    password: options.password,
    ntlm: options.ntlm,
    verify: options.verify,
    signal: ctx.signal,
    // What the client asks the server to keep every answer to (Receive output comes in pieces).
    maxBodyBytes: MAX_ENVELOPE_SIZE,
  });
  const sequence = new ShellSequence(ctx, http, url, Math.min(options.timeoutMs, Math.max(0, ctx.timeLeftMs())));
  try {
    const result = await sequence.run(options.commandLine);
    const stderr = result.stderr === null ? '' : `\n[stderr]\n${result.stderr}`;
    exchange.finish({ error: null, response: result.stdout + stderr, requestBytes: http.sentBytes, responseBytes: http.receivedBytes });
    if (result.exitCode !== 0) {
      // The platform's text, which drivers grep; no code.
      const message = `Command ${options.commandLine} failed with exit code: ${result.exitCode} - ${result.stdout} ${result.stderr ?? ''}`;
      return { error: { code: 'COMMAND_FAILED', message, exitCode: result.exitCode } };
    }
    return { error: null, result };
  } catch (error) {
    const failure = error instanceof CallFailure || error instanceof TransportError ? error : new CallFailure('INTERNAL_ERROR', String(error));
    const message = ctx.mask(failure.message);
    exchange.finish({ error: { code: failure.code, message }, response: null, requestBytes: http.sentBytes, responseBytes: http.receivedBytes });
    const status = failure instanceof CallFailure ? failure.status : undefined;
    return { error: status === undefined ? { code: failure.code, message } : { code: failure.code, message, status } };
  } finally {
    sequence.cleanUp();
  }
};

interface Outcome {
  commandId: string;
  shellId: string;
  stdout: string;
  stderr: string | null;
  exitCode: number;
}

class ShellSequence {
  readonly #ctx: ProtocolContext;
  readonly #http: WinrmHttp;
  readonly #to: string;
  readonly #endsAt: number;
  readonly #budgetMs: number;
  #shellId: string | null = null;
  #commandId: string | null = null;
  #done = false;

  constructor(ctx: ProtocolContext, http: WinrmHttp, to: string, budgetMs: number) {
    this.#ctx = ctx;
    this.#http = http;
    this.#to = to;
    this.#budgetMs = budgetMs;
    this.#endsAt = performance.now() + budgetMs;
  }

  #timedOut(): CallFailure {
    return new CallFailure('ETIMEDOUT', `the WinRM command did not finish within ${Math.round(this.#budgetMs)} ms`);
  }

  #left(): number {
    const left = this.#endsAt - performance.now();
    if (left <= 0) throw this.#timedOut();
    return left;
  }

  /** Seconds the server may hold a Receive: a little less than what is left, at most 60. */
  #operationTimeoutS(): number {
    return Math.max(1, Math.min(MAX_OPERATION_TIMEOUT_S, Math.floor(this.#left() / 1000) - 1));
  }

  /**
   * Posts an envelope. The status first: any but 2xx is the platform's HTTP error, with the
   * status as code — except the OperationTimeout fault of a Receive (a 500 that says it is
   * XML), which means "ask again" (null). A 2xx must be well-formed XML and no fault.
   */
  async #post(envelope: string, allowTimeoutFault = false): Promise<{ doc: XmlDocument; body: string } | null> {
    let answer;
    try {
      answer = await this.#http.post(envelope, this.#left());
    } catch (error) {
      // Each request is given what is left of the call: its time running out is the call's
      // timeout (known from the error rather than the clock: the abort timer may fire a hair early).
      if (error instanceof TransportError && error.timedOut) throw this.#timedOut();
      throw error;
    }
    if (answer.status < 200 || answer.status > 299) {
      // Windows answers the Receive's OperationTimeout with a 500 fault: the one error answer read.
      if (allowTimeoutFault && answer.document && faultOf(answer.document)?.timedOut) return null;
      throw new CallFailure('HTTP_ERROR', `Failed to process the request, status Code: ${answer.status} - response body: ${answer.body}`, answer.status);
    }
    if (!answer.document) throw new CallFailure('MALFORMED_RESPONSE', `Malformed Server response: not well-formed XML (${answer.malformed ?? 'no document'})`);
    const fault = faultOf(answer.document);
    if (fault && allowTimeoutFault && fault.timedOut) return null;
    if (fault) throw new CallFailure('SOAP_FAULT', `Server responded SOAP Fault: ${fault.reason}${fault.code ? ` (WS-Management code ${fault.code})` : ''}`);
    return { doc: answer.document, body: answer.body };
  }

  async run(commandLine: string): Promise<Outcome> {
    const created = (await this.#post(createShell(this.#to, this.#operationTimeoutS())))!;
    this.#shellId = shellIdOf(created.doc);
    if (!this.#shellId) throw new CallFailure('MALFORMED_RESPONSE', `Malformed Server response: no ShellId in ${created.body.slice(0, 2000)}`);
    const started = (await this.#post(runCommand(this.#to, this.#operationTimeoutS(), this.#shellId, commandLine)))!;
    this.#commandId = commandIdOf(started.doc);
    if (!this.#commandId) throw new CallFailure('MALFORMED_RESPONSE', `Malformed Server response: no CommandId in ${started.body.slice(0, 2000)}`);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      const answer = await this.#post(receiveOutput(this.#to, this.#operationTimeoutS(), this.#shellId, this.#commandId), true);
      if (answer === null) continue; // nothing within OperationTimeout: ask again
      const chunk = receiveOf(answer.doc);
      if ('malformed' in chunk) throw new CallFailure('MALFORMED_RESPONSE', `Malformed Server response: ${chunk.malformed}`);
      stdout.push(...chunk.stdout);
      stderr.push(...chunk.stderr);
      for (const piece of [...chunk.stdout, ...chunk.stderr]) bytes += piece.length;
      if (bytes > this.#ctx.maxOutputBytes) throw new CallFailure('OUTPUT_TOO_LARGE', `the WinRM output is larger than the limit of ${this.#ctx.maxOutputBytes} bytes`);
      if (chunk.exitCode !== null) {
        this.#done = true;
        // Each stream's chunks joined, then decoded (a character split between chunks stays whole).
        const errText = Buffer.concat(stderr).toString('utf8');
        return { commandId: this.#commandId, shellId: this.#shellId, stdout: Buffer.concat(stdout).toString('utf8'), stderr: errText === '' ? null : errText, exitCode: chunk.exitCode };
      }
    }
  }

  /** After the answer: a command still running is terminated, the shell deleted (not awaited). */
  cleanUp(): void {
    const shellId = this.#shellId;
    const commandId = this.#commandId;
    const http = this.#http;
    if (!shellId) return http.close();
    const timeoutMs = Math.max(1, Math.min(CLEANUP_MS, this.#ctx.timeLeftMs()));
    const ends = performance.now() + timeoutMs;
    const left = () => Math.max(1, ends - performance.now());
    void (async () => {
      try {
        if (!this.#done && commandId) await http.post(terminateCommand(this.#to, 1, shellId, commandId), left());
        await http.post(deleteShell(this.#to, 1, shellId), left());
      } catch {
        // the shell is the server's to expire; nothing the driver waits for
      } finally {
        http.close();
      }
    })();
  }
}
