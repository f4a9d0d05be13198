// driverbox/testing: runDriver in this process and in a child process, and the assertions.
import { AssertionError } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertSuccess,
  assertTableRows,
  assertVariables,
  getTableRows,
  getVariable,
  runDriver,
} from '../../host/testing/index.js';
import type { RunResult } from '../../host/index.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import net from 'node:net';

const DRIVER = `
function get_status() {
  D.device.http.get({ url: '/json', auth: 'basic' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    var t = D.createTable('Disks', [{ label: 'Name' }, { label: 'Used', unit: '%', valueType: D.valueType.NUMBER }]);
    t.insertRecord('d1', ['system', 41.5]);
    t.insertRecord('d2', ['data', 80]);
    D.success([
      D.createVariable('model', 'Model', JSON.parse(body).model),
      D.createVariable('temp', 'Temperature', 41.5, 'C', D.valueType.NUMBER),
      D.createVariable('user', 'User', D.device.username()),
      D.createVariable('site', 'Site', D.getParameter('site'))
    ], t);
  });
}
function validate() { D.failure(D.errorType.AUTHENTICATION_ERROR); }
function custom_1() {
  console.info('logging in');
  D.device.http.get('/json', function () {
    D.device.http.get({ url: '/spare', port: 81 }, function (error) {
      console.warn('spare port: ' + error.code);
      D.device.http.get('/status?code=401', function (error, response) {
        console.error('status answered ' + response.statusCode);
        D.failure(D.errorType.AUTHENTICATION_ERROR);
      });
    });
  });
}
`;

let server: DeviceServer;
let driverPath: string;

beforeAll(async () => {
  server = await startDeviceServer({
    route: (req, res) => {
      if (req.url !== '/json') return false;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ model: 'DBX-1' }));
      return true;
    },
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-testing-'));
  driverPath = path.join(dir, 'driver.js');
  writeFileSync(driverPath, DRIVER);
});
afterAll(() => server.close());

const device = () => ({ ip: '127.0.0.1', username: 'admin', password: 'pw', portMap: { 80: server.port } });

describe('runDriver', () => {
  for (const inProcess of [true, false]) {
    it(`runs a driver file against a device ${inProcess ? 'in this process' : 'in a child process'}`, async () => {
      const result = await runDriver({ path: driverPath, device: device(), parameters: { site: 'lab' }, inProcess });
      assertSuccess(result);
      assertVariables(result, { model: 'DBX-1', temp: 41.5, user: 'admin', site: 'lab' }, { only: true });
      expect(server.seen.at(-1)?.headers.authorization).toBe(`Basic ${Buffer.from('admin:pw').toString('base64')}`);
    });
  }

  it('resolves with the failure of a failing action, in a child process too', async () => {
    for (const inProcess of [true, false]) {
      const result = await runDriver({ path: driverPath, action: 'validate', device: device(), inProcess });
      expect(result).toMatchObject({ status: 'failure', errorType: 'AUTHENTICATION_ERROR', action: 'validate' });
    }
  });

  it('rejects bad input with the host error code, in a child process too', async () => {
    for (const inProcess of [true, false]) {
      await expect(runDriver({ path: path.join(path.dirname(driverPath), 'missing.js'), inProcess })).rejects.toMatchObject({ code: 'DRIVER_NOT_FOUND' });
      await expect(runDriver({ path: driverPath, action: 'reboot', inProcess })).rejects.toMatchObject({ code: 'UNKNOWN_ACTION' });
    }
  });
});

