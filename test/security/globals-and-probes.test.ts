// What a driver's global scope holds and what it can do with it: probes for Node and
// isolated-vm, require / import in forms the scanner cannot see, shared memory and
// WebAssembly, and prototype pollution or replaced intrinsics before calling D.* (D must
// still do its job, the host must accept only a well-formed report, the next run is clean).
import { describe, expect, it } from 'vitest';
import { useDeviceServer } from '../helpers/device-server.js';
import { useHost } from '../helpers/host.js';
import { runInHostProcess } from '../helpers/host-process.js';
import { attack, logged, reported } from './harness.js';

describe('security: globals and probes', () => {
  const host = useHost();
  const server = useDeviceServer();
  const device = server.target;

  it('G1 Node and isolated-vm globals are absent; the runtime\'s install hook is gone', async () => {
    const r = await attack(
      host,
      `var names = ['process', 'module', 'exports', 'global', 'Buffer', 'setImmediate', 'queueMicrotask', 'fetch', 'ivm', '_ivm', 'isolatedVm',
        'Reference', 'ExternalCopy', '__driverboxInstall', '__driverboxLib', '__dirname', 'WebAssembly'];
      var present = names.filter(function (n) { return typeof globalThis[n] !== 'undefined' || typeof this[n] !== 'undefined'; }, this);
      function get_status() { D.success([D.createVariable('found', 'Found', present.join('|') + ';' + (this === globalThis))]); }`,
    );
    expect(reported(r)).toBe(';true');
  });

  it('G2 require() ends the run with REQUIRE_NOT_ALLOWED even when the driver catches it and reports success', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var cp = null;
        try { cp = require('child_process'); } catch (e) {}
        D.success([D.createVariable('found', 'Found', String(cp))]);
      }`,
    );
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('REQUIRE_NOT_ALLOWED');
    expect(r.variables).toEqual([]);
    expect(r.warnings.some((w) => /D\.success came after the run had already ended/.test(w))).toBe(true);
  });

  it('G3 import() the scanner cannot see (eval, new Function, a built string) is refused by the isolate: nothing is loaded', async () => {
    const r = await attack(
      host,
      `function attempt(label, make) {
        return new Promise(function (resolve) {
          try { make().then(function (m) { resolve(label + ':loaded ' + typeof m); }, function (e) { resolve(label + ':refused'); }); }
          catch (e) { resolve(label + ':threw ' + e.name); }
        });
      }
      var word = 'imp' + 'ort';
      function get_status() {
        Promise.all([
          attempt('eval', function () { return eval(word + '("node:fs")'); }),
          attempt('Function', function () { return new Function('return ' + word + '("node:child_process")')(); }),
          attempt('meta', function () { return Promise.resolve(new Function('return ' + word + '.meta')()); }),
        ]).then(function (outcomes) { D.success([D.createVariable('found', 'Found', outcomes.join(','))]); });
      }`,
    );
    expect(reported(r)).toBe('eval:refused,Function:refused,meta:threw SyntaxError');
  });

  it('G4 SharedArrayBuffer and Atomics.wait are not there (removed: see K-cases in sandbox-globals); a busy wait is stopped at the deadline', async () => {
    const r = await attack(
      host,
      `var found = [typeof SharedArrayBuffer, typeof Atomics.wait, typeof Atomics.waitAsync].join(',');
      function get_status() {
        D.device.http.post({ url: '/echo', body: new Int32Array(1).buffer }, function () {
          D.createVariable('found', 'Found', found);
          while (true) {}                          // nobody will ever notify
        });
      }`,
      { device: device(), limits: { timeoutMs: 800 } },
    );
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(r.limitExceeded).toBe('timeout');
    // The buffer crossed as JSON text: an empty object, not memory.
    expect(server.seen.at(-1)!.body).toBe('{}');
  });

  it('G5 ArrayBuffer and typed array allocations past the memory limit fail inside the driver', async () => {
    const r = await attack(
      host,
      `var out = [];
      [function () { return new ArrayBuffer(1e9); }, function () { return new ArrayBuffer(1, { maxByteLength: 1e9 }); }, function () { return new Float64Array(2e8); }]
        .forEach(function (make) { try { out.push('got ' + make().byteLength); } catch (e) { out.push(e.name); } });
      function get_status() { D.success([D.createVariable('found', 'Found', out.join(','))]); }`,
      { limits: { memoryMb: 32 } },
    );
    // The second: the options are ignored (no resizable buffers), so a fixed buffer of 1 byte.
    expect(reported(r)).toBe('RangeError,got 1,RangeError');
  });

  it('G6 WebAssembly is not available, so its memory (outside the heap limit) cannot be grown to gigabytes of the host', async () => {
    const r = await attack(
      host,
      `var out = [typeof WebAssembly, Object.getOwnPropertyNames(globalThis).indexOf('WebAssembly')];
      try { new Function('return WebAssembly')(); out.push('reached'); } catch (e) { out.push(e.name); }
      function get_status() { D.success([D.createVariable('found', 'Found', out.join(','))]); }`,
      { limits: { memoryMb: 32 } },
    );
    expect(reported(r)).toBe('undefined,-1,ReferenceError');
  });

  it('G7 Object / Array / Function prototypes polluted (enumerable junk, setters, replaced call/apply/bind) before D.*: D still works', async () => {
    const before = server.seen.length;
    const r = await attack(
      host,
      `var hits = [];
      Object.prototype.pwned = 'x';
      Array.prototype.pwned = function () {};
      Array.prototype.extra = 'junk';
      ['uid', 'value', 'label', 'status', 'level', 'message', 'id', 'url', 'target', 'method', 'options', 'body', 'rows', 'variables'].forEach(function (k) {
        var d = Object.create(null); // a plain {} would now inherit the polluted 'value'
        d.configurable = true; d.set = function (v) { hits.push(k); }; d.get = function () { return 'polluted-' + k; };
        Object.defineProperty(Object.prototype, k, d);
      });
      Function.prototype.call = function () { hits.push('call'); };
      Function.prototype.apply = function () { hits.push('apply'); };
      Function.prototype.bind = function () { hits.push('bind'); return function () {}; };
      function get_status() {
        var table = D.createTable('Disks', [{ label: 'Name' }, { label: 'Size', unit: 'GB', valueType: D.valueType.NUMBER }]);
        table.insertRecord('d1', ['sda', 120]);
        D.device.http.get({ url: '/echo?x=1', json: true, headers: { 'x-test': 'yes' } }, function (err, res, body) {
          var v = D.createVariable('url', 'URL', body.url);
          D.success([v, D.createVariable('hits', 'Hits', hits.join('|') || 'none')], table);
        });
      }`,
      { device: device() },
    );
    expect(r.status, r.message ?? '').toBe('success');
    expect(r.variables).toEqual([
      { uid: 'url', label: 'URL', value: '/echo?x=1', unit: null, valueType: 'STRING' },
      { uid: 'hits', label: 'Hits', value: 'none', unit: null, valueType: 'STRING' },
    ]);
    expect(r.tables).toEqual([
      { label: 'Disks', columnHeaders: [{ label: 'Name', unit: null, valueType: 'STRING' }, { label: 'Size', unit: 'GB', valueType: 'NUMBER' }], rows: [['d1', 'sda', '120']] },
    ]);
    const seen = server.seen.slice(before);
    expect(seen.map((s) => [s.url, s.headers['x-test']])).toEqual([['/echo?x=1', 'yes']]);
  });

  it('G8 JSON.stringify / JSON.parse replaced before D.*: what D sends and receives is unchanged', async () => {
    const r = await attack(
      host,
      `JSON.stringify = function () { return '{"status":"success","errorType":null,"message":null,"variables":[{"uid":"x","label":"x","value":"forged","unit":null,"valueType":"NUMBER"}],"tables":[]}'; };
      JSON.parse = function () { return { url: 'http://192.0.2.1/forged' }; };
      function get_status() {
        console.log('plain', { a: 1 });
        D.device.http.get({ url: '/echo', json: true }, function (err, res, body) {
          D.success([D.createVariable('found', 'Found', body.url)]);
        });
      }`,
      { device: device() },
    );
    expect(r.variables).toEqual([{ uid: 'found', label: 'Found', value: '/echo', unit: null, valueType: 'STRING' }]);
    expect(r.logs).toEqual([{ level: 'log', message: 'plain {"a":1}' }]);
  });

  it('G9 a report forged through Object.prototype.toJSON (600 huge variables, an unknown status) is refused by the host', async () => {
    const r = await attack(
      host,
      `var big = [];
      for (var i = 0; i < 600; i++) big.push({ uid: 'v' + i, label: 'x', value: 'y'.repeat(10000), unit: null, valueType: 'STRING' });
      Object.prototype.toJSON = function () {
        if (this.status === 'success' && !this.forged) return { forged: true, status: 'success', errorType: null, message: null, variables: big, tables: [] };
        return this;
      };
      function get_status() { D.success([D.createVariable('a', 'A', '1')]); }`,
      { limits: { maxVariables: 500 } },
    );
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('GENERIC_ERROR');
    expect(r.message).toMatch(/^the run's report to the host was refused .*variables has 600 entries; at most 500/);
    expect(r.variables).toEqual([]);
  });

  it('G10 forged reports that pass the count but break a field rule are refused too (valueType, value length, status, table rows)', async () => {
    const forge = (report: string) =>
      attack(
        host,
        `var forged = ${report};
        Object.prototype.toJSON = function () { return this.status && !this.forged ? Object.assign({ forged: true }, forged) : this; };
        function get_status() { D.success([D.createVariable('a', 'A', '1')]); }`,
        { limits: { maxTableRows: 2 } },
      );
    const base = `status: 'success', errorType: null, message: null, tables: []`;
    const cases: Array<[string, RegExp]> = [
      [`{ ${base}, variables: [{ uid: 'a', label: 'A', value: '1', unit: null, valueType: 'NUMBERS' }] }`, /variables\[0\]\.valueType "NUMBERS" is not one of/],
      [`{ ${base}, variables: [{ uid: 'a', label: 'A', value: 'z'.repeat(501), unit: null, valueType: 'STRING' }] }`, /variables\[0\]\.value must be a string of 0 to 500/],
      [`{ ${base}, variables: [{ uid: 'a/table', label: 'A', value: '1', unit: null, valueType: 'STRING' }] }`, /reserved word/],
      [`{ status: 'pwned', errorType: null, message: null, variables: [], tables: [] }`, /status "pwned" is neither/],
      [`{ status: 'failure', errorType: 'ROOT_ERROR', message: null, variables: [], tables: [] }`, /errorType "ROOT_ERROR" is not one of/],
      [`{ status: 'success', errorType: null, message: null, variables: [], tables: [{ label: 'T', columnHeaders: [{ label: 'c', unit: null, valueType: 'STRING' }], rows: [['1', 'a'], ['2', 'b'], ['3', 'c']] }] }`, /tables\[0\]\.rows has 3 entries; at most 2/],
    ];
    for (const [report, message] of cases) {
      const r = await forge(report);
      expect(r.status, report).toBe('failure');
      expect(r.errorType).toBe('GENERIC_ERROR');
      expect(r.message).toMatch(message);
      expect(r.variables).toEqual([]);
      expect(r.tables).toEqual([]);
    }
  });

  it('G11 the hidden scheduler q uses gives the driver nothing past its run: odd delays, a flood of timers, all gone at the deadline', async () => {
    const r = await attack(
      host,
      `var s = globalThis[Symbol.for('driverbox.scheduler')];
      function get_status() {
        var fired = 0;
        [-1, NaN, Infinity, 1e12, '5'].forEach(function (ms) { s.setTimeout(function () { fired++; }, ms); });
        // A flood stops at the run's maxTimers (every timer counts, q's too): a RangeError the driver may catch.
        var started = 0, stopped = null;
        try {
          for (var i = 0; i < 20000; i++) { s.setTimeout(function () {}, 60000); started++; }
        } catch (e) { stopped = e.name; }
        console.log(JSON.stringify({ type: typeof s.setTimeout, started: started, stopped: stopped }));
      }`,
      { limits: { timeoutMs: 600 } },
    );
    expect(logged(r)).toEqual({ type: 'function', started: 1000 - 5, stopped: 'RangeError' });
    // Timers never end a run: it times out at its deadline, like any driver that never reports.
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(r.limitExceeded).toBe('timeout');
  });

  it('G12 a host process run with --expose-gc does not hand gc() to drivers', () => {
    // The flag is process-wide, so this needs a process of its own.
    const out = runInHostProcess(
      `const host = createHost({ threads: 1, warmIsolates: 1 });
      const r = await host.run({ device: { ip: '127.0.0.1' }, source:
        "function get_status() { var called; try { gc(); called = 'called'; } catch (e) { called = e.name; } D.success([D.createVariable('gc', 'gc', typeof gc + ';' + called)]); }" });
      console.log(JSON.stringify({ host: typeof gc, driver: r.variables[0]?.value ?? r.message }));
      await host.close();`,
      ['--expose-gc'],
    );
    expect(out).toEqual({ host: 'function', driver: 'undefined;TypeError' });
  });
});
