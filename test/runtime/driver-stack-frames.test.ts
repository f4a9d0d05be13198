// A driver sees its own stack frames only: err.stack read or logged inside the sandbox, the
// logged Error and the run's error message name the driver's file with line:column and never
// a frame of driverbox's runtime bundles (driverbox:core.js, driverbox:lib-q.js…).
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../host/index.js';
import { useDeviceServer } from '../helpers/device-server.js';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost({ threads: 1 });
const device = useDeviceServer();

const FILE = 'stacky.js';

function run(source: string): Promise<RunResult> {
  return runSource(host, source, { filename: FILE, device: device.target(), limits: { timeoutMs: 10_000 } });
}

/** The lines a driver logged, by their prefix ("A: …"). */
function logged(result: RunResult, prefix: string): string {
  const line = result.logs.find((l) => l.message.startsWith(`${prefix}: `));
  if (!line) throw new Error(`no log line "${prefix}: …" in ${JSON.stringify(result.logs)} (${result.message ?? ''})`);
  return line.message;
}

/** No frame of driverbox's own code, and the driver's frame at `line:column`. */
function expectDriverFramesOnly(text: string, line: number, column: number): void {
  expect(text).not.toMatch(/driverbox:/);
  expect(text).not.toMatch(/\bat (dispatch|f|W) \(/);
  expect(text).toContain(`${FILE}:${line}:${column}`);
}

describe('err.stack inside the sandbox', () => {
  it('an error from JSON.parse in a D.device.http callback, caught and logged as err.stack', async () => {
    const r = await run(
      [
        'function get_status() {',
        "  D.device.http.get('/status?body=notjson', function (err, res, body) {",
        '    try {',
        '      JSON.parse(body);',
        '    } catch (e) {',
        "      console.log('A: ' + e.stack);",
        '      console.error(e);',
        '    }',
        '    D.success();',
        '  });',
        '}',
      ].join('\n'),
    );
    expect(r.status, r.message ?? '').toBe('success');
    const text = logged(r, 'A');
    expect(text).toMatch(/^A: SyntaxError: /);
    expect(text).toContain('at JSON.parse (<anonymous>)'); // the built-in the driver called stays
    expectDriverFramesOnly(text, 4, 12);
    const error = r.logs.find((l) => l.level === 'error')!.message;
    expectDriverFramesOnly(error, 4, 12);
  });

  it("the driver's own throw inside a callback, caught: only its frames", async () => {
    const r = await run(
      [
        'function check(body) {',
        "  if (body !== 'ok') throw new Error('unexpected answer');",
        '}',
        'function get_status() {',
        "  D.device.http.get('/status?body=nope', function (err, res, body) {",
        '    try { check(body); } catch (e) {',
        "      console.log('B: ' + e.stack);",
        '    }',
        '    D.success();',
        '  });',
        '}',
      ].join('\n'),
    );
    const text = logged(r, 'B');
    expect(text.split('\n').map((l) => l.trim())).toEqual(['B: Error: unexpected answer', `at check (${FILE}:2:28)`, `at ${FILE}:6:11`]);
    expectDriverFramesOnly(text, 6, 11);
  });

  it('an error thrown in a D.q promise chain, caught by .catch (q runs the handlers)', async () => {
    const r = await run(
      [
        'function get_status() {',
        '  D.q.resolve(1)',
        "    .then(function () { throw new Error('in the chain'); })",
        "    .catch(function (e) { console.log('C: ' + e.stack); })",
        '    .then(function () { D.success(); });',
        '}',
      ].join('\n'),
    );
    expect(r.status, r.message ?? '').toBe('success');
    const text = logged(r, 'C');
    expect(text).toMatch(/^C: Error: in the chain/);
    expect(text).not.toMatch(/lib-q/);
    expectDriverFramesOnly(text, 3, 31);
  });

  it('a D.q promise of an HTTP request rejected by the driver, the stack read in a timer', async () => {
    const r = await run(
      [
        'function get(url) {',
        '  var d = D.q.defer();',
        '  D.device.http.get(url, function (err, res, body) {',
        "    if (res.statusCode !== 200) return d.reject(new Error('status ' + res.statusCode));",
        '    d.resolve(body);',
        '  });',
        '  return d.promise;',
        '}',
        'function get_status() {',
        "  get('/status?code=500').then(null, function (e) {",
        "    setTimeout(function () { console.log('D: ' + e.stack); D.success(); }, 1);",
        '  });',
        '}',
      ].join('\n'),
    );
    expect(r.status, r.message ?? '').toBe('success');
    const text = logged(r, 'D');
    expect(text).toMatch(/^D: Error: status 500/);
    expectDriverFramesOnly(text, 4, 49);
  });

  it("an error D throws at the driver (a refused argument) and a lodash callback's throw", async () => {
    const r = await run(
      [
        'function get_status() {',
        "  try { D.createVariable('', 'bad'); } catch (e) { console.log('E: ' + e.stack); }",
        "  try { D._.each([1], function () { null.x; }); } catch (e) { console.log('F: ' + e.stack); }",
        '  D.success();',
        '}',
      ].join('\n'),
    );
    expect(r.status, r.message ?? '').toBe('success');
    expectDriverFramesOnly(logged(r, 'E'), 2, 11);
    const lodash = logged(r, 'F');
    expect(lodash).toMatch(/^F: TypeError: /);
    expectDriverFramesOnly(lodash, 3, 42);
  });

  it('an uncaught error in an HTTP callback: the run fails with the driver frame in its message, none of driverbox', async () => {
    const r = await run(
      [
        'function get_status() {',
        "  D.device.http.get('/status?body=x', function (err, res, body) {",
        '    var data = JSON.parse(body);',
        '    D.success();',
        '  });',
        '}',
      ].join('\n'),
    );
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('GENERIC_ERROR');
    expectDriverFramesOnly(r.message ?? '', 3, 21);
  });

  it('a driver that sets its own Error.prepareStackTrace still gets it called', async () => {
    const r = await run(
      [
        'Error.prepareStackTrace = function (error, sites) { return "mine:" + sites.length; };',
        'function get_status() {',
        "  console.log('G: ' + new Error('x').stack);",
        '  D.success();',
        '}',
      ].join('\n'),
    );
    expect(logged(r, 'G')).toMatch(/^G: mine:\d+$/);
  });
});
