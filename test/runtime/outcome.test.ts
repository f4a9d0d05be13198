// How a run ends: D.success / D.failure (first wins), runs that can never end, deadlines,
// driver errors with the driver's own line numbers, and input the host refuses before a run.
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { DriverboxError } from '../../host/index.js';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost();

const ERROR_TYPES = [
  'MISSING_DEVICE_ERROR',
  'RESOURCE_UNAVAILABLE',
  'AUTHENTICATION_ERROR',
  'PARSING_ERROR',
  'TIMEOUT_ERROR',
  'IMPORT_NOT_ALLOWED',
  'REQUIRE_NOT_ALLOWED',
  'GENERIC_ERROR',
  'TOO_MANY_VARIABLES_ERROR',
  'NETWORK_ERROR',
];

describe('D.success / D.failure: the first outcome wins', () => {
  it('D.success then D.failure: success, and the failure becomes a warning', async () => {
    const result = await runSource(host, `function get_status() { D.success([D.createVariable('a', 'A', 1)]); D.failure(D.errorType.PARSING_ERROR); }`);
    expect(result.status).toBe('success');
    expect(result.errorType).toBeNull();
    expect(result.message).toBeNull();
    expect(result.variables.map((v) => v.uid)).toEqual(['a']);
    expect(result.warnings).toEqual(['D.failure came after the run had already ended with D.success; it was ignored (the first outcome wins)']);
  });

  it('D.failure then D.success: failure, and the success becomes a warning', async () => {
    const result = await runSource(host, `function get_status() { D.failure(D.errorType.AUTHENTICATION_ERROR); D.success([D.createVariable('a', 'A', 1)]); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('AUTHENTICATION_ERROR');
    expect(result.variables).toEqual([]);
    expect(result.warnings).toEqual(['D.success came after the run had already ended with D.failure; it was ignored (the first outcome wins)']);
  });

  it('D.success twice: the first variables are kept', async () => {
    const result = await runSource(
      host,
      `function get_status() { D.success([D.createVariable('first', 'F', 1)]); D.success([D.createVariable('second', 'S', 2)]); }`,
    );
    expect(result.status).toBe('success');
    expect(result.variables).toEqual([{ uid: 'first', label: 'F', value: '1', unit: null, valueType: 'STRING' }]);
    expect(result.warnings).toEqual(['D.success came after the run had already ended with D.success; it was ignored (the first outcome wins)']);
  });

  it('D.failure twice: the first type is kept', async () => {
    const result = await runSource(host, `function get_status() { D.failure(D.errorType.PARSING_ERROR); D.failure(D.errorType.NETWORK_ERROR); }`);
    expect(result.errorType).toBe('PARSING_ERROR');
    expect(result.warnings).toEqual(['D.failure came after the run had already ended with D.failure; it was ignored (the first outcome wins)']);
  });

  it('an error thrown after D.success does not change the outcome', async () => {
    const result = await runSource(host, `function get_status() { D.success([D.createVariable('a', 'A', 1)]); throw new Error('late'); }`);
    expect(result.status).toBe('success');
    expect(result.variables.map((v) => v.uid)).toEqual(['a']);
    expect(result.warnings).toEqual(['an uncaught error came after the run had already ended with D.success; it was ignored (the first outcome wins)']);
  });

  it('D.success with no arguments is a success with nothing reported', async () => {
    const result = await runSource(host, `function validate() { D.success(); }`, { action: 'validate' });
    expect(result).toMatchObject({ status: 'success', errorType: null, message: null, variables: [], tables: [], warnings: [], action: 'validate', limitExceeded: null });
  });

  it('D.success ignores a third argument, with a warning', async () => {
    const result = await runSource(host, `function get_status() { D.success([D.createVariable('a', 'A', 1)], null, 'extra'); }`);
    expect(result.status).toBe('success');
    expect(result.warnings).toEqual(['D.success takes at most two arguments (variables, table); 1 more were ignored']);
  });

  it('D.success ignores an argument that is neither variables nor a table, with a warning', async () => {
    const result = await runSource(host, `function get_status() { D.success('ok'); }`);
    expect(result.status).toBe('success');
    expect(result.warnings).toEqual(['D.success expects (variables, table); an argument of type string was ignored']);
  });

  it('D.success at top level ends the run without calling the entry point', async () => {
    const result = await runSource(host, `D.success([D.createVariable('top', 'Top', 'level')]);\nfunction get_status() { D.failure(D.errorType.GENERIC_ERROR); }`);
    expect(result.status).toBe('success');
    expect(result.variables).toEqual([{ uid: 'top', label: 'Top', value: 'level', unit: null, valueType: 'STRING' }]);
    expect(result.warnings).toEqual([]);
  });

  it('D.success from a callback ends the run', async () => {
    const result = await runSource(host, `function get_status() { D.q.delay(5).then(function () { D.success([D.createVariable('late', 'L', 'yes')]); }); }`);
    expect(result.status).toBe('success');
    expect(result.variables[0].value).toBe('yes');
  });
});

describe('D.failure error types', () => {
  it('D.errorType lists exactly the documented types, each equal to its name', async () => {
    const result = await runSource(host, `function get_status() { D.success([D.createVariable('t', 'T', JSON.stringify(D.errorType))]); }`);
    expect(JSON.parse(result.variables[0].value!)).toEqual(Object.fromEntries(ERROR_TYPES.map((t) => [t, t])));
  });

  it.each(ERROR_TYPES)('D.failure(D.errorType.%s) keeps the type', async (type) => {
    const result = await runSource(host, `function get_status() { D.failure(D.errorType.${type}); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe(type);
    expect(result.message).toBe(`the driver called D.failure(${type}) at driver.js:1:27`);
    expect(result.warnings).toEqual([]);
    expect(result.limitExceeded).toBeNull();
  });

  it('accepts the type name as a plain string', async () => {
    const result = await runSource(host, `function get_status() { D.failure('RESOURCE_UNAVAILABLE'); }`);
    expect(result.errorType).toBe('RESOURCE_UNAVAILABLE');
    expect(result.warnings).toEqual([]);
  });

  it('an unknown type becomes GENERIC_ERROR with a warning', async () => {
    const result = await runSource(host, `function get_status() { D.failure('DISK_ON_FIRE'); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('the driver called D.failure(GENERIC_ERROR) at driver.js:1:27');
    expect(result.warnings).toEqual(['D.failure: error type "DISK_ON_FIRE" is not one of D.errorType; reported as GENERIC_ERROR']);
  });

  it('a missing type becomes GENERIC_ERROR with a warning', async () => {
    const result = await runSource(host, `function get_status() { D.failure(); }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.warnings).toEqual(['D.failure: error type undefined is not one of D.errorType; reported as GENERIC_ERROR']);
  });

  it('a non-string type becomes GENERIC_ERROR with a warning', async () => {
    const result = await runSource(host, `function get_status() { D.failure(42); }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.warnings).toEqual(['D.failure: error type 42 is not one of D.errorType; reported as GENERIC_ERROR']);
  });

  it('an inherited property name is not a type', async () => {
    const result = await runSource(host, `function get_status() { D.failure('toString'); }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.warnings).toHaveLength(1);
  });
});

describe('runs that never call D.success or D.failure', () => {
  it('a driver that returns with nothing pending ends at once with TIMEOUT_ERROR', async () => {
    const result = await runSource(host, `function get_status() { var x = 1 + 1; }`, { limits: { timeoutMs: 10_000 } });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.message).toBe(
      'get_status() returned without calling D.success or D.failure, and no request or timer is pending: the run could never end (it would time out after 10000 ms)',
    );
    expect(result.limitExceeded).toBeNull();
    expect(result.durationMs).toBeLessThan(1_000);
  });

  it('the message names the action that ran', async () => {
    const result = await runSource(host, `function custom_3() {}`, { action: 'custom_3' });
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.message).toMatch(/^custom_3\(\) returned without calling D\.success or D\.failure/);
    expect(result.action).toBe('custom_3');
  });

  it('a promise that can never resolve (no timer, no request) also ends at once', async () => {
    const result = await runSource(host, `function get_status() { D.q.defer().promise.then(function () { D.success(); }); }`, { limits: { timeoutMs: 10_000 } });
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.message).toContain('returned without calling D.success or D.failure');
    expect(result.durationMs).toBeLessThan(1_000);
  });

  it('a pending q timer keeps the run alive until the deadline, which ends it with TIMEOUT_ERROR', async () => {
    // The wait re-arms itself, so a timer is always pending. (A single long timer is clamped to the
    // deadline by the host and can race it; see the report of this suite.)
    const result = await runSource(host, `function wait() { return D.q.delay(100000).then(wait); }\nfunction get_status() { wait().then(function () { D.success(); }); }`, {
      limits: { timeoutMs: 300 },
    });
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.message).toBe('the driver did not call D.success or D.failure within the 300 ms deadline');
    expect(result.limitExceeded).toBe('timeout');
    expect(result.durationMs).toBeGreaterThanOrEqual(295);
    expect(result.durationMs).toBeLessThan(1_500);
  });

  it('logs written before the deadline are kept', async () => {
    const result = await runSource(host, `function wait() { return D.q.delay(100000).then(wait); }\nfunction get_status() { console.info('waiting'); wait().then(function () { D.success(); }); }`, {
      limits: { timeoutMs: 300 },
    });
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(result.logs).toEqual([{ level: 'info', message: 'waiting' }]);
  });
});

