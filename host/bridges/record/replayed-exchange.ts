// The transcript entry of a protocol call a wire answered without calling the device (a replay,
// a replay miss): the command (or the driver's options, redacted) and the answer, as a live call
// would have shown them.
import type { ProtocolAnswer } from '../../../runtime/protocol.js';
import { passedThrough } from '../../contract/driver-error-codes.js';
import type { ProtocolContext } from '../core/protocol-handler.js';
import { redactSecretOptions } from './redact.js';

/** The transcript entry of a protocol call the wire answered itself: the command (or the options) and the answer. */
export function replayedExchange(ctx: ProtocolContext, url: string, options: Record<string, unknown>, answer: ProtocolAnswer): void {
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
  ctx.exchange(url, command).finish({ error: answer.error ? { code: passedThrough(answer.error.code), message: answer.error.message } : null, response });
}
