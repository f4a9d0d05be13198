// D.device.sendWinRMCommand (host: host/bridges/winrm/).
// TODO(issue 18): the callback shapes of shared/PROTOCOLS.md.
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';

export function createWinrm(bridge: Bridge, target: number, name: string) {
  return {
    sendWinRMCommand(options: unknown, callback: (output: unknown) => void): void {
      const fn = `${name}.sendWinRMCommand`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(output) is required`));
      startProtocol(bridge, target, 'winrm', options, fn, (answer) => callback({ outcome: answer.result ?? null, error: answer.error }));
    },
  };
}
