// D.device.createSNMPSession (host: host/bridges/snmp/). The session is the driver's options,
// kept here; each get / walk / set is one call to the host with them.
// TODO(issue 18): the value and error shapes of shared/PROTOCOLS.md.
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';

type Callback = (output: unknown, error: unknown) => void;

export function createSnmp(bridge: Bridge, target: number, name: string) {
  return {
    createSNMPSession(options?: unknown) {
      const fn = `${name}.createSNMPSession`;
      const call = (op: string, extra: Record<string, unknown>, callback: Callback) => {
        if (typeof callback !== 'function') throw raise(new TypeError(`${fn}().${op}: a callback(output, error) is required`));
        startProtocol(bridge, target, 'snmp', options, fn, (answer) => callback(answer.result ?? null, answer.error), { ...extra, op });
      };
      return {
        get: (oids: unknown, callback: Callback) => call('get', { oids }, callback),
        walk: (oid: unknown, callback: Callback) => call('walk', { oid }, callback),
        set: (oid: unknown, value: unknown, callback: Callback) => call('set', { oid, value }, callback),
      };
    },
  };
}
