// D.device.sendSSHCommand and sendSSHCommands (host: host/bridges/ssh/). The host answers the
// driver-visible error ready-made (its message and `fields`); here it becomes what the collector
// hands drivers (shared/PROTOCOLS.md): an Error with code / output for an exec, a plain object
// for a shell sequence. A callback that throws is the driver's uncaught error (bridge.guard).
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';
import { hasOwn, isArray } from './intrinsics';
import type { ProtocolAnswer } from './protocol';

type Callback = (output: unknown, error: unknown) => void;

const FIELDS = ['code', 'output', 'command', 'signal'] as const;

/**
 * The fields the host gave, copied one by one onto `into`. An answer the SSH module did not
 * shape (a replay miss, a refused call, a host failure) carries only its code: the driver gets it.
 */
function withFields<T extends object>(into: T, error: NonNullable<ProtocolAnswer['error']>): T {
  const fields = error.fields;
  if (fields === undefined) {
    if (typeof error.code === 'string') (into as Record<string, unknown>).code = error.code;
  } else if (fields && typeof fields === 'object') {
    for (let i = 0; i < FIELDS.length; i++) {
      const key = FIELDS[i]!;
      if (hasOwn(fields, key)) (into as Record<string, unknown>)[key] = (fields as Record<string, unknown>)[key];
    }
  }
  return into;
}

/**
 * Drivers pass `prompt_regex` as a RegExp too (`prompt_regex: /--- More ---|>/`), which the
 * collector accepts; JSON would make it `{}`, so its source and flags go as text.
 */
function regexOption(options: unknown): Record<string, unknown> | undefined {
  const value = options !== null && typeof options === 'object' ? (options as { prompt_regex?: unknown }).prompt_regex : undefined;
  if (!(value instanceof RegExp)) return undefined;
  return { prompt_regex: value.source, prompt_regex_flags: value.flags };
}

export function createSsh(bridge: Bridge, target: number, name: string) {
  return {
    sendSSHCommand(options: unknown, callback: Callback): void {
      const fn = `${name}.sendSSHCommand`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(output, error) is required`));
      startProtocol(bridge, target, 'ssh', options, fn, (answer) => {
        if (answer.error) callback(null, withFields(raise(new Error(answer.error.message)), answer.error));
        else callback(answer.result, null);
      });
    },
    sendSSHCommands(options: unknown, callback: Callback): void {
      const fn = `${name}.sendSSHCommands`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(outputs, error) is required`));
      startProtocol(bridge, target, 'sshShell', options, fn, (answer) => {
        if (answer.error) callback([], withFields({ message: answer.error.message }, answer.error));
        else callback(isArray(answer.result) ? answer.result : [], null);
      }, regexOption(options));
    },
  };
}
