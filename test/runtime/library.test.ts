// The rest of D that real drivers use: parameters, device info, q, lodash, cheerio, crypto,
// buffers, math, the console (levels, formatting, volume limit), and a fresh context per run.
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunRequest } from '../../host/index.js';
import { runSource, useHost } from '../helpers/host.js';

const host = useHost();

/**
 * Runs `expr` (a JS expression, evaluated in get_status) and returns what it evaluated to,
 * carried out through a variable as JSON.
 */
async function evaluate(expr: string, request: Omit<RunRequest, 'source'> = {}): Promise<unknown> {
  const result = await runSource(host, `function get_status() {\n  var out = (${expr});\n  D.success([D.createVariable('out', 'Out', JSON.stringify(out === undefined ? '<undefined>' : out))]);\n}`, request);
  expect(result.message).toBeNull();
  expect(result.status).toBe('success');
  return JSON.parse(result.variables[0].value!);
}

/** Runs a get_status body that ends with D.success(vars) itself; returns uid → value. */
async function values(body: string, request: Omit<RunRequest, 'source'> = {}) {
  const result = await runSource(host, `function get_status() {\n${body}\n}`, request);
  expect(result.message).toBeNull();
  expect(result.status).toBe('success');
  return { result, values: Object.fromEntries(result.variables.map((v) => [v.uid, v.value])) };
}

