// D.device.sendSSHCommand and sendSSHCommands (host: host/bridges/ssh/).
// TODO(issue 18): the callback shapes of shared/PROTOCOLS.md.
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';

type Callback = (output: unknown, error: unknown) => void;

export function createSsh(bridge: Bridge, target: number, name: string) {
  const command = (module: 'ssh' | 'sshShell', fnName: string) =>
    function (options: unknown, callback: Callback): void {
      const fn = `${name}.${fnName}`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(output, error) is required`));
      startProtocol(bridge, target, module, options, fn, (answer) => (answer.error ? callback(null, answer.error) : callback(answer.result, null)));
    };
  return { sendSSHCommand: command('ssh', 'sendSSHCommand'), sendSSHCommands: command('sshShell', 'sendSSHCommands') };
}
