// D.device.sendTelnetCommand (host: host/bridges/telnet/). The driver's callback gets
// (transcript, "") on success, as the platform gives it: the error is an empty string; on a
// failure (transcript so far, Error with a code).
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';
import { SavedError, hasOwn, objectKeys, regexpFlags, regexpSource } from './intrinsics';

const PROMPTS = ['shellPrompt', 'loginPrompt', 'passwordPrompt'];

/** The options with RegExp prompts as { regexp, flags } (JSON would make them {}). */
function withPrompts(options: unknown): unknown {
  if (!options || typeof options !== 'object') return options;
  let copy: Record<string, unknown> | null = null;
  for (const name of PROMPTS) {
    if (!hasOwn(options, name)) continue;
    const value = (options as Record<string, unknown>)[name];
    if (!(value instanceof RegExp)) continue;
    if (!copy) {
      copy = {};
      for (const key of objectKeys(options)) copy[key] = (options as Record<string, unknown>)[key];
    }
    copy[name] = { regexp: regexpSource(value), flags: regexpFlags(value) };
  }
  return copy ?? options;
}

export function createTelnet(bridge: Bridge, target: number, name: string) {
  return {
    sendTelnetCommand(options: unknown, callback: (output: unknown, error: unknown) => void): void {
      const fn = `${name}.sendTelnetCommand`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(output, error) is required`));
      startProtocol(bridge, target, 'telnet', withPrompts(options), fn, (answer) => {
        const output = typeof answer.result === 'string' ? answer.result : '';
        if (!answer.error) return callback(output, '');
        const error = raise(new SavedError(answer.error.message)) as Error & { code?: string };
        error.code = answer.error.code;
        callback(output, error);
      });
    },
  };
}