describe('D.getParameter', () => {
  const parameters = { vmNames: ['web', 'db'], port: 8443, name: 'nas-1', nested: { a: [1, { b: true }] }, empty: '' };

  it('returns each parameter as given (string, number, array, object)', async () => {
    const got = await evaluate(`[D.getParameter('name'), D.getParameter('port'), D.getParameter('vmNames'), D.getParameter('nested'), D.getParameter('empty')]`, {
      parameters,
    });
    expect(got).toEqual(['nas-1', 8443, ['web', 'db'], { a: [1, { b: true }] }, '']);
  });

  it('an array parameter is a real array in the driver', async () => {
    const got = await evaluate(
      `[Array.isArray(D.getParameter('vmNames')), D.getParameter('vmNames').length, D.getParameter('vmNames').join('+'), D.getParameter('vmNames').indexOf('db')]`,
      { parameters },
    );
    expect(got).toEqual([true, 2, 'web+db', 1]);
  });

  it('a missing parameter is undefined, with a warning', async () => {
    const result = await runSource(
      host,
      `function get_status() { var p = D.getParameter('missing'); D.success([D.createVariable('t', 'T', typeof p)]); }`,
      { parameters },
    );
    expect(result.status).toBe('success');
    expect(result.variables[0].value).toBe('undefined');
    expect(result.warnings).toEqual(['D.getParameter("missing"): no such parameter was given to this run; returned undefined']);
  });

  it('inherited names are not parameters', async () => {
    const got = await evaluate(`[typeof D.getParameter('toString'), typeof D.getParameter('__proto__'), typeof D.getParameter('constructor')]`);
    expect(got).toEqual(['undefined', 'undefined', 'undefined']);
  });

  it('changes the driver makes to a parameter value do not leak into the next run', async () => {
    await evaluate(`(D.getParameter('vmNames').push('x'), D.getParameter('vmNames').length)`, { parameters });
    expect(await evaluate(`D.getParameter('vmNames')`, { parameters })).toEqual(['web', 'db']);
    expect(parameters.vmNames).toEqual(['web', 'db']);
  });

  it('parameters must be an object', async () => {
    await expect(
      runSource(host, `function get_status() { D.success(); }`, { parameters: ['a'] as unknown as Record<string, unknown> }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});

describe('D.device', () => {
  it('ip, username, password, serial and macAddress come from the device option', async () => {
    const got = await evaluate(`[D.device.ip(), D.device.username(), D.device.password(), D.device.serial(), D.device.macAddress()]`, {
      device: { ip: '10.0.0.7', username: 'admin', password: 's3cr3t!', serial: 'SN-1234', macAddress: '00:11:22:33:44:55' },
    });
    expect(got).toEqual(['10.0.0.7', 'admin', 's3cr3t!', 'SN-1234', '00:11:22:33:44:55']);
  });

  it('fields not given are null', async () => {
    const got = await evaluate(`[D.device.ip(), D.device.username(), D.device.password(), D.device.serial(), D.device.macAddress()]`);
    expect(got).toEqual([null, null, null, null, null]);
  });

  it('has the http module and createVariable', async () => {
    const got = await evaluate(`[typeof D.device.http.get, typeof D.device.http.post, typeof D.device.http.put, typeof D.device.http.delete, typeof D.device.createVariable]`);
    expect(got).toEqual(['function', 'function', 'function', 'function', 'function']);
  });
});

describe('D.q', () => {
  it('defer / resolve / then chain', async () => {
    const { values: v } = await values(`
      var d = D.q.defer();
      d.promise
        .then(function (x) { return x * 2; })
        .then(function (x) { return D.q(x + 1); })
        .then(function (x) { D.success([D.createVariable('r', 'R', x)]); });
      d.resolve(20);`);
    expect(v).toEqual({ r: '41' });
  });

  it('D.q.all keeps order, with delays of different lengths', async () => {
    const { values: v } = await values(`
      D.q.all([D.q.delay(30).then(function () { return 'slow'; }), D.q.delay(1).then(function () { return 'fast'; }), 'plain'])
        .then(function (all) { D.success([D.createVariable('r', 'R', all.join(','))]); });`);
    expect(v).toEqual({ r: 'slow,fast,plain' });
  });

  it('rejections reach .catch / .fail, and a thrown error inside then becomes a rejection', async () => {
    const { values: v } = await values(`
      var d = D.q.defer();
      d.promise
        .then(function () { throw new Error('inside then'); })
        .catch(function (e) { return 'caught: ' + e.message; })
        .then(function (m) { return D.q.reject(new Error(m + ' / rejected')); })
        .fail(function (e) { D.success([D.createVariable('r', 'R', e.message)]); });
      d.resolve();`);
    expect(v).toEqual({ r: 'caught: inside then / rejected' });
  });

  it('D.q.delay waits about the time asked', async () => {
    const { result, values: v } = await values(`
      D.q.delay(120).then(function () { D.success([D.createVariable('r', 'R', 'done')]); });`);
    expect(v).toEqual({ r: 'done' });
    expect(result.durationMs).toBeGreaterThanOrEqual(110);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('q.timeout rejects a promise that takes too long', async () => {
    const { values: v } = await values(`
      D.q.defer().promise.timeout(20, 'too slow').then(null, function (e) { D.success([D.createVariable('r', 'R', e.message)]); });`);
    expect(v).toEqual({ r: 'too slow' });
  });

  it('D.q is the same object throughout a run', async () => {
    expect(await evaluate(`D.q === D.q && typeof D.q.defer === 'function'`)).toBe(true);
  });
});

describe('D._ (lodash 4)', () => {
  it('common functions work', async () => {
    const got = await evaluate(`[
      D._.map([1, 2, 3], function (n) { return n * 2; }),
      D._.get({ a: { b: [{ c: 'deep' }] } }, 'a.b[0].c'),
      D._.groupBy(['one', 'two', 'three'], 'length'),
      D._.uniq([1, 1, 2, 3, 3]),
      D._.sumBy([{ n: 1 }, { n: 2 }], 'n'),
      D._.chunk([1, 2, 3, 4, 5], 2),
      D._.pick({ a: 1, b: 2, c: 3 }, ['a', 'c']),
      D._.isEmpty({}),
      D._.camelCase('Foo Bar'),
      D._.VERSION.split('.')[0]
    ]`);
    expect(got).toEqual([[2, 4, 6], 'deep', { 3: ['one', 'two'], 5: ['three'] }, [1, 2, 3], 3, [[1, 2], [3, 4], [5]], { a: 1, c: 3 }, true, 'fooBar', '4']);
  });

  it('chaining works', async () => {
    expect(await evaluate(`D._([3, 1, 2]).sortBy().map(function (n) { return n * 10; }).value()`)).toEqual([10, 20, 30]);
  });
});

describe('D.htmlParse (cheerio)', () => {
  it('parses HTML and queries it with selectors', async () => {
    const html = `<html><body><table id="t"><tr><td class="k">cpu</td><td class="v">12%</td></tr><tr><td class="k">mem</td><td class="v">48%</td></tr></table><p title="x">Hello <b>world</b></p></body></html>`;
    const got = await evaluate(`(function () {
      var $ = D.htmlParse(${JSON.stringify(html)});
      var rows = [];
      $('#t tr').each(function (i, tr) { rows.push($(tr).find('.k').text() + '=' + $(tr).find('.v').text()); });
      return [rows, $('p').text(), $('p').attr('title'), $('td').length];
    })()`);
    expect(got).toEqual([['cpu=12%', 'mem=48%'], 'Hello world', 'x', 4]);
  });

  it('a Buffer is parsed as its UTF-8 text', async () => {
    const got = await evaluate(`D.htmlParse(D._unsafe.buffer.from('<p class="a">é &amp; ü</p>', 'utf8'))('p.a').text()`);
    expect(got).toBe('é & ü');
  });

  it('parses XML with {xml: true}, keeping case and self-closing tags', async () => {
    const xml = `<?xml version="1.0"?><Status><Device Name="UPS-1"><Battery charge="97"/><Load>21</Load></Device><Device Name="UPS-2"><Battery charge="100"/><Load>5</Load></Device></Status>`;
    const got = await evaluate(`(function () {
      var $ = D.htmlParse(${JSON.stringify(xml)}, { xml: true });
      return $('Device').map(function (i, d) { return $(d).attr('Name') + ':' + $(d).find('Battery').attr('charge') + ':' + $(d).find('Load').text(); }).get();
    })()`);
    expect(got).toEqual(['UPS-1:97:21', 'UPS-2:100:5']);
  });
});

describe('D.crypto', () => {
  it("hash('my data', 'sha256', 'utf8', 'hex')", async () => {
    expect(await evaluate(`D.crypto.hash('my data', 'sha256', 'utf8', 'hex')`)).toBe('b2167b0aa7ef7794740b055ac7a880a52934aa67ef1ca6887ad81dccefd5b9de');
  });

  it('hash with base64 output and other algorithms', async () => {
    const got = await evaluate(`[D.crypto.hash('my data', 'md5', 'utf8', 'hex'), D.crypto.hash('my data', 'sha1', 'utf8', 'base64')]`);
    expect(got).toEqual([createHash('md5').update('my data').digest('hex'), createHash('sha1').update('my data').digest('base64')]);
  });

  it('hash without an output encoding returns a Buffer', async () => {
    const got = await evaluate(`(function () {
      var h = D.crypto.hash('my data', 'sha256', 'utf8');
      var B = D._unsafe.buffer.from('').constructor;
      return [B.isBuffer(h), h.length, h.toString('hex')];
    })()`);
    expect(got).toEqual([true, 32, 'b2167b0aa7ef7794740b055ac7a880a52934aa67ef1ca6887ad81dccefd5b9de']);
  });

  it("hmac('my data', 'my secret', 'sha256', 'hex')", async () => {
    expect(await evaluate(`D.crypto.hmac('my data', 'my secret', 'sha256', 'hex')`)).toBe('049f32be4f33a698205529818c1b676d460c9cb2f6901457d012a6646127ae37');
  });

  it('hmac without an output encoding returns a Buffer', async () => {
    expect(await evaluate(`D.crypto.hmac('my data', 'my secret', 'sha256').toString('hex')`)).toBe(
      '049f32be4f33a698205529818c1b676d460c9cb2f6901457d012a6646127ae37',
    );
  });

  it('an unknown algorithm throws inside the driver', async () => {
    const result = await runSource(host, `function get_status() { D.crypto.hash('x', 'no-such-algo', 'utf8', 'hex'); D.success(); }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toMatch(/digest method not supported|Invalid digest/i);
  });

  it('createCipher / createDecipher (aes-128-cbc) round trip, matching node:crypto', async () => {
    const key = '0123456789abcdef';
    const iv = 'fedcba9876543210';
    const plain = 'temperature=21.5;fan=on';
    const c = createCipheriv('aes-128-cbc', Buffer.from(key), Buffer.from(iv));
    const expected = c.update(plain, 'utf8', 'hex') + c.final('hex');
    const got = await evaluate(`(function () {
      var c = D.crypto.createCipher('aes-128-cbc', '${key}', '${iv}');
      var enc = c.update('${plain}', 'utf8', 'hex') + c.final('hex');
      var d = D.crypto.createDecipher('aes-128-cbc', '${key}', '${iv}');
      var dec = d.update(enc, 'hex', 'utf8') + d.final('utf8');
      return [enc, dec];
    })()`);
    expect(got).toEqual([expected, plain]);
    const d = createDecipheriv('aes-128-cbc', Buffer.from(key), Buffer.from(iv));
    expect(d.update(expected, 'hex', 'utf8') + d.final('utf8')).toBe(plain);
  });

  it('cipher with Buffer key/iv and Buffer output', async () => {
    const key = Buffer.alloc(16, 7);
    const iv = Buffer.alloc(16, 9);
    const c = createCipheriv('aes-128-cbc', key, iv);
    const expected = Buffer.concat([c.update('abc'), c.final()]).toString('base64');
    const got = await evaluate(`(function () {
      var B = D._unsafe.buffer;
      var c = D.crypto.createCipher('aes-128-cbc', B.alloc(16, 7), B.alloc(16, 9));
      return B.concat([c.update('abc'), c.final()]).toString('base64');
    })()`);
    expect(got).toBe(expected);
  });

  it('a wrong key length throws inside the driver', async () => {
    const result = await runSource(host, `function get_status() { D.crypto.createCipher('aes-128-cbc', 'short', '0123456789abcdef'); D.success(); }`);
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(result.message).toMatch(/Invalid key length/i);
  });
});

describe('D._unsafe.buffer', () => {
  it('from / alloc / concat behave as Buffer', async () => {
    const got = await evaluate(`(function () {
      var B = D._unsafe.buffer;
      return [
        B.from('hello').toString('base64'),
        B.from('aGVsbG8=', 'base64').toString('utf8'),
        B.from([104, 105]).toString(),
        B.alloc(8, '1').toString(),
        B.alloc(3).toString('hex'),
        B.concat([B.from('ab'), B.from('cd')]).toString(),
        B.concat([B.from('ab'), B.from('cd')], 3).toString(),
        B.from('héllo').length
      ];
    })()`);
    expect(got).toEqual(['aGVsbG8=', 'hello', 'hi', '11111111', '000000', 'abcd', 'abc', 6]);
  });

  it('a failing call logs an error and returns undefined', async () => {
    const result = await runSource(
      host,
      `function get_status() { var b = D._unsafe.buffer.alloc(-1); D.success([D.createVariable('t', 'T', typeof b)]); }`,
    );
    expect(result.status).toBe('success');
    expect(result.variables[0].value).toBe('undefined');
    expect(result.logs).toHaveLength(1);
    expect(result.logs[0].level).toBe('error');
    expect(result.logs[0].message).toMatch(/^Error in D\._unsafe\.buffer\.alloc: /);
  });
});

describe('D.math.percent', () => {
  it('percent(7, 10) === 70 and rounds to two decimals', async () => {
    expect(await evaluate(`[D.math.percent(7, 10), D.math.percent(1, 3), D.math.percent('50', '200'), D.math.percent(2, 3), D.math.percent(7.9, 10)]`)).toEqual([
      70, 33.33, 25, 66.67, 70,
    ]);
  });

  it('percent(7, 10) is exactly the number 70', async () => {
    expect(await evaluate(`D.math.percent(7, 10) === 70`)).toBe(true);
  });
});

describe('console', () => {
  it('captures every level in order', async () => {
    const { result } = await values(`
      console.log('a log'); console.info('an info'); console.warn('a warn'); console.error('an error'); console.debug('a debug');
      console.warning('a warning'); console.verbose('a verbose');
      D.success();`);
    expect(result.logs).toEqual([
      { level: 'log', message: 'a log' },
      { level: 'info', message: 'an info' },
      { level: 'warn', message: 'a warn' },
      { level: 'error', message: 'an error' },
      { level: 'debug', message: 'a debug' },
      { level: 'warn', message: 'a warning' },
      { level: 'debug', message: 'a verbose' },
    ]);
  });

  it('printf-style formatting and extra arguments', async () => {
    const { result } = await values(`
      console.log('%s is %d years and %i days', 'Bob', 42.5, '7.9');
      console.log('ratio %f%%', '0.25');
      console.log('json %j', { a: [1, 2] });
      console.log('obj %o and %O', { x: 1 }, [1]);
      console.log('missing %s and %d');
      console.log('extra', 1, true, null, undefined, { k: 'v' }, [1, 'two']);
      console.log({ only: 'object' });
      console.log();
      D.success();`);
    expect(result.logs.map((l) => l.message)).toEqual([
      'Bob is 42.5 years and 7 days',
      'ratio 0.25%',
      'json {"a":[1,2]}',
      'obj {"x":1} and [1]',
      'missing %s and %d',
      'extra 1 true null undefined {"k":"v"} [1,"two"]',
      '{"only":"object"}',
      '',
    ]);
  });

  it('formats errors with their stack, functions and circular objects', async () => {
    const { result } = await values(`
      var o = { name: 'o' }; o.self = o;
      console.error(new Error('bad thing'));
      console.log(function namedFn() {});
      console.log(o);
      D.success();`);
    const [error, fn, circular] = result.logs.map((l) => l.message);
    expect(error).toMatch(/^Error: bad thing\n\s+at get_status \(driver\.js:4:21\)/);
    expect(fn).toBe('[Function namedFn]');
    expect(circular).toBe('{"name":"o","self":"[Circular]"}');
  });

  it('logs survive a failing run', async () => {
    const result = await runSource(host, `function get_status() { console.info('before'); throw new Error('after'); }`);
    expect(result.status).toBe('failure');
    expect(result.logs).toEqual([{ level: 'info', message: 'before' }]);
  });

  it('the log volume limit cuts the output and adds one warning', async () => {
    const { result } = await values(
      `console.log('aaaaaaaaaa'); console.info('bbbbbbbbbb'); console.warn('cccccccccc'); console.error('dddddddddd'); D.success();`,
      { limits: { maxLogChars: 25 } },
    );
    expect(result.logs).toEqual([
      { level: 'log', message: 'aaaaaaaaaa' },
      { level: 'info', message: 'bbbbbbbbbb' },
      { level: 'warn', message: 'ccccc' },
    ]);
    // Dropped: the cut end of 'cccccccccc' (5) and the whole 'dddddddddd' line (10).
    expect(result.warnings).toEqual(['log limit of 25 characters reached: 1 later line and 15 characters of console output were dropped']);
  });

  it('at exactly the limit nothing is cut', async () => {
    const { result } = await values(`console.log('aaaaaaaaaa'); console.log('bbbbbbbbbb'); D.success();`, { limits: { maxLogChars: 20 } });
    expect(result.logs.map((l) => l.message)).toEqual(['aaaaaaaaaa', 'bbbbbbbbbb']);
    expect(result.warnings).toEqual([]);
  });

  it('a flood of logging stays within the limit', async () => {
    const { result } = await values(`for (var i = 0; i < 10000; i++) console.log('line ' + i); D.success();`, { limits: { maxLogChars: 100 } });
    expect(result.logs.reduce((n, l) => n + l.message.length, 0)).toBe(100);
    // 'line 0'…'line 9' (60) and 'line 10'…'line 14' (35) fit; 'line 15' is cut to 5 characters.
    let written = 0;
    for (let i = 0; i < 10000; i++) written += `line ${i}`.length;
    expect(result.warnings).toEqual([`log limit of 100 characters reached: 9984 later lines and ${written - 100} characters of console output were dropped`]);
  });

  it('a run killed by its deadline in a flood says at least how much was dropped', async () => {
    const result = await runSource(host, `function get_status() { for (;;) console.log('x'); }`, { limits: { maxLogChars: 10, timeoutMs: 300, cpuTimeMs: 300 } });
    expect(result.status).toBe('failure');
    const warning = result.warnings.find((w) => w.startsWith('log limit'));
    expect(warning).toMatch(/^log limit of 10 characters reached: at least (\d+) later lines and at least \d+ characters of console output were dropped$/);
    // The count so far is sent at 2, 4, 8… lines: a power of two.
    const lines = Number(/at least (\d+) later lines/.exec(warning!)![1]);
    expect(lines & (lines - 1)).toBe(0);
  });
});

describe('each run gets a fresh context', () => {
  // One warm isolate, so both runs of a pair share it.
  const single = useHost({ warmIsolates: 1, maxIsolates: 2 });

  async function pair(first: string, second: string): Promise<string | null> {
    await runSource(single, `function get_status() { D.success(); }`); // settle the warm set
    const created = single.stats().created;
    const a = await runSource(single, `function get_status() { D.success(); ${first}; }`);
    expect(a.status).toBe('success');
    const b = await runSource(single, `function get_status() { D.success([D.createVariable('r', 'R', ${second})]); }`);
    expect(b.status).toBe('success');
    // No isolate was created in between: the second run reused the first run's isolate.
    expect(single.stats().created).toBe(created);
    return b.variables[0].value;
  }

  it('a global set in one run is not visible in the next', async () => {
    expect(await pair(`globalThis.leaked = 'yes'; leakedVar = 1`, `typeof leaked + ',' + typeof leakedVar`)).toBe('undefined,undefined');
  });

  it('top-level functions and vars of one driver are gone in the next', async () => {
    await runSource(single, `var state = 41; function helperOfA() {} function get_status() { D.success(); }`);
    const b = await runSource(single, `function get_status() { D.success([D.createVariable('r', 'R', typeof state + ',' + typeof helperOfA)]); }`);
    expect(b.variables[0].value).toBe('undefined,undefined');
  });

  it('pollution of Array.prototype / Object.prototype is not visible in the next run', async () => {
    expect(
      await pair(
        `Array.prototype.polluted = 'p'; Object.prototype.evil = 'e'; Array.prototype.map = function () { return 'hijacked'; }`,
        `[typeof [].polluted, typeof ({}).evil, [1, 2].map(function (n) { return n + 1; }).join('-')].join(',')`,
      ),
    ).toBe('undefined,undefined,2-3');
  });

  it('changes to D and its libraries are not visible in the next run', async () => {
    expect(
      await pair(
        `D.success = function () {}; D.q.defer = null; D._.map = null; JSON.stringify = function () { return 'x'; }`,
        `[typeof D.q.defer, typeof D._.map, JSON.stringify({ a: 1 })].join(',')`,
      ),
    ).toBe('function,function,{"a":1}');
  });
});