describe('driver errors point at the driver', () => {
  let closedPort = 0;
  beforeAll(async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closedPort = (server.address() as net.AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
  });

  it('a throw at top level: GENERIC_ERROR with driver.js:LINE:COL', async () => {
    const result = await runSource(host, `var a = 1;\n\nthrow new Error('top boom');\nfunction get_status() { D.success(); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('Error: top boom\n    at driver.js:3:7');
    expect(result.limitExceeded).toBeNull();
  });

  it('a throw in the entry point: the stack lists only driver frames', async () => {
    const result = await runSource(host, `function helper() {\n  throw new TypeError('deep');\n}\nfunction get_status() {\n  helper();\n}`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('TypeError: deep\n    at helper (driver.js:2:9)\n    at get_status (driver.js:5:3)');
  });

  it('a runtime TypeError in the driver names its line', async () => {
    const result = await runSource(host, `function get_status() {\n  var o = null;\n  o.field = 1;\n}`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toMatch(/^TypeError: Cannot set properties of null \(setting 'field'\)\n {4}at get_status \(driver\.js:3:11\)$/);
  });

  it('a throw inside an HTTP callback: GENERIC_ERROR with the callback line', async () => {
    const result = await runSource(
      host,
      `function get_status() {\n  D.device.http.get({ url: '/', port: ${closedPort} }, function (err) {\n    throw new Error('cb boom: ' + err.code);\n  });\n}`,
      { device: { ip: '127.0.0.1' } },
    );
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('Error: cb boom: ECONNREFUSED\n    at driver.js:3:11');
    expect(result.http).toHaveLength(1);
    expect(result.http[0]).toMatchObject({ method: 'GET', url: `http://127.0.0.1:${closedPort}/`, status: null, error: 'ECONNREFUSED' });
  });

  it('a thrown non-Error value in the entry point is reported as such', async () => {
    const result = await runSource(host, `function get_status() { throw 'plain string'; }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('Uncaught plain string');
  });

  it('a syntax error: GENERIC_ERROR with driver.js:line:column and the offending line', async () => {
    const result = await runSource(host, `function get_status() {\n  var x = ;\n}`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe("SyntaxError: Unexpected token ';' at driver.js:2:11\n    2 |   var x = ;\n      |           ^");
  });

  it("D.failure names the driver's line that called it, in a callback too", async () => {
    const result = await runSource(
      host,
      `function get_status() {\n  D.device.http.get({ url: '/', port: ${closedPort} }, function (err) {\n    if (err) {\n      D.failure(D.errorType.RESOURCE_UNAVAILABLE);\n    }\n  });\n}`,
      { device: { ip: '127.0.0.1' }, filename: 'my_nas.js' },
    );
    expect(result.errorType).toBe('RESOURCE_UNAVAILABLE');
    expect(result.message).toBe('the driver called D.failure(RESOURCE_UNAVAILABLE) at my_nas.js:4:9');
  });

  it("D.failure names the line whatever the driver did to Error's stack hooks, and leaves them as the driver set them", async () => {
    const result = await runSource(
      host,
      `Error.stackTraceLimit = 0;\nError.prepareStackTrace = function () { return 'mine'; };\nfunction get_status() {\n  D.failure(D.errorType.PARSING_ERROR);\n  console.log(Error.stackTraceLimit + ' ' + new Error('x').stack);\n}`,
    );
    expect(result.message).toBe('the driver called D.failure(PARSING_ERROR) at driver.js:4:5');
    expect(result.logs).toEqual([{ level: 'log', message: '0 mine' }]);
  });

  it('D.failure called by a library with no frame of the driver on the stack: the message names no line', async () => {
    const result = await runSource(host, `function get_status() { D.q.reject(new Error('no')).fail(D.failure); }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('the driver called D.failure(GENERIC_ERROR)');
  });

  it('the file name in messages is the one given', async () => {
    const result = await runSource(host, `\nthrow new Error('named');`, { filename: 'my_nas.js' });
    expect(result.message).toBe('Error: named\n    at my_nas.js:2:7');
  });
});

describe('entry points and actions', () => {
  it('runs the requested action', async () => {
    const source = `function validate() { D.success([D.createVariable('which', 'W', 'validate')]); }
function get_status() { D.success([D.createVariable('which', 'W', 'get_status')]); }
function custom_2() { D.success([D.createVariable('which', 'W', 'custom_2')]); }`;
    for (const action of ['validate', 'get_status', 'custom_2']) {
      const result = await runSource(host, source, { action });
      expect(result.action).toBe(action);
      expect(result.variables[0].value).toBe(action);
    }
    const byDefault = await runSource(host, source);
    expect(byDefault.action).toBe('get_status');
    expect(byDefault.variables[0].value).toBe('get_status');
  });

  it('a missing entry point: failure naming the function and listing the defined ones', async () => {
    const result = await runSource(host, `function validate() { D.success(); }\nfunction custom_1() { D.success(); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toBe('the driver has no function get_status() to run (it defines: validate, custom_1)');
  });

  it('a driver with no entry point at all says so', async () => {
    const result = await runSource(host, `var get_status = 5;`, { action: 'get_status' });
    expect(result.message).toBe('the driver has no function get_status() to run (it defines no entry point)');
  });

  it('an unknown action: host.run rejects with UNKNOWN_ACTION', async () => {
    const run = runSource(host, `function get_status() { D.success(); }`, { action: 'reboot' });
    await expect(run).rejects.toBeInstanceOf(DriverboxError);
    await expect(run).rejects.toMatchObject({ code: 'UNKNOWN_ACTION', message: 'unknown action "reboot": use validate, get_status, backup or custom_1, custom_2, …' });
  });

  it.each(['custom_0', 'custom_', 'Validate', 'get_status '])('%j is not an action', async (action) => {
    await expect(runSource(host, `function get_status() { D.success(); }`, { action })).rejects.toMatchObject({ code: 'UNKNOWN_ACTION' });
  });

  it('a missing driver file: DRIVER_NOT_FOUND', async () => {
    const run = host.run({ path: '/nonexistent/dir/no_such_driver.js' });
    await expect(run).rejects.toBeInstanceOf(DriverboxError);
    await expect(run).rejects.toMatchObject({ code: 'DRIVER_NOT_FOUND', message: 'driver file not found: /nonexistent/dir/no_such_driver.js' });
  });
});

describe('require and import', () => {
  it("require('fs') fails the run with REQUIRE_NOT_ALLOWED and logs an error", async () => {
    const result = await runSource(host, `function get_status() { var fs = require('fs'); D.success(); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('REQUIRE_NOT_ALLOWED');
    expect(result.message).toBe('require("fs") is not allowed in a driver: everything a driver may use is on D');
    expect(result.logs).toEqual([{ level: 'error', message: 'require("fs") is not allowed in a driver: everything a driver may use is on D' }]);
    expect(result.warnings).toEqual([]);
  });

  it('require at top level too', async () => {
    const result = await runSource(host, `var http = require('http');\nfunction get_status() { D.success(); }`);
    expect(result.errorType).toBe('REQUIRE_NOT_ALLOWED');
  });

  it('catching the require error does not save the run', async () => {
    const result = await runSource(host, `function get_status() { try { require('child_process'); } catch (e) {} D.success(); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('REQUIRE_NOT_ALLOWED');
  });

  it("`import fs from 'fs'` fails with IMPORT_NOT_ALLOWED", async () => {
    const result = await runSource(host, `import fs from 'fs';\nfunction get_status() { D.success(); }`);
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('IMPORT_NOT_ALLOWED');
    expect(result.message).toBe('an import statement at driver.js:1:1 is not allowed in a driver: everything a driver may use is on D');
  });

  it("`import('fs')` fails with IMPORT_NOT_ALLOWED, naming its position", async () => {
    const result = await runSource(host, `function get_status() {\n  var m = import('fs');\n  D.success();\n}`);
    expect(result.errorType).toBe('IMPORT_NOT_ALLOWED');
    expect(result.message).toBe('import() at driver.js:2:11 is not allowed in a driver: everything a driver may use is on D');
  });

  it.each([
    ['import * as x', `import * as fs from 'fs';`],
    ['import with spaces', `var p = import  ( 'fs' );`],
    ['import.meta', `var u = import.meta.url;`],
  ])('%s is refused', async (_name, line) => {
    const result = await runSource(host, `${line}\nfunction get_status() { D.success(); }`);
    expect(result.errorType).toBe('IMPORT_NOT_ALLOWED');
  });

  it('"import(" inside strings and comments does not trigger the refusal', async () => {
    const result = await runSource(
      host,
      [
        `// import('fs') in a line comment`,
        `/* import fs from 'fs'; import('x') */`,
        `var a = "import('fs')", b = 'import fs from "fs"', c = \`import(\${a})\`;`,
        `var re = /import\\(/;`,
        `function get_status() { D.success([D.createVariable('s', 'S', a + '|' + re.test('import(x)') + '|' + c)]); }`,
      ].join('\n'),
    );
    expect(result.status).toBe('success');
    expect(result.variables[0].value).toBe("import('fs')|true|import(import('fs'))");
  });

  it('a property named import is not an import', async () => {
    const result = await runSource(host, `var o = { import: function () { return 'ok'; } };\nfunction get_status() { D.success([D.createVariable('r', 'R', o.import())]); }`);
    expect(result.status).toBe('success');
    expect(result.variables[0].value).toBe('ok');
  });
});
