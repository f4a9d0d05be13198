// Issue 17, the network side: nothing a driver passes to D.device.http / getTLSCertificate /
// D.createExternalDevice, and nothing a device answers, may end the host; every call gets an
// answer (an error code) or the run fails, and the next run on the same host is healthy.
// Also: canonical external host names, credentials on redirects, secrets in every encoded
// form, sessions per driver and credentials, and the bounds of cause 5 (pbkdf2, cookies,
// bytes buffered by the host).
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestPki } from '../helpers/certs.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { useHost } from '../helpers/host.js';
import { attack, logged, reported } from './harness.js';

const DEEP = 20_000;

describe('security: the network bridge never ends the host', () => {
  const host = useHost({ externalHosts: (name) => name !== '127.0.0.1' && name !== '::1' });
  let device: DeviceServer;
  beforeAll(async () => {
    device = await startDeviceServer({
      route(req, res) {
        const url = new URL(req.url, 'http://d');
        switch (url.pathname) {
          case '/deep':
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP));
            return true;
          case '/deep-array':
            res.end('['.repeat(DEEP) + ']'.repeat(DEEP));
            return true;
          case '/not-json':
            res.end('{"unterminated": [1, 2');
            return true;
          case '/coding':
            res.writeHead(200, { 'content-encoding': url.searchParams.get('c')! });
            res.end(url.searchParams.get('c') === 'gzip' ? Buffer.from('not gzip at all') : gzipSync('zipped'));
            return true;
          case '/cookies':
            res.setHeader('set-cookie', ['=', ';;;', 'a', '\u00ff=\u00ff', `big=${'x'.repeat(8000)}`, 'ok=1; Expires=not a date; Max-Age=NaN; Domain=..']);
            res.end('cookies');
            return true;
          case '/huge-header':
            res.setHeader('x-big', 'a'.repeat(100_000));
            res.end('big');
            return true;
          case '/many-headers':
            for (let i = 0; i < 2000; i++) res.setHeader(`x-h${i}`, 'v');
            res.end('many');
            return true;
          case '/bad-status':
            res.socket!.end('HTTP/1.1 999999 Nope\r\ncontent-length: 0\r\n\r\n');
            return true;
          case '/bad-location':
            res.writeHead(302, { location: url.searchParams.get('to')! });
            res.end();
            return true;
          default:
            return false;
        }
      },
    });
  });
  afterAll(() => device.close());
  const onDevice = () => ({ ip: '127.0.0.1', portMap: { 80: device.port }, password: 'dev-pw' });

  /** Each expression is evaluated in the driver and passed to `call` (get, post, put, delete, getTLSCertificate); returns the error codes seen. */
  async function codes(call: string, expressions: string[], request: Record<string, unknown> = {}): Promise<Array<string | null>> {
    const r = await attack(
      host,
      `function get_status() {
        var all = ${JSON.stringify(expressions)}, seen = new Array(all.length), left = all.length;
        all.forEach(function (text, i) {
          var o;
          try { o = eval('(' + text + ')'); } catch (e) { seen[i] = 'EVAL ' + e.message; if (--left === 0) done(); return; }
          try {
            D.device.http.${call}(o, function (err) { seen[i] = err ? err.code : null; if (--left === 0) done(); });
          } catch (e) { seen[i] = 'THROWN'; if (--left === 0) done(); }
        });
        function done() { console.log(JSON.stringify(seen)); D.success(); }
      }`,
      { device: onDevice(), transcript: 'full', limits: { timeoutMs: 10_000, maxHttpRequests: 500 }, ...request },
    );
    expect(r.status, r.message ?? '').toBe('success');
    return logged<Array<string | null>>(r);
  }

  /** An options object whose toJSON answers `value` (null, a number, a string, an array…). */
  const toJson = (value: string) => `(function () { var o = { url: '/' }; o.toJSON = function () { return ${value}; }; return o; })()`;
  const hostile = [
    toJson('null'),
    toJson('42'),
    toJson('"text"'),
    toJson('[1, 2]'),
    toJson('true'),
    `{ url: '/', headers: { a: { toString: 1 } } }`,
    `{ url: '/', headers: { a: [{ toString: 1 }] } }`,
    `{ url: '/', headers: [['a', 'b']] }`,
    `{ url: '/', body: { toString: 1 }, headers: { a: { toString: 1 } } }`,
    `{ url: '/', form: { a: { toString: 1 } } }`,
    `{ url: '/', form: 42 }`,
    `{ url: '/', form: [1, 2] }`,
    `{ url: '/', qs: { a: { toString: 1 } } }`,
    `{ url: '/', qs: [1] }`,
    `{ url: '/', username: { toString: 1 }, auth: 'basic' }`,
    `{ url: '/', password: [1], auth: 'basic' }`,
    `{ url: '/', timeout: { valueOf: 1 } }`,
    `{ url: '/', timeout: -5 }`,
    `{ url: '/', timeout: NaN }`,
    `{ url: '/', timeout: '1e400' }`,
    `{ url: '/', port: { toString: 1 } }`,
    `{ url: '/', port: [80] }`,
    `{ url: '/', port: 1e300 }`,
    `{ url: '/', maxRedirects: { toString: 1 } }`,
    `{ url: '/', maxRedirects: -1 }`,
    `{ url: '/', encoding: { toString: 1 } }`,
    `{ url: '/', protocol: { toString: 1 } }`,
    `{ url: { toString: 1 } }`,
    `{ url: ['/'] }`,
    `{ url: '/' + 'x'.repeat(3000000) }`,
  ];

  it('B1 http.get/post/put/delete with options of hostile types (toJSON answering null/number/array, {toString: 1}, arrays, NaN, negative, huge) answer INVALID_OPTIONS / INVALID_URL', async () => {
    for (const method of ['get', 'post', 'put', 'delete']) {
      const seen = await codes(method, hostile);
      expect(seen.slice(0, 5)).toEqual(Array(5).fill('INVALID_OPTIONS'));
      // An object as a form or qs field is sent as its JSON (as before); NaN reaches the host as null (JSON), the default timeout.
      expect(seen.slice(5, 29)).toEqual([
        'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', null, 'INVALID_OPTIONS', 'INVALID_OPTIONS',
        null, 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', null,
        'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS',
        'INVALID_OPTIONS', 'INVALID_URL', 'INVALID_URL',
      ]);
      // A 3 MB path is the device's to refuse: it gets an answer either way.
      expect(seen[29] === null || typeof seen[29] === 'string').toBe(true);
    }
  }, 60_000);

  it('B20 options with throwing getters or Proxies never reach the host as such: the call throws in the driver or the host gets plain JSON', async () => {
    const seen = await codes('get', [
      `{ url: '/', get headers() { throw new Error('boom'); } }`,
      `new Proxy({ url: '/' }, { get: function () { throw new Error('trap'); } })`,
      `new Proxy({ url: '/' }, { ownKeys: function () { return ['url', 'headers']; }, getOwnPropertyDescriptor: function () { return { value: { toString: 1 }, enumerable: true, configurable: true }; } })`,
      `{ url: '/', headers: new Proxy({}, { ownKeys: function () { throw new Error('keys'); } }) }`,
    ]);
    expect(seen[0]).toBe('THROWN');
    expect(seen[1]).toBe('THROWN');
    expect(seen[2]).toBeNull(); // JSON reads values through [[Get]]: the host got the target's plain { url: '/' }
    expect(seen[3]).toBe('THROWN');
  });

  it('B2 getTLSCertificate with hostile options (toJSON null, port objects/arrays/huge) answers INVALID_OPTIONS', async () => {
    const seen = await codes('getTLSCertificate', [toJson('null'), toJson('[443]'), `{ port: { toString: 1 } }`, `{ port: [443] }`, `{ port: 1e300 }`, `{ port: -1 }`, `{ port: '443x' }`]);
    expect(seen).toEqual(Array(7).fill('INVALID_OPTIONS'));
  });

  it('B3 json / body / form / qs options nested deeper than the host writes safely are refused, not stringified', async () => {
    const deep = (n: number) => `(function () { var j = 1; for (var i = 0; i < ${n}; i++) j = [j]; return j; })()`;
    const deepObject = (n: number) => `(function () { var j = {}; for (var i = 0; i < ${n}; i++) j = { a: j }; return j; })()`;
    const seen = await codes('post', [
      `{ url: '/', json: ${deep(1000)} }`,
      `{ url: '/', body: ${deepObject(1000)} }`,
      `{ url: '/', form: { a: ${deep(1000)} } }`,
      `{ url: '/', qs: { a: ${deepObject(1000)} } }`,
      `{ url: '/', json: ${deep(100)} }`,
    ]);
    expect(seen).toEqual(['INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', null]);
  });

  it('B4 hostile device answers: JSON nested 20,000 deep, invalid JSON, odd content-encodings, broken Set-Cookie lines, bad redirects, huge or many headers, a broken status line', async () => {
    const seen = await codes('get', [
      `{ url: '/deep', json: true }`,
      `{ url: '/deep-array', json: true }`,
      `{ url: '/deep' }`,
      `{ url: '/not-json', json: true }`,
      `{ url: '/coding?c=constructor', gzip: true }`,
      `{ url: '/coding?c=toString', gzip: true }`,
      `{ url: '/coding?c=__proto__', gzip: true }`,
      `{ url: '/coding?c=hasOwnProperty', gzip: true }`,
      `{ url: '/coding?c=gzip', gzip: true }`,
      `{ url: '/cookies', jar: true }`,
      `{ url: '/bad-location?to=' + encodeURIComponent('http://[') }`,
      `{ url: '/bad-location?to=' + encodeURIComponent('javascript:alert(1)') }`,
      `{ url: '/bad-location?to=' + encodeURIComponent('http://999.1.1.1/') }`,
      `{ url: '/bad-location?to=' + encodeURIComponent('//' + 'a'.repeat(300)) }`,
      `{ url: '/huge-header' }`,
      `{ url: '/many-headers' }`,
      `{ url: '/bad-status' }`,
    ]);
    expect(seen).toEqual([
      'JSON_TOO_DEEP', 'JSON_TOO_DEEP', null, null,
      null, null, null, null, 'DECOMPRESSION_ERROR',
      null,
      'REDIRECT_REFUSED', 'REDIRECT_REFUSED', 'REDIRECT_REFUSED', 'REDIRECT_REFUSED',
      // A header past undici's bound fails the request; many small ones are an answer; a broken status line an error.
      'HEADERS_TOO_LARGE', null, 'NETWORK_ERROR',
    ]);
  });

  it('B5 external device names that would make new URL() throw, or are URLs in disguise, are refused with a clear error', async () => {
    const names = ['999.1.1.1', '1.2.3.4.5', 'xn--a', 'a.xn--zz', 'localhost..', 'a..b', '.', '[::1', '[::1]:80', 'fe80::1%eth0', '256.0.0.1', '\u00ad', 'a b', 'x'.repeat(300), '[example.com]'];
    const r = await attack(
      host,
      `function get_status() {
        var out = ${JSON.stringify(names)}.map(function (n) { try { D.createExternalDevice(n); return 'created'; } catch (e) { return /not a host name or IP/.test(e.message) ? 'bad-name' : e.message; } });
        D.success([D.createVariable('found', 'Found', out.join(','))]);
      }`,
    );
    expect(reported(r)).toBe(Array(names.length).fill('bad-name').join(','));
  });

  it('B6 a run of external devices: at most 64, and each created name is canonical', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var made = 0, error = null;
        for (var i = 0; i < 100 && !error; i++) { try { D.createExternalDevice('h' + i + '.example'); made++; } catch (e) { error = e.message; } }
        D.success([D.createVariable('found', 'Found', made + ':' + error)]);
      }`,
    );
    expect(reported(r)).toBe('64:D.createExternalDevice: a run may create at most 64 external devices');
  });
});

describe('security: external host names are judged and dialled in their canonical form', () => {
  const host = useHost({ externalHosts: (name) => name !== '127.0.0.1' && name !== '::1' });
  const listed = useHost({ externalHosts: ['127.1', 'Example.COM.'] });
  let elsewhere: DeviceServer;
  beforeAll(async () => {
    elsewhere = await startDeviceServer();
  });
  afterAll(() => elsewhere.close());

  it('B7 a predicate blocking 127.0.0.1 / ::1 is not bypassed by other spellings of them', async () => {
    const spellings = ['127.0.0.1', '2130706433', '127.1', '0x7f.1', '0x7f000001', '0177.0.0.1', '127.0.0.1.', '::ffff:7f00:1', '[::ffff:127.0.0.1]', '::FFFF:127.0.0.1', '[::1]', '0:0:0:0:0:0:0:1'];
    const r = await attack(
      host,
      `function get_status() {
        var out = ${JSON.stringify(spellings)}.map(function (n) { try { D.createExternalDevice(n); return 'created'; } catch (e) { return /does not allow/.test(e.message) ? 'refused' : e.message; } });
        D.success([D.createVariable('found', 'Found', out.join(','))]);
      }`,
    );
    expect(reported(r)).toBe(Array(spellings.length).fill('refused').join(','));
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('B8 an allow-list is matched, and the request dialled, in canonical form (127.1 listed allows 0x7f.1 and dials 127.0.0.1; EXAMPLE.COM. is example.com)', async () => {
    const r = await attack(
      listed,
      `function get_status() {
        D.createExternalDevice('example.com');
        var ext = D.createExternalDevice('0x7f.1');
        ext.http.get({ url: '/echo', port: ${elsewhere.port} }, function (err, res) {
          D.success([D.createVariable('found', 'Found', err ? err.code : String(res.statusCode))]);
        });
      }`,
    );
    expect(reported(r)).toBe('200');
    expect(r.http[0]!.url).toBe(`http://127.0.0.1:${elsewhere.port}/echo`);
  });
});

