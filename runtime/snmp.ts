// D.device.createSNMPSession (host: host/bridges/snmp/). The session is the driver's options,
// taken when it is made; each get / walk / set is one call to the host with them and `op`.
// Callbacks as the platform's: get (output | null, error), walk (output, always an object, keys
// in walk order, error), set (output, {} on an error, error); error null on success.
import type { Bridge } from './bridge';
import { startProtocol } from './device-protocol';
import { raise } from './error-text';
import { parse } from './intrinsics';
import { optionsJson } from './options-json';
import type { ProtocolAnswer } from './protocol';

type Callback = (output: unknown, error: unknown) => void;

/**
 * net-snmp's error as the driver would get it: its name (RequestTimedOutError…), message and,
 * for RequestFailedError, status; driverbox's own failures (INVALID_OPTIONS…) carry a code.
 */
function toError(answer: NonNullable<ProtocolAnswer['error']>): Error {
  const error = raise(new Error(answer.message)) as Error & { code?: string; status?: number };
  if (typeof answer.name === 'string' && answer.name !== 'Error') error.name = answer.name;
  else error.code = answer.code;
  if (typeof answer.status === 'number') error.status = answer.status;
  return error;
}

export function createSnmp(bridge: Bridge, target: number, name: string) {
  return {
    createSNMPSession(options?: unknown) {
      const fn = `${name}.createSNMPSession`;
      if (options !== undefined && options !== null && typeof options !== 'object') {
        throw raise(new TypeError(`${fn}: options must be an object such as { port: 161, timeout: 5000 } or nothing`));
      }
      const kept = options === undefined || options === null ? {} : parse(optionsJson(options, fn));
      const call = (op: 'get' | 'walk' | 'set', extra: Record<string, unknown>, callback: Callback, empty: unknown) => {
        if (typeof callback !== 'function') throw raise(new TypeError(`${fn}().${op}: a callback(output, error) is required`));
        startProtocol(bridge, target, 'snmp', kept, fn, (answer) => {
          if (answer.error) callback(answer.result ?? empty, toError(answer.error));
          else callback(answer.result ?? empty, null);
        }, { ...extra, op });
      };
      return {
        get: (oids: unknown, callback: Callback) => call('get', { oids }, callback, null),
        walk: (oid: unknown, callback: Callback) => call('walk', { oid }, callback, {}),
        set: (oid: unknown, value: unknown, callback: Callback) => call('set', { oid, value }, callback, {}),
      };
    },
  };
}
