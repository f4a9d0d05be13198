// D.device.sendSSHCommand: one connection, one exec channel, stdout and stderr collected;
// exit status 0 → the trimmed stdout, anything else → the exit-status error of PROTOCOLS.md.
import type { ProtocolAnswer, ProtocolContext } from '../core/protocol-handler.js';
import { ByteCollector } from '../core/device-text/byte-collector.js';
import { execConnectError, refusal, type SshError } from './errors.js';
import { isCall, startCall } from './call.js';
import { openConnection } from './connect.js';
import type { ExecOptions } from './options.js';

export function runExec(ctx: ProtocolContext, options: ExecOptions): Promise<ProtocolAnswer> {
  const timeout: SshError = { code: 'TIMEOUT', message: `Timeout of ${options.timeoutMs}ms expired`, fields: {} };
  const call = startCall(ctx, options, options.command, options.timeoutMs, timeout);
  if (!isCall(call)) return Promise.resolve(call);
  if (!ctx.takeCommand()) {
    call.end({ error: refusal('TOO_MANY_COMMANDS', "the run sent as many device commands as its maxProtocolCommands allows") });
    return call.promise;
  }
  // Kept compactly (one buffer each, not one per packet) and decoded once at the end.
  const stdout = new ByteCollector();
  const stderr = new ByteCollector();
  let exit: { code: number | null; signal: string | null } | null = null;
  let started = false;
  const text = (bytes: ByteCollector) => bytes.bytes().toString('utf8').trim();

  const finish = () => {
    const out = text(stdout);
    if (exit?.code === 0) return call.end({ result: out, response: out });
    const err = text(stderr);
    const fields = exit?.signal ? { code: exit.code, output: out, signal: exit.signal } : { code: exit?.code ?? null, output: out };
    call.end({ error: { code: 'EXIT_STATUS', message: err, fields }, response: [out, err].filter(Boolean).join('\n') });
  };

  try {
    call.connection = openConnection(call.endpoint, options, call.timeLeftMs(), {
      onReady() {
        if (call.ended) return;
        call.connection!.client.exec(options.command, (error, stream) => {
          if (call.ended) return;
          if (error) return call.end({ error: { code: 'CONNECTION_FAILED', message: error.message, fields: { code: 255 } } });
          started = true;
          const collect = (into: ByteCollector) => (chunk: Buffer) => {
            if (call.addOutput(chunk.length)) into.append(chunk);
          };
          stream.on('data', collect(stdout));
          stream.stderr.on('data', collect(stderr));
          stream.on('exit', (code: number | null, signal?: string) => {
            exit = { code: typeof code === 'number' ? code : null, signal: typeof signal === 'string' ? signal : null };
          });
          stream.on('close', finish);
        });
      },
      onError(error) {
        if (!call.ended) call.end({ error: execConnectError(error) });
      },
      onClose() {
        // Cut before the command's channel closed: as a missing exit status when it ran, else a failed connection.
        if (call.ended) return;
        if (started) finish();
        else call.end({ error: { code: 'CONNECTION_FAILED', message: 'the connection closed before the command could start', fields: { code: 255 } } });
      },
    });
  } catch (error) {
    // ssh2 refuses some settings at once (before any socket): as a failed connection.
    call.end({ error: execConnectError(error as Error) });
  }
  return call.promise;
}
