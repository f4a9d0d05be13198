// D.device.sendTelnetCommand (host: host/bridges/telnet/).
// TODO(issue 18): the callback shapes of shared/PROTOCOLS.md.
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';

export function createTelnet(bridge: Bridge, target: number, name: string) {
  return {
    sendTelnetCommand(options: unknown, callback: (output: unknown, error: unknown) => void): void {
      const fn = `${name}.sendTelnetCommand`;
      if (typeof callback !== 'function') throw raise(new TypeError(`${fn}: a callback(output, error) is required`));
      startProtocol(bridge, target, 'telnet', options, fn, (answer) => (answer.error ? callback(null, answer.error) : callback(answer.result, '')));
    },
  };
}
