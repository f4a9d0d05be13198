// A driver that reaches for a global driverbox does not have (fetch, Buffer, process…) or a D
// member it lacks gets a failure that says what to use instead (issue 18 items 7 and 11), while
// `typeof x` feature tests keep working.
import { describe, expect, it } from 'vitest';
import { GLOBAL_HINTS, hintFor } from '../../host/engine/isolate/missing-hints.js';
import { runCli } from '../helpers/cli.js';
import { runSource, useHost } from '../helpers/host.js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const host = useHost();
const withExternal = useHost({ externalHosts: ['127.0.0.1'] });

describe('a missing global', () => {
  it.each([
    ['fetch', "fetch('/status')", /driverbox has no global fetch: use D\.device\.http\.get/],
    ['XMLHttpRequest', 'new XMLHttpRequest()', /driverbox has no global XMLHttpRequest: use D\.device\.http/],
    ['Buffer', "Buffer.from('x')", /driverbox has no global Buffer: use D\._unsafe\.buffer\.from \/ alloc \/ concat/],
    ['process', 'process.env.TOKEN', /driverbox has no global process: .*D\.getParameter\(name\)/],
    ['setImmediate', 'setImmediate(function () {})', /driverbox has no global setImmediate: use setTimeout\(fn, 0\)/],
    ['module', 'module.exports = {}', /driverbox has no global module: a driver is a script, not a module/],
    ['exports', 'exports.validate = validate', /driverbox has no global exports: a driver is a script/],
    ['WebSocket', "new WebSocket('ws://x')", /driverbox has no global WebSocket/],
  ])('%s: the failure names what to use instead, and the compatibility page', async (name, code, hint) => {
    const result = await runSource(host, `function get_status() {\n  ${code};\n}`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    const [first, frame, last] = result.message!.split('\n');
    expect(first).toBe(`ReferenceError: ${name} is not defined`);
    expect(frame).toMatch(/at get_status \(driver\.js:2:\d+\)/);
    expect(last).toMatch(hint);
    expect(last).toMatch(/\(docs\/reference\/compatibility\.md\)$/);
  });

  it('typeof feature tests do not throw: the globals are simply absent', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         var seen = [typeof fetch, typeof Buffer, typeof process, typeof setImmediate, typeof module, typeof exports, typeof XMLHttpRequest, typeof window];
         var poly = typeof setImmediate === 'undefined' ? function (fn) { setTimeout(fn, 0); } : setImmediate;
         poly(function () { D.success([D.createVariable('seen', 'seen', seen.join())]); });
       }`,
    );
    expect(result.status, result.message ?? '').toBe('success');
    expect(result.variables[0]!.value).toBe('undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined');
  });

  it('a name driverbox has no advice for keeps V8\'s message as it is', async () => {
    const result = await runSource(host, `function get_status() { notDeclaredAnywhere(); }`);
    expect(result.message).toBe('ReferenceError: notDeclaredAnywhere is not defined\n    at get_status (driver.js:1:25)');
  });

  it('a driver that caught the error and logged it gets the hint as a warning', async () => {
    const result = await runSource(
      host,
      `function get_status() {
         D.q.resolve().then(function () { return Buffer.from('x'); })
           .catch(function (e) { console.error('failed: ' + e); D.failure(D.errorType.PARSING_ERROR); });
       }`,
    );
    expect(result.errorType).toBe('PARSING_ERROR');
    expect(result.warnings).toEqual([
      'the driver logged "ReferenceError: Buffer is not defined": driverbox has no global Buffer: use D._unsafe.buffer.from / alloc / concat (docs/reference/compatibility.md)',
    ]);
  });

  it('a run that succeeds is left alone, whatever it logged', async () => {
    const result = await runSource(host, `function get_status() { console.error('ReferenceError: fetch is not defined'); D.success(); }`);
    expect(result.status).toBe('success');
    expect(result.warnings).toEqual([]);
  });

  it('every hint names something to do', () => {
    for (const [name, text] of Object.entries(GLOBAL_HINTS)) expect(text.length, name).toBeGreaterThan(10);
  });
});

describe('a D member driverbox does not have', () => {
  it('D.device.someUnknownThing(): the failure says driverbox does not have it', async () => {
    const result = await runSource(host, `function get_status() {\n  D.device.someUnknownThing({}, function () {});\n}`);
    expect(result.status).toBe('failure');
    expect(result.message).toBe(
      'TypeError: D.device.someUnknownThing is not a function\n    at get_status (driver.js:2:12)\ndriverbox does not have D.device.someUnknownThing(): see docs/reference/compatibility.md for what D offers',
    );
  });

  it('on an external device', async () => {
    const result = await runSource(withExternal, `function get_status() { D.createExternalDevice('127.0.0.1').sendSFTP({}); }`);
    expect(result.message).toMatch(/driverbox does not have D\.createExternalDevice\(host\)\.sendSFTP\(\)/);
  });

  it('a missing object whose member is read: the first missing part of the chain is named', async () => {
    const result = await runSource(host, `function get_status() {\n  D.ftpServer.accept({}, function () {});\n}`);
    expect(result.message).toMatch(/^TypeError: Cannot read properties of undefined \(reading 'accept'\)\n {4}at get_status \(driver\.js:2:15\)\ndriverbox does not have D\.ftpServer; did you mean D\.tftpServer\? See docs\/reference\/compatibility\.md/);
  });

  it('D.sucess(): did you mean D.success()', async () => {
    const result = await runSource(host, `function get_status() {\n  D.sucess([]);\n}`);
    expect(result.message).toBe(
      'TypeError: D.sucess is not a function\n    at get_status (driver.js:2:5)\ndriverbox does not have D.sucess(); did you mean D.success()? See docs/reference/compatibility.md for what D offers',
    );
  });

  it('a misspelt member is matched among its siblings only, on the device and on an external device', async () => {
    const device = await runSource(host, `function get_status() { D.device.sendSSHComand({}, function () {}); }`);
    expect(device.message).toContain('driverbox does not have D.device.sendSSHComand(); did you mean D.device.sendSSHCommand()?');
    const external = await runSource(withExternal, `function get_status() { D.createExternalDevice('127.0.0.1').http.gett({}, function () {}); }`);
    expect(external.message).toContain('driverbox does not have D.createExternalDevice(host).http.gett(); did you mean D.createExternalDevice(host).http.get()?');
  });

  it('a misspelt object in a chain: did you mean the member that exists', async () => {
    const result = await runSource(host, `function get_status() {\n  D.devce.http.get({}, function () {});\n}`);
    expect(result.message).toContain("reading 'http'");
    expect(result.message).toContain('driverbox does not have D.devce; did you mean D.device? See docs/reference/compatibility.md');
  });

  it('hintFor leaves other TypeErrors alone', () => {
    expect(hintFor('TypeError: x.foo is not a function')).toBeNull();
    expect(hintFor("TypeError: Cannot read properties of undefined (reading 'a')\n    at get_status (driver.js:1:5)", () => 'var x = y.a;')).toBeNull();
    expect(hintFor("TypeError: Cannot read properties of undefined (reading 'get')\n    at get_status (driver.js:1:5)", () => 'D.device.http.get({})')).toBeNull();
  });
});

describe('through the CLI', () => {
  it('driverbox run prints the hint under the failure', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'driverbox-globals-'));
    const file = path.join(dir, 'cloud.js');
    await writeFile(file, `function validate() { D.success(); }\nfunction get_status() { fetch('https://api.example.com/'); }\n`);
    const out = await runCli(['run', file, '--device-ip', '127.0.0.1']);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('ReferenceError: fetch is not defined');
    expect(out.stdout).toContain('driverbox has no global fetch: use D.device.http.get / post / put / delete');
  });
});

describe('a name the driver declares in another scope', () => {
  it('is not mistaken for a missing global: the hint says where the bug is', async () => {
    const result = await runSource(host, `function helper() { var self = this; return self; }\nfunction get_status() {\n  self.check();\n}`);
    expect(result.message).toBe(
      "ReferenceError: self is not defined\n    at get_status (driver.js:3:3)\nthe driver declares self elsewhere, but not where this line runs: declare it in this function too",
    );
  });
});
