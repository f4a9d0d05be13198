// D.device.sendSSHCommands: one connection, a vt100 80×24 pty and a shell; what the device
// prints before the first command is dropped; then per command: wait inter_command_timeout_ms,
// clear what was collected, send `command + "\n"`, collect until the prompt (or prompt_regex)
// shows, or error_prompt does. Each output is raw (echo, output, prompt), as the collector gives it.
import type { ClientChannel } from 'ssh2';
import type { ProtocolAnswer, ProtocolContext } from '../core/protocol-handler.js';
import { refusal, shellConnectError, shellError } from './errors.js';
import { isCall, startCall, type SshCall } from './call.js';
import { openConnection } from './connect.js';
import type { ShellOptions } from './options.js';
import { ShellPromptWatch } from './prompt-watch.js';

const PTY = { term: 'vt100', cols: 80, rows: 24, width: 640, height: 480 };
/** A greeting without the prompt counts as over once the shell printed nothing for this long. */
const GREETING_QUIET_MS = 300;
const GREETING_POLL_MS = 25;


export function runShell(ctx: ProtocolContext, options: ShellOptions): Promise<ProtocolAnswer> {
  const call = startCall(ctx, options, options.commands[0] ?? '', options.globalTimeoutMs, shellError('TIMEOUT', 'timeout'));
  if (!isCall(call)) return Promise.resolve(call);
  try {
    call.connection = openConnection(call.endpoint, options, call.timeLeftMs(), {
      onReady() {
        if (call.ended) return;
        call.connection!.client.shell(PTY, (error, stream) => {
          if (call.ended) return;
          if (error) return call.end({ error: shellError('CONNECTION_FAILED', error.message) });
          sequence(ctx, call, stream, options);
        });
      },
      onError(error) {
        if (!call.ended) call.end({ error: shellConnectError(error) });
      },
      onClose() {
        if (!call.ended) call.end({ error: shellError('DISCONNECTED', 'socket closed') });
      },
    });
  } catch (error) {
    // ssh2 refuses some settings at once (before any socket): as a failed connection.
    call.end({ error: shellConnectError(error as Error) });
  }
  return call.promise;
}

/** Sends the commands in turn on the shell's stream; ends the call with the outputs or the first failure. */
function sequence(ctx: ProtocolContext, call: SshCall, stream: ClientChannel, options: ShellOptions): void {
  const outputs: string[] = [];
  let index = -1; // the command being waited on; -1 before the first
  let waiting = false; // a command was sent and its prompt has not shown yet
  const decoder = new TextDecoder('utf-8');
  let pause: NodeJS.Timeout | null = null;
  let lastData = 0; // performance.now() of the last output

  // The output since the command was sent, and what ends it (prompt-watch.ts: off the host's loop).
  const watch = new ShellPromptWatch(ctx.signal, options, {
    prompt(output) {
      if (waiting && !call.ended) done(output);
    },
    errorPrompt(output) {
      if (waiting) call.end({ error: shellError('ERROR_PROMPT', output, { command: options.commands[index] }), response: output });
    },
    failure(error) {
      call.end({ error: shellError(error.code, error.message), response: watch.text() });
    },
  });
  void call.promise.then(() => watch.dispose());

  const next = () => {
    index++;
    if (index >= options.commands.length) {
      stream.end();
      return call.end({ result: outputs, response: outputs.at(-1) ?? '' });
    }
    pause = setTimeout(function send() {
      pause = null;
      if (call.ended) return;
      // Before the first command the shell must have greeted: its prompt shown, or its output
      // quiet for a moment (a greeting whose prompt is not `prompt`). Else the first prompt,
      // late after a slow login, would pass for the first command's output.
      if (index === 0 && !watch.shown && (lastData === 0 || performance.now() - lastData < GREETING_QUIET_MS)) {
        pause = setTimeout(send, GREETING_POLL_MS);
        return;
      }
      if (!ctx.takeCommand()) return call.end({ error: refusal('TOO_MANY_COMMANDS', "the run sent as many device commands as its maxProtocolCommands allows") });
      watch.reset('command');
      waiting = true;
      stream.write(`${options.commands[index]}\n`);
    }, options.interCommandMs);
  };

  const done = (output: string) => {
    waiting = false;
    outputs.push(output);
    // What comes until the next command is sent is kept (a hang-up reports it) but not searched.
    watch.reset('idle');
    call.step(output, index + 1 < options.commands.length ? options.commands[index + 1]! : null);
    next();
  };

  const onData = (chunk: Buffer) => {
    if (call.ended || !call.addOutput(chunk.length)) return;
    lastData = performance.now();
    watch.push(decoder.decode(chunk, { stream: true }));
  };
  stream.on('data', onData);
  stream.stderr.on('data', onData);
  const closed = () => {
    if (pause) clearTimeout(pause);
    if (call.ended) return;
    // The shell went away (an "exit" command, the device hanging up): the command waited on gets
    // what came; a sequence with commands still to send fails.
    const output = watch.text();
    if (waiting && index === options.commands.length - 1) {
      outputs.push(output);
      return call.end({ result: outputs, response: output });
    }
    call.end({ error: shellError('DISCONNECTED', 'disconnected'), response: output });
  };
  // A prompt_regex test still in flight came first: it decides before the hang-up does.
  stream.on('close', () => {
    const settling = watch.settled();
    if (settling) void settling.then(closed);
    else closed();
  });
  next();
}
