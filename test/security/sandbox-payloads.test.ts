// The sandbox thread's checks of what the in-isolate runtime sends (host/engine/isolate/host-payloads.ts,
// check-report.ts): driver-shaped data that would overflow this thread's stack or that has the
// wrong types is refused with a clear text, never cast, never thrown past the run.
import { describe, expect, it } from 'vitest';
import { checkRunEnd } from '../../host/engine/isolate/check-report.js';
import { checkCryptoCall, checkExternalCall, checkLibName, checkNetworkCall, checkTimer, parsePayload, withinDepth } from '../../host/engine/isolate/host-payloads.js';

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('security: payloads from the isolate', () => {
  it('K20 nesting of any depth is measured without recursion; JSON text of a million levels parses', () => {
    const value = parsePayload(deep(1_000_000));
    expect(withinDepth(value)).toBe(false);
    expect(withinDepth(parsePayload(deep(64)))).toBe(true);
    expect(withinDepth(parsePayload(deep(65)))).toBe(false);
    expect(() => parsePayload(undefined)).toThrow('the runtime sent undefined where JSON text was expected');
  });

  it('K21 each operation\'s payload is type-checked and rebuilt', () => {
    expect(checkNetworkCall({ id: 1, target: 0, method: 'GET', options: { url: '/' }, extra: 1 })).toEqual({ id: 1, target: 0, method: 'GET', options: { url: '/' } });
    expect(checkNetworkCall({ id: 1, target: 0, method: 'TRACE', options: {} })).toBe('the request method must be GET, POST, PUT or DELETE');
    expect(checkNetworkCall({ id: '1', target: 0, options: {} })).toBe('the request has no valid id');
    expect(checkNetworkCall({ id: 1, target: 0, options: JSON.parse(`{"json":${deep(300)}}`) })).toBe('the request options are nested more than 256 levels deep');
    expect(() => checkTimer({ id: 1, ms: 'soon' })).toThrow('a timer needs a delay of 0 ms or more');
    expect(() => checkTimer({ id: 1.5, ms: 1 })).toThrow('timer: the operation id must be a positive integer');
    expect(() => checkLibName({ toString: 1 })).toThrow('there is no library given as object');
    expect(() => checkExternalCall({ host: { toString: 1 }, credentials: null })).toThrow('D.createExternalDevice: host must be a string');
    expect(checkExternalCall({ host: 'h', credentials: { username: 'u', password: null, x: 1 } })).toEqual({ host: 'h', credentials: { username: 'u', password: undefined } });
    expect(() => checkCryptoCall({ fn: 'hash', args: [{ s: { toString: 1 } }] })).toThrow('D.crypto: malformed argument');
    expect(() => checkCryptoCall({ fn: 'constructor', args: [] })).toThrow('D.crypto: malformed call');
  });

  it('K22 a report is rebuilt from its checked fields: extra fields, however deep, are left behind', () => {
    const extra = parsePayload(deep(100_000));
    const report = {
      status: 'success', errorType: null, message: null, extra,
      variables: [{ uid: 'a', label: 'A', value: 'v', unit: null, valueType: 'STRING', extra }],
      tables: [{ label: 'T', columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING', extra }], rows: [['r', 'x']], extra }],
    };
    const checked = checkRunEnd(report, { maxVariables: 10, maxTableRows: 10 });
    expect(checked).toEqual({
      status: 'success', errorType: null, message: null,
      variables: [{ uid: 'a', label: 'A', value: 'v', unit: null, valueType: 'STRING' }],
      tables: [{ label: 'T', columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING' }], rows: [['r', 'x']] }],
    });
    expect(() => structuredClone(checked)).not.toThrow();
    expect(checkRunEnd({ ...report, tables: [{ label: 'T', columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING' }], rows: [['r', 'x'.repeat(501)]] }] }, { maxVariables: 10, maxTableRows: 10 }))
      .toBe('tables[0].rows[0][1] must be a string of 0 to 500 characters (got a string of 501 characters)');
  });
});
