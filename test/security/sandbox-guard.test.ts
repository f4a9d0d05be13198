// Driver values never leave the isolate except as text the runtime made under the run's limits
// (issue 17, causes 2, 4, 5, 6): what a driver throws or leaves as its script's last value, at
// the top level, in its entry point or in a callback, however hostile (getters that loop or
// throw, Proxies, revoked Proxies, Symbols, deep cause chains, a Proxy in the prototype chain);
// a driver that replaces the built-ins the runtime uses; forged reports and payloads; table
// cells; host work past the deadline; and what a driver sees of stacks.
import { describe, expect, it } from 'vitest';
import { useDeviceServer } from '../helpers/device-server.js';
import { useHost } from '../helpers/host.js';
import { attack, reported } from './harness.js';

/** Runs the attack and checks it ended within `deadline` plus `slack` ms. */
async function timed(run: Promise<import('../../host/index.js').RunResult>, deadlineMs: number, slackMs = 2_500) {
  const started = performance.now();
  const result = await run;
  expect(performance.now() - started).toBeLessThan(deadlineMs + slackMs);
  return result;
}

describe('security: the sandbox guard', () => {
  const host = useHost();
  const server = useDeviceServer();
  const device = server.target;
  const limits = { timeoutMs: 1_000 };

  describe('K1 a thrown value whose getters loop ends the run at its deadline, wherever it is thrown', () => {
    const looping = `{ get message() { while (true) {} } }`;
    it.each([
      ['at the top level', `throw ${looping};`],
      ['in the entry point', `function get_status() { throw ${looping}; }`],
      ['in a timer callback', `function get_status() { D.q.delay(1).then(function () { throw ${looping}; }).done(); }`],
      ['in an HTTP callback', `function get_status() { D.device.http.get('/echo', function () { throw ${looping}; }); }`],
      ['an Error whose stack getter loops', `var e = new Error('x'); Object.defineProperty(e, 'stack', { get: function () { while (true) {} } }); throw e;`],
      ['an Error whose name getter loops', `var e = new Error('x'); Object.defineProperty(e, 'name', { get: function () { while (true) {} } }); throw e;`],
      ['a Proxy whose every trap loops', `throw new Proxy({}, { get: function () { while (true) {} }, getPrototypeOf: function () { while (true) {} }, ownKeys: function () { while (true) {} } });`],
      ['Error.prepareStackTrace that loops', `Error.prepareStackTrace = function () { while (true) {} }; throw new Error('x');`],
      ['a toString that loops on a thrown object', `throw { toString: function () { while (true) {} }, toJSON: function () { while (true) {} } };`],
    ])('%s', async (_where, source) => {
      const r = await timed(attack(host, source, { device: device(), limits }), limits.timeoutMs);
      expect(r.status).toBe('failure');
      expect(r.errorType).toBe('TIMEOUT_ERROR');
      expect(r.limitExceeded).toBe('timeout');
    });
  });

  describe('K2 a thrown value that cannot be shown as usual is described as text, never hangs, never crashes', () => {
    it.each([
      ['a Symbol', `throw Symbol('sym');`, /^Uncaught Symbol\(sym\)$/],
      ['a BigInt', `throw 12n;`, /^Uncaught 12$/],
      ['undefined', `throw undefined;`, /^Uncaught undefined$/],
      ['a revoked Proxy', `var p = Proxy.revocable({}, {}); p.revoke(); throw p.proxy;`, /^Uncaught a value that cannot be shown as text$/],
      ['getters that throw', `throw { get message() { throw new Error('no'); }, get stack() { throw 1; }, get name() { throw 2; }, toString: function () { throw 3; } };`, /^Uncaught a value that cannot be shown as text$/],
      ['an object whose prototype chain is a throwing Proxy', `throw Object.create(new Proxy({}, { get: function () { throw new Error('trap'); }, getPrototypeOf: function () { throw new Error('trap'); } }));`, /^Uncaught /],
      ['an Error with a 10000-deep cause chain', `var e = new Error('deep'); for (var i = 0; i < 10000; i++) e = new Error('level ' + i, { cause: e }); throw e;`, /^Error: level 9999\n    at driver\.js:1:/],
      ['an Error whose message is an object with a throwing toString', `var e = new Error('x'); e.message = { toString: function () { throw new Error('t'); } }; throw e;`, /^Error: \n    at driver\.js:1:/],
      ['a 20-million-character string', `throw 'x'.repeat(2e7);`, /^Uncaught x{9000,}… \(cut: the message had 20000009 characters\)$/],
      ['a function', `throw function secret() {};`, /^Uncaught function secret\(\) \{\}$/],
    ])('%s', async (_what, source, message) => {
      const r = await timed(attack(host, source, { limits }), limits.timeoutMs);
      expect(r.status).toBe('failure');
      expect(r.errorType).toBe('GENERIC_ERROR');
      expect(r.limitExceeded).toBe(null);
      expect(r.message).toMatch(message);
      expect(r.message!.length).toBeLessThanOrEqual(10_000);
    });
  });

  describe("K3 the script's last value is never copied out of the isolate", () => {
    it.each([
      ['a Proxy whose traps loop', `function get_status() { D.success([D.createVariable('found', 'Found', 'ran')]); }\nnew Proxy({}, { get: function () { while (true) {} }, ownKeys: function () { while (true) {} }, getPrototypeOf: function () { while (true) {} } });`],
      ['an object with looping getters', `function get_status() { D.success([D.createVariable('found', 'Found', 'ran')]); }\n({ get a() { while (true) {} }, get then() { while (true) {} } });`],
      ['a huge array', `function get_status() { D.success([D.createVariable('found', 'Found', 'ran')]); }\nnew Array(5e6).fill({ a: 1 });`],
    ])('%s', async (_what, source) => {
      // Filling 5e6 slots takes a loaded machine near a second: a deadline that leaves room for
      // it (a copy of the last value would still not finish in it).
      const k3Limits = { timeoutMs: 5_000 };
      const r = await timed(attack(host, source, { limits: k3Limits }), k3Limits.timeoutMs);
      expect(r.status, r.message ?? '').toBe('success');
      expect(reported(r)).toBe('ran');
    });

    it('a strict-mode driver and a driver whose entry point is a const still run', async () => {
      const strict = await attack(host, `'use strict';\nfunction get_status() { D.success([D.createVariable('found', 'Found', typeof this)]); }`);
      expect(reported(strict)).toBe('undefined');
      const constant = await attack(host, `const get_status = () => D.success([D.createVariable('found', 'Found', 'const')]);`);
      expect(reported(constant)).toBe('const');
    });
  });

  describe('K4 a driver that replaces the built-ins the runtime uses still gets a well-formed run', () => {
    const pollute = `
      Array.prototype.join = function () { return 'garbage'; };
      Array.prototype.push = function () { throw new Error('push'); };
      Array.prototype.map = function () { return ['garbage']; };
      Array.prototype[Symbol.iterator] = function () { throw new Error('iterator'); };
      Array.isArray = function () { return false; };
      String.prototype.slice = function () { return 'garbage'; };
      String.prototype.split = function () { return ['garbage']; };
      String.prototype.indexOf = function () { return -1; };
      String.prototype.includes = function () { return false; };
      String.prototype.trim = function () { return 'garbage'; };
      Map.prototype.get = function () { return undefined; };
      Map.prototype.set = function () { return this; };
      Set.prototype.has = function () { return true; };
      Object.keys = function () { return ['garbage']; };
      JSON.stringify = function () { return '"garbage"'; };
      JSON.parse = function () { return 'garbage'; };
      globalThis.String = function () { return 'garbage'; };
      Function.prototype.call = function () { throw new Error('call'); };
      Function.prototype.apply = function () { throw new Error('apply'); };
    `;

    it('an HTTP request, its answer, variables and a table', async () => {
      const r = await attack(
        host,
        `function get_status() {
          var table = D.createTable('T', [{ label: 'a' }]);
          table.insertRecord('r1', ['cell']);
          var v = D.createVariable('found', 'Found', 'before');
          ${pollute}
          D.device.http.get('/echo', function (err, res) {
            v.value = err ? 'error ' + err.message : 'status ' + res.statusCode;
            D.success([v], table);
          });
        }`,
        { device: device(), limits: { timeoutMs: 3_000 } },
      );
      expect(r.status, r.message ?? '').toBe('success');
      expect(reported(r)).toBe('status 200');
      expect(r.tables[0]!.rows).toEqual([['r1', 'cell']]);
    });

    it('an error thrown after the pollution is still described', async () => {
      const r = await attack(host, `function get_status() { ${pollute} throw new TypeError('after pollution'); }`, { limits });
      expect(r.status).toBe('failure');
      expect(r.message).toMatch(/^TypeError: after pollution\n    at get_status \(driver\.js:\d+:\d+\)/);
    });
  });

  describe('K5 a forged report: only the checked fields reach the result', () => {
    it('an inherited toJSON that adds a deeply nested extra field', async () => {
      const r = await attack(
        host,
        `function get_status() {
          var deep = []; for (var i = 0; i < 2000; i++) deep = [deep];
          Object.prototype.toJSON = function () {
            if (this.status !== 'success') return this;
            delete Object.prototype.toJSON;
            return { status: 'success', errorType: null, message: null, extra: deep,
              variables: [{ uid: 'found', label: 'Found', value: 'forged', unit: null, valueType: 'STRING', extra: deep }],
              tables: [{ label: 'T', columnHeaders: [{ label: 'a', unit: null, valueType: 'STRING', extra: deep }], rows: [['r', 'x']], extra: deep }] };
          };
          D.success([]);
        }`,
        { limits },
      );
      expect(r.status).toBe('success');
      expect(reported(r)).toBe('forged');
      expect(JSON.stringify(r)).not.toContain('extra');
      expect(r.tables[0]).toEqual({ label: 'T', columnHeaders: [{ label: 'a', unit: null, valueType: 'STRING' }], rows: [['r', 'x']] });
    });

    it('a toJSON that throws or nests past the stack still ends the run with a clear failure', async () => {
      for (const body of [`throw new Error('no json');`, `return d;`]) {
        const r = await attack(host, `var d = [[1]]; function get_status() { Array.prototype.toJSON = function () { ${body} }; D.success([D.createVariable('a', 'A', 1)]); }`, { limits });
        expect(r.status).toBe('failure');
        expect(r.errorType).toBe('GENERIC_ERROR');
        expect(r.message).toMatch(/^the run's outcome \(D\.success\) could not be sent to the host/);
      }
    });

    it('a report with an over-long table cell or a wrong type is refused, not stored', async () => {
      const r = await attack(
        host,
        `function get_status() {
          Object.prototype.toJSON = function () {
            if (this.status !== 'success') return this;
            delete Object.prototype.toJSON;
            return { status: 'success', errorType: null, message: null, variables: [],
              tables: [{ label: 'T', columnHeaders: [{ label: 'a', unit: null, valueType: 'STRING' }], rows: [['r', 'x'.repeat(40000)]] }] };
          };
          D.success([]);
        }`,
        { limits },
      );
      expect(r.status).toBe('failure');
      expect(r.message).toMatch(/report to the host was refused.*tables\[0\]\.rows\[0\]\[1\] must be a string of 0 to 500 characters/);
    });
  });

  describe('K6 payloads the host cannot take are refused to the driver, the run goes on', () => {
    it('request options nested deeper than the host accepts', async () => {
      const r = await attack(
        host,
        `function get_status() {
          var deep = {}; for (var i = 0; i < 300; i++) deep = { d: deep };
          D.device.http.post({ url: '/echo', json: deep }, function (err) {
            D.success([D.createVariable('found', 'Found', err ? err.message : 'sent')]);
          });
        }`,
        { device: device(), limits },
      );
      expect(r.status, r.message ?? '').toBe('success');
      expect(reported(r)).toBe('the request options are nested more than 256 levels deep');
    });

    it('request options nested past the stack', async () => {
      const r = await attack(
        host,
        `function get_status() {
          var deep = {}; for (var i = 0; i < 1e6; i++) deep = { d: deep };
          try { D.device.http.post({ url: '/echo', json: deep }, function () {}); } catch (e) { D.success([D.createVariable('found', 'Found', e.name + ': ' + e.message)]); }
        }`,
        { device: device(), limits },
      );
      expect(reported(r)).toMatch(/^TypeError: D\.device\.http\.post: options must be plain data \(Maximum call stack size exceeded\)$/);
    });

    it('a crypto call forged through toJSON', async () => {
      const r = await attack(
        host,
        `function get_status() {
          var once = true;
          Object.prototype.toJSON = function () { if (!once) return this; once = false; return { fn: 'hash', args: [{ s: { toString: 1 } }, { v: {} }] }; };
          try { D.crypto.hash('x', 'sha256', 'utf8', 'hex'); } catch (e) { delete Object.prototype.toJSON; D.success([D.createVariable('found', 'Found', e.message + '|' + e.stack)]); }
        }`,
        { limits },
      );
      expect(reported(r)).toMatch(/^D\.crypto: malformed argument\|Error: D\.crypto: malformed argument\n    at get_status \(driver\.js:4:/);
    });
  });

  it('K7 table cells are cut to the bound of a variable value, with a warning', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var t = D.createTable('T', [{ label: 'a' }, { label: 'b' }]);
        t.insertRecord('r1', ['x'.repeat(40000), 'short']);
        t.upsertRecord('r1', ['y'.repeat(600), null]);
        t.insertRecord('r2', ['z'.repeat(501), 5]);
        D.success([], t);
      }`,
    );
    expect(r.status, r.message ?? '').toBe('success');
    expect(r.tables[0]!.rows).toEqual([
      ['r1', 'y'.repeat(500), null],
      ['r2', 'z'.repeat(500), '5'],
    ]);
    expect(r.warnings).toEqual(
      expect.arrayContaining([
        'value of column "a" of record "r1" in table "T" is 40000 characters long; cut to the limit of 500',
        'value of column "a" of record "r2" in table "T" is 501 characters long; cut to the limit of 500',
      ]),
    );
  });

  it('K8 host work (pbkdf2) that runs past the deadline ends the run with TIMEOUT_ERROR', async () => {
    const r = await timed(
      attack(host, `function get_status() { for (var i = 0; i < 50; i++) D.crypto.pbkdf2Sync('pw', 'salt', 200000, 1, 'sha512'); D.success(); }`, { limits: { timeoutMs: 300 } }),
      300,
    );
    expect(r.status).toBe('failure');
    // Either the host ends the run after a derivation that took it past its deadline, or
    // (once the rate is learnt) the derivation is refused before it starts, naming the time left.
    if (r.errorType === 'TIMEOUT_ERROR') expect(r.limitExceeded).toBe('timeout');
    else expect(r.message).toMatch(/would take about \d+ ms, more than the \d+ ms left of the run's time limit/);
  });

  it('K8b D.crypto work is refused once it would outlast the run, so a driver that swallows the refusals still ends by its deadline', async () => {
    const started = Date.now();
    const r = await attack(
      host,
      `function get_status() {
        var done = 0, refused = 0;
        for (var i = 0; i < 20; i++) {
          try { D.crypto.pbkdf2Sync('pw', 'salt', 1000000, 32, 'sha256'); done++; } catch (e) { refused++; }
        }
        D.success([D.createVariable('done', 'Done', String(done)), D.createVariable('refused', 'Refused', String(refused))]);
      }`,
      { limits: { timeoutMs: 1_000 } },
    );
    // Before: every call ran (~0.2-0.4 s each) and the run answered after seconds, past its deadline.
    expect(Date.now() - started).toBeLessThan(1_000 + 1_500);
    if (r.status === 'success') expect(Number(reported(r, 'refused'))).toBeGreaterThan(0);
    else expect(r.errorType).toBe('TIMEOUT_ERROR');
  });

  describe('K9 a driver sees its own stack frames only, never the runtime\'s nor host paths', () => {
    const hostPath = /node_modules|\/work\/|driverbox:|core\.js|host\/|\.ts:/;
    it.each([
      ['a D.* argument error', `try { D.createVariable(null); } catch (e) { found = e.stack; }`],
      ['a table error', `try { D.createTable('T', []); } catch (e) { found = e.stack; }`],
      ['an HTTP call without a callback', `try { D.device.http.get('/x'); } catch (e) { found = e.stack; }`],
      ['a refused external device', `try { D.createExternalDevice('999.1.1.1'); D.createExternalDevice('xn--a'); found = 'allowed'; } catch (e) { found = e.stack; }`],
      ['a crypto error', `try { D.crypto.hash('x', 'no-such-algorithm'); } catch (e) { found = e.stack; }`],
      ['a library that cannot be loaded (a broken Function.prototype)', `try { Object.defineProperty(Object.prototype, '__driverboxLib', { set: function () { throw new Error('lib'); } }); D._.chunk([1], 1); found = 'loaded'; } catch (e) { found = e.stack; }`],
    ])('%s', async (_what, body) => {
      const r = await attack(host, `function get_status() { var found = ''; ${body} console.log(found); D.success([D.createVariable('found', 'Found', String(found).slice(0, 500))]); }`, {
        externalHosts: () => false,
      });
      const seen = `${r.message ?? ''}\n${reported(r) ?? ''}\n${r.logs.map((l) => l.message).join('\n')}`;
      expect(seen).not.toMatch(hostPath);
      if (reported(r) !== 'allowed' && reported(r) !== 'loaded') expect(reported(r)).toMatch(/\n    at get_status \(driver\.js:1:\d+\)$/);
    });

    it('require(): the refusal in the result and the logs', async () => {
      const r = await attack(host, `function get_status() { try { require('fs'); } catch (e) { console.log(e.stack); } }`);
      expect(r.errorType).toBe('REQUIRE_NOT_ALLOWED');
      expect(r.logs.map((l) => l.message).join('\n')).toMatch(/Error: require\("fs"\) is not allowed in a driver: everything a driver may use is on D\n    at get_status \(driver\.js:1:\d+\)$/);
      expect(`${r.message}\n${r.logs.map((l) => l.message).join('\n')}`).not.toMatch(hostPath);
    });

    it('the RunResult message of an uncaught D error and a logged Error carry driver frames only', async () => {
      const r = await attack(host, `function get_status() { console.log(new Error('logged')); D.createVariable('x'.repeat(60)); }`);
      expect(r.message).toMatch(/^RangeError: Invalid variable uid: "x{60}" is 60 characters long \(1 to 50 allowed\)\n    at get_status \(driver\.js:1:\d+\)$/);
      expect(r.logs[0]!.message).toMatch(/^Error: logged\n    at get_status \(driver\.js:1:\d+\)$/);
    });
  });
});