describe('security: credentials follow redirects only to the same origin', () => {
  const host = useHost();
  let secure: DeviceServer;
  let plain: DeviceServer;
  let other: DeviceServer;
  beforeAll(async () => {
    const pki = await makeTestPki();
    plain = await startDeviceServer();
    other = await startDeviceServer();
    secure = await startDeviceServer({ tls: pki.valid });
  });
  afterAll(async () => {
    await secure.close();
    await plain.close();
    await other.close();
  });

  it('B9 basic auth and the driver\'s Authorization header are dropped on https → http, on a port change, and kept on the same origin', async () => {
    const device = { ip: '127.0.0.1', username: 'admin', password: 'pw-redirect-secret', portMap: { 443: secure.port, 8080: plain.port, 80: other.port } };
    const r = await attack(
      host,
      `function get_status() {
        var cases = [
          { protocol: 'https', port: 443, url: '/redirect?to=' + encodeURIComponent('http://127.0.0.1:8080/echo?downgrade'), auth: 'basic', rejectUnauthorized: false },
          { protocol: 'http', port: 80, url: '/redirect?to=' + encodeURIComponent('http://127.0.0.1:8080/echo?port-change'), headers: { Authorization: 'Bearer tok-secret' } },
          { protocol: 'https', port: 443, url: '/redirect?to=' + encodeURIComponent('/echo?same'), auth: 'basic', rejectUnauthorized: false },
        ];
        var out = [], left = cases.length;
        cases.forEach(function (o, i) {
          o.json = true;
          D.device.http.get(o, function (err, res, body) {
            out[i] = err ? err.code : String(body.headers.authorization);
            if (--left === 0) D.success([D.createVariable('found', 'Found', out.join('|'))]);
          });
        });
      }`,
      { device },
    );
    const basic = `Basic ${Buffer.from('admin:pw-redirect-secret').toString('base64')}`;
    expect(reported(r)).toBe(`undefined|undefined|${basic}`);
    expect(plain.seen.filter((s) => s.url.startsWith('/echo')).map((s) => s.headers.authorization)).toEqual([undefined, undefined]);
    expect(other.seen[0]!.headers.authorization).toBe('Bearer tok-secret'); // sent to the origin it was meant for
  });
});