describe('assertions', () => {
  let result: RunResult;
  beforeAll(async () => {
    result = await runDriver({ path: driverPath, device: device(), parameters: { site: 'lab' } });
  });

  it('finds variables and table rows', () => {
    expect(getVariable(result, 'temp')).toMatchObject({ value: '41.5', unit: 'C', valueType: 'NUMBER' });
    expect(getTableRows(result, 'Disks')).toEqual([
      { id: 'd1', Name: 'system', Used: '41.5' },
      { id: 'd2', Name: 'data', Used: '80' },
    ]);
    assertTableRows(result, 'Disks', [{ id: 'd2', Used: 80 }]);
    assertTableRows(result, 'Disks', [{ id: 'd1', Name: 'system' }, { id: 'd2' }], { only: true });
    assertVariables(result, { temp: { unit: 'C', valueType: 'NUMBER' } });
  });

  it('says what differs', () => {
    expect(() => getVariable(result, 'nope')).toThrow(/no variable "nope": the run succeeded and reported "model", "temp", "user", "site"/);
    expect(() => assertVariables(result, { temp: 40, model: { unit: 'x' }, gone: 1 })).toThrow(
      /"temp"\.value: expected "40", got "41\.5"\n {2}"model"\.unit: expected "x", got null\n {2}"gone": missing/,
    );
    expect(() => assertVariables(result, { temp: 41.5 }, { only: true })).toThrow(/"model": not expected/);
    expect(() => assertTableRows(result, 'Disks', [{ id: 'd1', Used: 1 }, { id: 'd9' }, { id: 'd2', Size: 3 }])).toThrow(
      /row "d1"\.Used: expected "1", got "41\.5"\n {2}row "d9": missing \(rows: "d1", "d2"\)\n {2}row "d2": the table has no column "Size"/,
    );
    expect(() => assertTableRows(result, 'Disks', [{ id: 'd1' }], { only: true })).toThrow(/row "d2": not expected/);
    expect(() => getTableRows(result, 'Fans')).toThrow(/no table "Fans": the run succeeded and reported "Disks"/);
    expect(() => getVariable(result, 'nope')).toThrow(AssertionError);
  });

  it('assertSuccess carries the failure, logs and warnings', async () => {
    const failed = await runDriver({ path: driverPath, action: 'validate', device: device() });
    expect(() => assertSuccess(failed)).toThrow(/expected the run of validate\(\) to succeed, but the run failed with AUTHENTICATION_ERROR/);
  });

  /** The message an assertion throws. */
  const messageOf = (assertion: () => void) => {
    try {
      assertion();
    } catch (error) {
      expect(error).toBeInstanceOf(AssertionError);
      return (error as Error).message;
    }
    throw new Error('the assertion passed');
  };

  it("every failing assertion shows the run's exchanges (method, URL, status or error code) and its logs", async () => {
    // A port nothing listens on: the second request is refused.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closed = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const failed = await runDriver({ path: driverPath, action: 'custom_1', device: { ...device(), portMap: { 80: server.port, 81: closed } } });
    const base = `http://127.0.0.1:${server.port}`;
    const message = messageOf(() => assertSuccess(failed));
    const lines = message.split('\n');
    expect(lines.slice(0, 3)).toEqual(['expected the run of custom_1() to succeed, but the run failed with AUTHENTICATION_ERROR: the driver called D.failure(AUTHENTICATION_ERROR) at driver.js:24:11', 'exchanges (3):', `  GET ${base}/json → 200`]);
    expect(lines[3]).toMatch(new RegExp(`^  GET http://127\\.0\\.0\\.1:${closed}/spare → ECONNREFUSED \\(.+\\)$`));
    expect(lines.slice(4)).toEqual([`  GET ${base}/status?code=401 → 401`, 'logs (3):', '  info: logging in', '  warn: spare port: ECONNREFUSED', '  error: status answered 401']);

    // The other assertions carry the same account of the run.
    const context = lines.slice(1).join('\n');
    for (const assertion of [
      () => assertVariables(failed, { temp: 40 }),
      () => getVariable(failed, 'temp'),
      () => getTableRows(failed, 'Disks'),
      () => assertTableRows(failed, 'Disks', [{ id: 'd1' }]),
    ]) {
      expect(messageOf(assertion).endsWith(`\n${context}`)).toBe(true);
    }
    // A run with nothing to show says so.
    const quiet = await runDriver({ path: driverPath, action: 'validate', device: device() });
    expect(messageOf(() => assertSuccess(quiet))).toBe(
      'expected the run of validate() to succeed, but the run failed with AUTHENTICATION_ERROR: the driver called D.failure(AUTHENTICATION_ERROR) at driver.js:16:25\nexchanges: none\nlogs: none',
    );
  });
});
