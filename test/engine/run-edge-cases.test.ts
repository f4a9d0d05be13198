// Edge cases found while testing the sandbox: each once misbehaved.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost } from '../../host/index.js';
import { runSource, useHost } from '../helpers/host.js';

describe('run edge cases', () => {
  const host = useHost();

  it('a pool of one isolate serves runs one after another', async () => {
    const single = createHost({ maxIsolates: 1 });
    try {
      const results = await Promise.all([1, 2, 3].map((n) => runSource(single, `function get_status(){ D.success([D.createVariable('n', 'N', ${n})]); }`)));
      expect(results.map((r) => r.variables[0].value)).toEqual(['1', '2', '3']);
      expect(single.stats().alive).toBe(1);
    } finally {
      await single.close();
    }
  });

  describe('requests late in a run', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_req, res) => res.end('ok'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('work when less than the default request timeout is left of the deadline', async () => {
      const result = await runSource(host, `function get_status(){ D.device.http.get({ url: '/' }, function (err, res, body) { D.success([D.createVariable('b', 'B', err ? err.code : body)]); }); }`, {
        device: { ip: '127.0.0.1', portMap: { 80: port } },
        limits: { timeoutMs: 500 },
      });
      expect(result.variables[0].value).toBe('ok');
    });
  });

  it.each([
    ["throw 'a string';", 'Uncaught a string'],
    ['throw null;', 'Uncaught null'],
    ["throw new Error('the request timed out');", 'Error: the request timed out'],
    ["throw new Error('over the memory limit');", 'Error: over the memory limit'],
    // isolated-vm's own messages, thrown by the driver: still the driver's failure.
    ["throw new Error('Script execution timed out.');", 'Error: Script execution timed out.'],
    ["throw new Error('Isolate is disposed');", 'Error: Isolate is disposed'],
  ])('top-level %s is the driver failing, not a sandbox limit', async (statement, message) => {
    const result = await runSource(host, `${statement}\nfunction get_status(){ D.success(); }`);
    expect(result).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR', limitExceeded: null });
    expect(result.message?.startsWith(message)).toBe(true);
  });

  it('an outcome reported before the deadline stands when the driver keeps running', async () => {
    const result = await runSource(host, `function get_status(){ D.success([D.createVariable('a', 'A', 1)]); for(;;){} }`, { limits: { timeoutMs: 400 } });
    expect(result.status).toBe('success');
    expect(result.variables).toHaveLength(1);
    expect(result.warnings.join('\n')).toMatch(/still running/);
  });

  it.each([
    ['var important = 2; var o = { imported: 1, import: 3 };', 'success'],
    ["import 'fs';", 'IMPORT_NOT_ALLOWED'],
    ['import "fs";', 'IMPORT_NOT_ALLOWED'],
    ['import * as fs from "fs";', 'IMPORT_NOT_ALLOWED'],
    ['var m = import.meta;', 'IMPORT_NOT_ALLOWED'],
    ['var x = D.import;', 'success'],
  ])('import check: %s → %s', async (code, expected) => {
    const result = await runSource(host, `${code}\nfunction get_status(){ D.success(); }`);
    expect(result.errorType ?? result.status).toBe(expected);
  });

  it.each([
    ["v.uid = 'table';", /reserved word "table"/],
    ["v.uid = 'x'.repeat(51);", /51 characters long/],
    ["v.valueType = 'BOGUS';", /invalid value type "BOGUS"/],
  ])('a variable edited after creation is checked again at D.success (%s)', async (edit, message) => {
    const result = await runSource(host, `function get_status(){ var v = D.createVariable('a', 'A', 1); ${edit} D.success([v]); }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toMatch(message);
  });
});