describe('security: secrets are masked in every encoded form', () => {
  const host = useHost({ externalHosts: ['localhost'] });
  let device: DeviceServer;
  beforeAll(async () => {
    device = await startDeviceServer();
  });
  afterAll(() => device.close());

  const PASSWORDS = ['pa"ss\\word', 'p%w+ &=x', 'ünï"cødé\\€', 'a b"c', "it's<&>"];

  it('B10 a password with quotes, backslashes, unicode, %, +, spaces, & and = sent in json, form, qs, url and headers never shows in the full transcript', async () => {
    for (const password of PASSWORDS) {
      const r = await attack(
        host,
        `function get_status() {
          var pw = D.device.password(), left = 5;
          function done() { if (--left === 0) D.success(); }
          D.device.http.post({ url: '/echo', json: { user: 'admin', password: pw } }, done);
          D.device.http.post({ url: '/echo', form: { user: 'admin', password: pw } }, done);
          D.device.http.get({ url: '/echo', qs: { password: pw } }, done);
          D.device.http.get({ url: '/echo?p=' + encodeURIComponent(pw) + '&x=\${password}' }, done);
          D.device.http.post({ url: '/echo', body: '<pw>' + pw.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;') + '</pw>' }, done);
        }`,
        { device: { ip: '127.0.0.1', portMap: { 80: device.port }, username: 'admin', password }, transcript: 'full' },
      );
      expect(r.status, r.message ?? '').toBe('success');
      const all = JSON.stringify(r.http);
      const forms = [password, JSON.stringify(password).slice(1, -1), encodeURIComponent(password), new URLSearchParams({ s: password }).toString().slice(2)];
      for (const form of forms) {
        expect(all.includes(form), `${form} in ${all.slice(0, 200)}`).toBe(false);
        expect(all.includes(JSON.stringify(form).slice(1, -1)), `${form} (escaped) is in the transcript`).toBe(false);
      }
      // The echoed bodies were masked too: each of the five exchanges shows the mask.
      expect(r.http.filter((h) => (h.response?.body ?? '').includes('***')).length, JSON.stringify(r.http.map((h) => h.response?.body))).toBe(5);
    }
  }, 60_000);
});

