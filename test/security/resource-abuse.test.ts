// Abuse of time, memory and output: each attack ends within its limits with the right
// errorType / limitExceeded, the host stays responsive and the next run is clean.
// Plain endless loops at top level, in the entry point and in q callbacks, the CPU budget and
// the memory bomb of small objects are in test/engine/limits.test.ts; the console flood of many
// small lines in test/d-library.test.ts.
import { describe, expect, it } from 'vitest';
import { useHost } from '../helpers/host.js';
import { attack, logged, reported } from './harness.js';

describe('security: resource abuse', () => {
  const host = useHost();

  it('R1 a string doubled without end at top level hits the memory limit', async () => {
    const r = await attack(host, `var s = 'x'; var keep = []; for (;;) { s = s + s; keep.push(s + '!'); }\nfunction get_status() { D.success(); }`, {
      limits: { memoryMb: 32, timeoutMs: 20_000 },
    });
    expect(r.status).toBe('failure');
    // V8 refuses a string past its maximum length with a RangeError, or the heap runs out first.
    if (r.limitExceeded === null) expect(r.message).toMatch(/RangeError: Invalid string length/);
    else expect(r.limitExceeded).toBe('memory');
  });

  it('R2 an array grown without end inside a callback hits the memory limit', async () => {
    const r = await attack(
      host,
      `function get_status() { D.q.delay(1).then(function () { var a = []; for (var i = 0; ; i++) a.push({ i: i, s: 'row ' + i }); }); }`,
      { limits: { memoryMb: 32, timeoutMs: 20_000 } },
    );
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('GENERIC_ERROR');
    expect(r.limitExceeded).toBe('memory');
    expect(r.message).toMatch(/memory limit of 32 MB/);
  });

  it('R3 unbounded recursion is a RangeError in the driver, not a crash', async () => {
    const r = await attack(host, `function down(n) { return down(n + 1) + 1; }\nfunction get_status() { D.device.http.get('/', function () {}); down(0); }`, {
      device: { ip: '127.0.0.1', portMap: { 80: 1 } },
    });
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('GENERIC_ERROR');
    expect(r.limitExceeded).toBeNull();
    expect(r.message).toMatch(/^RangeError: Maximum call stack size exceeded/);
  });

  it('R4 recursion through a getter while D.success reads the variables is contained too', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var v = D.createVariable('a', 'A', '1');
        Object.defineProperty(v, 'value', { get: function () { return this.value; } });
        D.success([v]);
      }`,
    );
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('GENERIC_ERROR');
    expect(r.message).toMatch(/RangeError: Maximum call stack size exceeded/);
  });

  it('R5 an endless chain of microtasks (promise jobs) is stopped at the deadline', async () => {
    // Each job queues the next and returns nothing: the heap stays flat, so only the deadline can end it.
    const r = await attack(host, `function get_status() { Promise.resolve().then(function spin() { Promise.resolve().then(spin); }); }`, {
      limits: { timeoutMs: 700 },
    });
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(r.limitExceeded).toBe('timeout');
  });

  it('R5b a chain of microtasks that also grows (each job resolves to the next) ends at whichever limit it meets first', async () => {
    // Every promise waits on the next one, so the pending chain grows ~100 MB a second: on a quick
    // machine the memory limit comes before the deadline, on a busy one the deadline does. Both
    // are the host's limits doing their job; what must never happen is anything else.
    const r = await attack(host, `function get_status() { Promise.resolve().then(function spin() { return Promise.resolve().then(spin); }); }`, {
      limits: { timeoutMs: 700, memoryMb: 64 },
    });
    expect(r.status).toBe('failure');
    expect(['timeout', 'memory']).toContain(r.limitExceeded);
    expect(r.errorType).toBe(r.limitExceeded === 'timeout' ? 'TIMEOUT_ERROR' : 'GENERIC_ERROR');
  });

  it('R6 an endless loop inside an HTTP callback is stopped at the deadline', async () => {
    const r = await attack(host, `function get_status() { D.device.http.get('/', function () { for (;;) {} }); }`, {
      device: { ip: '127.0.0.1', portMap: { 80: 1 } },
      limits: { timeoutMs: 700 },
    });
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(r.limitExceeded).toBe('timeout');
  });

  it('R7 a catastrophic regular expression is stopped by the CPU budget (or the deadline)', async () => {
    const r = await attack(host, `function get_status() { var m = /^(a+)+$/.test('a'.repeat(40) + '!'); D.success([D.createVariable('m', 'M', String(m))]); }`, {
      limits: { cpuTimeMs: 500, timeoutMs: 3_000 },
    });
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('TIMEOUT_ERROR');
    expect(['cpu', 'timeout']).toContain(r.limitExceeded);
    expect(r.variables).toEqual([]);
  });

  it('R8 D.success with cyclic data: a cyclic variable list, a cyclic value and a cyclic table cell', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var loop = { name: 'loop' }; loop.self = loop;
        var list = [D.createVariable('a', 'A', loop)];
        list[0].label = { toString: function () { return 'L'; }, self: list };
        var t = D.createTable('T', [{ label: 'c' }]);
        t.insertRecord('r1', [loop]);
        D.success(list, t);
      }`,
    );
    expect(r.status, r.message ?? '').toBe('success');
    expect(r.variables).toEqual([{ uid: 'a', label: 'L', value: '[object Object]', unit: null, valueType: 'STRING' }]);
    expect(r.tables[0]!.rows).toEqual([['r1', '[object Object]']]);
  });

  it('R9 D.success with huge data: 100,000 variables fail the run; 500 values of 1 MB are cut, with a bounded list of warnings', async () => {
    const many = await attack(host, `function get_status() { var l = []; for (var i = 0; i < 100000; i++) l.push({ uid: 'v' + i }); D.success(l); }`);
    expect(many.errorType).toBe('TOO_MANY_VARIABLES_ERROR');
    expect(many.variables).toEqual([]);

    const big = await attack(
      host,
      `function get_status() { var mb = 'z'.repeat(1 << 20); var l = []; for (var i = 0; i < 500; i++) l.push(D.createVariable('v' + i, 'V', mb)); D.success(l); }`,
      { limits: { memoryMb: 128 } },
    );
    expect(big.status, big.message ?? '').toBe('success');
    expect(big.variables).toHaveLength(500);
    expect(big.variables.every((v) => v.value!.length === 500)).toBe(true);
    expect(big.warnings.length).toBeLessThanOrEqual(200);
  });

  it('R10 one console line of 20 million characters is cut to maxLogChars', async () => {
    const r = await attack(
      host,
      `function get_status() {
        console.log('before');
        console.log('y'.repeat(20000000));
        console.log('after');
        D.success();
      }`,
      { limits: { maxLogChars: 1_000 } },
    );
    expect(r.status, r.message ?? '').toBe('success');
    const total = r.logs.reduce((n, l) => n + l.message.length, 0);
    expect(total).toBeLessThanOrEqual(1_000);
    expect(r.logs.map((l) => l.message).join('\n')).not.toContain('after');
    expect(r.warnings.filter((w) => /log limit of 1000 characters reached/.test(w))).toHaveLength(1);
  });

  it('R11 a flood of warnings (100,000 missing parameters) keeps at most 200', async () => {
    const r = await attack(host, `function get_status() { for (var i = 0; i < 100000; i++) D.getParameter('p' + i); D.success(); }`);
    expect(r.status).toBe('success');
    expect(r.warnings.length).toBeLessThanOrEqual(200);
  });

  it('R12 an uncaught error with a 30-million-character message does not carry it whole into the result', async () => {
    const r = await attack(host, `function get_status() { throw new Error('m'.repeat(30000000)); }`);
    expect(r.status).toBe('failure');
    expect(r.errorType).toBe('GENERIC_ERROR');
    expect(r.message!.length).toBeLessThanOrEqual(10_000);
    expect(r.message!.startsWith("Error: mmm")).toBe(true);
    expect(r.message).toMatch(/… \(cut: the message had 300000\d\d characters\)$/);
  });

  it('R13 D.crypto.pbkdf2Sync with a billion iterations or a gigabyte key is refused (it would run outside every time limit)', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var out = [];
        [[1e9, 32], [1, 1e9], [1000, 32]].forEach(function (c) {
          try { var k = D.crypto.pbkdf2Sync('pw', 'salt', c[0], c[1], 'sha512'); out.push('ok ' + k.length); } catch (e) { out.push(e.message); }
        });
        console.log(JSON.stringify(out));
        D.success();
      }`,
      { limits: { timeoutMs: 5_000 } },
    );
    const out = logged<string[]>(r);
    expect(out[0]).toMatch(/iterations × hash blocks \(1000000000 × 1 of sha512\) is past the limit of 2000000/);
    expect(out[1]).toMatch(/keyLength 1000000000 is past the limit of 1024 bytes/);
    expect(out[2]).toBe('ok 32');
  });

  it('R14 ciphers cannot pile up on the host: the 257th in one run is refused', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var made = 0, error = null;
        for (var i = 0; i < 300 && !error; i++) {
          try { D.crypto.createCipher('aes-128-cbc', '0123456789abcdef', '0123456789abcdef'); made++; } catch (e) { error = e.message; }
        }
        D.success([D.createVariable('found', 'Found', made + ':' + error)]);
      }`,
    );
    expect(reported(r)).toMatch(/^256:.*too many ciphers/);
  });
});