describe('security: sessions are per driver and per credentials', () => {
  const host = useHost({ externalHosts: ['localhost'] });
  let device: DeviceServer;
  beforeAll(async () => {
    device = await startDeviceServer();
  });
  afterAll(() => device.close());
  const login = (extra = '') => `function get_status() {
    ${extra}
    var cloud = D.createExternalDevice('localhost', { username: 'u', password: 'cloud-pw' });
    cloud.http.get({ url: '/set-cookie?cookie=cloudsid=logged-in', port: ${device.port}, jar: true }, function () { D.success(); });
  }`;
  const probe = (extra = '') => `function get_status() {
    ${extra}
    var cloud = D.createExternalDevice('localhost', { username: 'u', password: 'cloud-pw' });
    cloud.http.get({ url: '/echo', port: ${device.port}, jar: true, json: true }, function (e, res, body) {
      D.success([D.createVariable('found', 'Found', String(body.headers.cookie))]);
    });
  }`;

  it('B11 another driver of the same device does not get the external session a first driver logged in (the first still does)', async () => {
    const dev = { id: 'b11-device' };
    await attack(host, login(), { device: dev });
    expect(reported(await attack(host, probe('/* another driver */'), { device: dev }))).toBe('undefined');
    // The same driver (same file name and source) finds its own login in a later run.
    const both = `function get_status() {
      var cloud = D.createExternalDevice('localhost', { username: 'u', password: 'cloud-pw' });
      cloud.http.get({ url: D.device.serial() === 'first' ? '/set-cookie?cookie=cloudsid=mine' : '/echo', port: ${device.port}, jar: true, json: true }, function (e, res, body) {
        D.success([D.createVariable('found', 'Found', typeof body === 'object' ? String(body.headers.cookie) : String(body))]);
      });
    }`;
    await attack(host, both, { device: { id: 'b11-device', serial: 'first' } });
    expect(reported(await attack(host, both, { device: { id: 'b11-device', serial: 'second' } }))).toBe('cloudsid=mine');
  });

  it('B18 another driver of the same device does not get the device session (cookie jar) a first driver logged in', async () => {
    const dev = { id: 'b18-device', ip: '127.0.0.1', portMap: { 80: device.port } };
    const driverA = `function get_status() {
      var login = D.getParameter('login');
      D.device.http.get({ url: login ? '/set-cookie?cookie=sid=driver-a' : '/echo', jar: true, json: true }, function (e, res, body) {
        D.success([D.createVariable('found', 'Found', login ? 'in' : String(body.headers.cookie))]);
      });
    }`;
    await attack(host, driverA, { device: dev, parameters: { login: true } });
    const driverB = driverA.replace('function get_status() {', 'function get_status() { /* driver B */');
    expect(reported(await attack(host, driverB, { device: dev, parameters: { login: false } }))).toBe('undefined');
    expect(reported(await attack(host, driverA, { device: dev, parameters: { login: false } }))).toBe('sid=driver-a');
    // The same source under another file name is another driver too.
    expect(reported(await attack(host, driverA, { device: dev, parameters: { login: false }, filename: 'other.js' }))).toBe('undefined');
  });

  it('B12 two devices at one address without an id but with different credentials never share a cookie jar', async () => {
    const at = { ip: '127.0.0.1', portMap: { 80: device.port } };
    const driver = `function get_status() {
      D.device.http.get({ url: D.device.serial() === 'login' ? '/set-cookie?cookie=sid=' + D.device.username() : '/echo', jar: true, json: true }, function (e, res, body) {
        D.success([D.createVariable('found', 'Found', typeof body === 'object' ? String(body.headers.cookie) : String(body))]);
      });
    }`;
    await attack(host, driver, { device: { ...at, username: 'alice', password: 'a-pw', serial: 'login' } });
    expect(reported(await attack(host, driver, { device: { ...at, username: 'bob', password: 'b-pw' } }))).toBe('undefined');
    expect(reported(await attack(host, driver, { device: { ...at, username: 'alice', password: 'other-pw' } }))).toBe('undefined');
    expect(reported(await attack(host, driver, { device: { ...at, username: 'alice', password: 'a-pw' } }))).toBe('sid=alice');
  });
});

describe('security: bounds that count what things cost', () => {
  let device: DeviceServer;
  const host = useHost({ maxBufferedBytes: 100_000 });
  beforeAll(async () => {
    device = await startDeviceServer({
      route(req, res) {
        const url = new URL(req.url, 'http://d');
        if (url.pathname === '/many-cookies') {
          const run = url.searchParams.get('run');
          res.setHeader('set-cookie', Array.from({ length: 150 }, (_, i) => `c${run}_${i}=v; Path=/p${i}`).concat(Array.from({ length: 60 }, (_, i) => `r${run}_${i}=1; Path=/`)));
          res.end('ok');
          return true;
        }
        if (url.pathname === '/held') {
          res.write('h'.repeat(60_000));
          setTimeout(() => res.end(), 400);
          return true;
        }
        return false;
      },
    });
  });
  afterAll(() => device.close());
  const at = () => ({ ip: '127.0.0.1', portMap: { 80: device.port } });

  it('B13 pbkdf2Sync is bounded by hash blocks: 32e6 iterations of a 1-byte key is refused at once; a 64-byte sha256 key at a million iterations is not', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var out = [];
        [[32e6, 1, 'sha1'], [2e6, 64, 'sha256'], [1e6, 64, 'sha256'], [300000, 32, 'sha3-256']].forEach(function (c) {
          var t = Date.now();
          try { D.crypto.pbkdf2Sync('pw', 'salt', c[0], c[1], c[2]); out.push('ok ' + (Date.now() - t)); } catch (e) { out.push(/hash blocks/.test(e.message) ? 'refused ' + (Date.now() - t) : e.message); }
        });
        console.log(JSON.stringify(out));
        D.success();
      }`,
      { limits: { timeoutMs: 10_000 } },
    );
    const out = logged<string[]>(r);
    expect(out.map((o) => o.split(' ')[0])).toEqual(['refused', 'refused', 'ok', 'refused']);
    // "At once": a refusal costs a small part of the one accepted derivation, which did the work
    // (ratios, not wall-clock bounds, so a loaded machine does not change the verdict).
    const ms = out.map((o) => Number(o.split(' ')[1]));
    expect(ms[2]).toBeGreaterThan(20);
    for (const i of [0, 1, 3]) expect(ms[i]).toBeLessThanOrEqual(Math.max(10, ms[2]! / 5));
  });

  it('B14 a device setting 210 cookies per answer: the jar keeps at most 50 per domain, the newest', async () => {
    // One driver: sessions are per driver too.
    const driver = `function get_status() {
      var run = D.getParameter('run');
      D.device.http.get({ url: run ? '/many-cookies?run=' + run : '/echo', jar: true, json: true }, function (e, res, body) {
        D.success([D.createVariable('found', 'Found', run ? 'set' : String(body.headers.cookie))]);
      });
    }`;
    for (const run of [1, 2, 3]) await attack(host, driver, { device: at(), parameters: { run } });
    const r = await attack(host, driver, { device: at(), parameters: { run: 0 } });
    const cookies = reported(r)!.split('; ');
    expect(cookies.length).toBeLessThanOrEqual(50);
    expect(cookies.length).toBeGreaterThan(0);
    expect(cookies.every((c) => c.startsWith('r3_')), cookies.join(' ')).toBe(true); // the newest root cookies survived
  });

  it('B15 answers held at once by all runs are bounded host-wide (maxBufferedBytes): the request past it fails with HOST_BUFFERS_FULL, and the bytes are given back', async () => {
    const driver = `function get_status() {
      D.device.http.get({ url: '/held' }, function (err, res, body) { D.success([D.createVariable('found', 'Found', err ? err.code : String(body.length))]); });
    }`;
    const runs = await Promise.all([1, 2, 3].map(() => attack(host, driver, { device: at() })));
    const seen = runs.map((r) => reported(r)).sort();
    expect(seen).toContain('60000');
    expect(seen).toContain('HOST_BUFFERS_FULL');
    expect(reported(await attack(host, driver, { device: at() }))).toBe('60000');
  });
});

describe('security: `driverbox run` survives hostile options and answers', () => {
  let device: DeviceServer;
  beforeAll(async () => {
    device = await startDeviceServer({
      route(req, res) {
        if (req.url !== '/deep') return false;
        res.end('['.repeat(50_000) + ']'.repeat(50_000));
        return true;
      },
    });
  });
  afterAll(() => device.close());

  it('B16 the CLI process answers with the run\'s result for toJSON → null, {toString: 1} options and a device answer nested 50,000 deep', async () => {
    const { execFile } = await import('node:child_process');
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const work = mkdtempSync(path.join(tmpdir(), 'driverbox-b16-'));
    const driver = path.join(work, 'hostile.js');
    writeFileSync(
      driver,
      `function get_status() {
        var out = [], left = 3;
        function done(i) { return function (err) { out[i] = err ? err.code : 'ok'; if (--left === 0) D.success([D.createVariable('found', 'Found', out.join(','))]); }; }
        var o = { url: '/' }; o.toJSON = function () { return null; };
        D.device.http.get(o, done(0));
        D.device.http.post({ url: '/', headers: { a: { toString: 1 } }, body: { toString: 1 } }, done(1));
        D.device.http.get({ url: '/deep', json: true }, done(2));
      }`,
    );
    const outcome = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [path.resolve('bin/driverbox.js'), 'run', driver, '--device-ip', '127.0.0.1', '--port-map', `80=${device.port}`, '--json'], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1' }, timeout: 30_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
      );
    });
    expect(outcome.stderr).not.toMatch(/TypeError|RangeError|Maximum call stack/);
    const result = JSON.parse(outcome.stdout) as { status: string; variables: Array<{ value: string }> };
    expect(result.status).toBe('success');
    expect(result.variables[0]!.value).toBe('INVALID_OPTIONS,INVALID_OPTIONS,JSON_TOO_DEEP');
    expect(outcome.code).toBe(0);
  });
});

describe('security: record and replay wires survive the same attacks', () => {
  const host = useHost();
  let device: DeviceServer;
  beforeAll(async () => {
    device = await startDeviceServer({
      route(req, res) {
        if (req.url !== '/deep') return false;
        res.end('['.repeat(30_000) + ']'.repeat(30_000));
        return true;
      },
    });
  });
  afterAll(() => device.close());

  it('B17 a recorded then replayed run with hostile options, a body string nested 100,000 deep and a deep JSON answer: both answer every call', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'driverbox-b17-')), 'run.json');
    const driver = `function get_status() {
      var out = [], left = 4;
      function done(i) { return function (err) { out[i] = err ? err.code : 'ok'; if (--left === 0) D.success([D.createVariable('found', 'Found', out.join(','))]); }; }
      var o = { url: '/' }; o.toJSON = function () { return null; };
      D.device.http.get(o, done(0));
      D.device.http.post({ url: '/echo', body: new Array(100001).join('[') + new Array(100001).join(']') }, done(1));
      D.device.http.get({ url: '/deep', json: true }, done(2));
      D.device.http.post({ url: '/echo', headers: { a: { toString: 1 } } }, done(3));
    }`;
    const device0 = { ip: '127.0.0.1', password: 'rec-pw"\\\\', portMap: { 80: device.port } };
    const recorded = await attack(host, driver, { device: device0, record: file });
    expect(reported(recorded)).toBe('INVALID_OPTIONS,ok,JSON_TOO_DEEP,INVALID_OPTIONS');
    const replayed = await attack(host, driver, { device: device0, replay: file });
    expect(replayed.status, replayed.message ?? '').toBe('success');
    expect(reported(replayed)).toBe('INVALID_OPTIONS,ok,JSON_TOO_DEEP,INVALID_OPTIONS');
  });
});

describe('security: D.crypto host time counts against the run', () => {
  it('B19 a CryptoSession given the run\'s time left refuses a pbkdf2 that would outlast it, and every call once it is over', async () => {
    const { CryptoSession } = await import('../../host/crypto/index.js');
    let left = 300;
    const session = new CryptoSession({ timeLeftMs: () => left });
    const pbkdf2 = (iterations: number) => session.call({ fn: 'pbkdf2', args: [{ s: 'pw' }, { s: 'salt' }, { v: iterations }, { v: 32 }, { s: 'sha256' }] });
    const small = pbkdf2(10_000);
    expect(small.ok).toBe(true);
    const big = pbkdf2(2_000_000);
    expect(big.ok).toBe(false);
    expect(big.ok ? '' : big.error).toMatch(/would take about \d+ ms, more than the 300 ms left/);
    left = 0;
    const after = session.call({ fn: 'hash', args: [{ s: 'x' }, { s: 'sha256' }, { v: null }, { s: 'hex' }] });
    expect(after).toEqual({ ok: false, error: "D.crypto: the run's time limit is reached" });
    expect(session.hostMs).toBeGreaterThan(0);
  });
});
