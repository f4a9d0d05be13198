// D.device.http request options and their defaults, against a real server on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestPki } from '../../helpers/certs.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource, useHost } from '../../helpers/host.js';

describe('D.device.http options', () => {
  const host = useHost();
  let http: DeviceServer;
  let https: DeviceServer;
  let pki: Awaited<ReturnType<typeof makeTestPki>>;

  beforeAll(async () => {
    pki = await makeTestPki();
    http = await startDeviceServer();
    https = await startDeviceServer({ tls: pki.selfSigned });
  });
  afterAll(async () => {
    await http.close();
    await https.close();
  });

  const device = (extra: Record<string, unknown> = {}) => ({
    ip: '127.0.0.1',
    username: 'admin',
    password: 'p@ss word',
    portMap: { 80: http.port, 443: https.port },
    ...extra,
  });

  /** Runs a driver whose get_status calls `call` and reports (err, res, body) as JSON in a log line. */
  async function request(call: string, extra: Record<string, unknown> = {}) {
    const result = await runSource(
      host,
      `function get_status() {
        ${call}(function (err, res, body) {
          console.log(JSON.stringify({
            code: err ? err.code : null,
            message: err ? err.message : null,
            isError: err instanceof Error,
            status: res ? res.statusCode : null,
            statusMessage: res ? res.statusMessage : null,
            headers: res ? res.headers : null,
            bodyType: typeof body,
            isBuffer: !!(body && typeof body.readUInt8 === 'function' && D._unsafe.buffer.concat([body]).equals(body)),
            bytes: body && typeof body.readUInt8 === 'function' ? Array.prototype.slice.call(body) : null,
            sameBody: res ? res.body === body : null,
            body: body,
          }));
          D.success();
        });
      }`,
      { device: device(extra) },
    );
    expect(result.status, result.message ?? '').toBe('success');
    const seen: Record<string, any> = JSON.parse(result.logs[0]!.message);
    return Object.assign(seen, { result });
  }
  const lastSeen = () => http.seen.at(-1)!;

  it('GET defaults: http on port 80 (through the port map), path "/", no auth, response fields and body', async () => {
    const r = await request(`D.device.http.get.bind(null, {})`);
    expect(lastSeen()).toMatchObject({ method: 'GET', url: '/' });
    expect(lastSeen().headers.authorization).toBeUndefined();
    expect(r).toMatchObject({ code: null, status: 200, statusMessage: 'OK', bodyType: 'string', sameBody: true });
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.body)).toMatchObject({ method: 'GET', url: '/' });
    expect(r.result.http[0].url).toBe(`http://127.0.0.1:${http.port}/`);
  });

  it('sends each method with its body: text, json object, form object, form string', async () => {
    await request(`D.device.http.post.bind(null, { url: '/a', body: 'raw text', headers: { 'X-Token': 't1' } })`);
    expect(lastSeen()).toMatchObject({ method: 'POST', url: '/a', body: 'raw text' });
    expect(lastSeen().headers['x-token']).toBe('t1');
    await request(`D.device.http.put.bind(null, { url: '/b', json: { k: 1 } })`);
    expect(lastSeen()).toMatchObject({ method: 'PUT', body: '{"k":1}' });
    expect(lastSeen().headers['content-type']).toBe('application/json');
    expect(lastSeen().headers.accept).toBe('application/json');
    await request(`D.device.http.post.bind(null, { url: '/c', form: { a: 'x y', b: 2, list: [1, 2] } })`);
    expect(lastSeen()).toMatchObject({ body: 'a=x+y&b=2&list=1&list=2' });
    expect(lastSeen().headers['content-type']).toBe('application/x-www-form-urlencoded');
    await request(`D.device.http.post.bind(null, { url: '/c2', form: 'q=1&r=2', headers: { 'Content-Type': 'text/plain' } })`);
    expect(lastSeen()).toMatchObject({ body: 'q=1&r=2' });
    expect(lastSeen().headers['content-type']).toBe('text/plain');
    await request(`D.device.http.delete.bind(null, { url: '/d' })`);
    expect(lastSeen()).toMatchObject({ method: 'DELETE', url: '/d', body: '' });
  });

  it('json: true parses a JSON response into an object; a non-JSON response stays text', async () => {
    const parsed = await request(`D.device.http.get.bind(null, { url: '/j', json: true })`);
    expect(parsed.bodyType).toBe('object');
    expect(parsed.body).toMatchObject({ method: 'GET', url: '/j' });
    const text = await request(`D.device.http.get.bind(null, { url: '/status?code=200&body=not-json', json: true })`);
    expect(text).toMatchObject({ bodyType: 'string', body: 'not-json' });
  });

  it('qs adds query parameters; url keeps its own query', async () => {
    await request(`D.device.http.get.bind(null, { url: '/q?a=1', qs: { b: 'x y', c: [1, 2] } })`);
    expect(lastSeen().url).toBe('/q?a=1&b=x+y&c=1&c=2');
  });

  it('encoding: null gives the body as a Buffer; encoding names decode it', async () => {
    const bytes = await request(`D.device.http.get.bind(null, { url: '/binary', encoding: null })`);
    expect(bytes).toMatchObject({ isBuffer: true, bytes: [0, 1, 2, 250, 255] });
    const hex = await request(`D.device.http.get.bind(null, { url: '/binary', encoding: 'hex' })`);
    expect(hex.body).toBe('000102faff');
    const latin1 = await request(`D.device.http.get.bind(null, { url: '/binary', encoding: 'latin1' })`);
    expect([...latin1.body].map((c: string) => c.charCodeAt(0))).toEqual([0, 1, 2, 250, 255]);
    const bad = await request(`D.device.http.get.bind(null, { url: '/binary', encoding: 'klingon' })`);
    expect(bad).toMatchObject({ code: 'INVALID_OPTIONS', isError: true });
    expect(bad.message).toContain('encoding');
  });

  it('gzip: true asks for and decodes a compressed body; without it the bytes are as sent', async () => {
    const zipped = await request(`D.device.http.get.bind(null, { url: '/gzip', gzip: true, json: true })`);
    expect(zipped.body).toEqual({ zipped: true });
    expect(lastSeen().headers['accept-encoding']).toBe('gzip, deflate');
    const raw = await request(`D.device.http.get.bind(null, { url: '/gzip', encoding: null })`);
    expect(raw.bytes.slice(0, 2)).toEqual([0x1f, 0x8b]);
  });

  it('auth: "basic" uses the device credentials, options.username/password override them, other values are ignored', async () => {
    const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    await request(`D.device.http.get.bind(null, { url: '/auth', auth: 'basic' })`);
    expect(lastSeen().headers.authorization).toBe(basic('admin', 'p@ss word'));
    await request(`D.device.http.get.bind(null, { url: '/auth', auth: 'basic', username: 'other', password: 'pw' })`);
    expect(lastSeen().headers.authorization).toBe(basic('other', 'pw'));
    await request(`D.device.http.get.bind(null, { url: '/auth', auth: 'basic', password: 'only-pw' })`);
    expect(lastSeen().headers.authorization).toBe(basic('admin', 'only-pw'));
    await request(`D.device.http.get.bind(null, { url: '/auth', auth: 'digest' })`);
    expect(lastSeen().headers.authorization).toBeUndefined();
    await request(`D.device.http.get.bind(null, { url: '/auth', username: 'u', password: 'p' })`);
    expect(lastSeen().headers.authorization).toBeUndefined();
    // The driver's own Authorization header is sent as given.
    await request(`D.device.http.get.bind(null, { url: '/auth', headers: { Authorization: 'Bearer t0k' } })`);
    expect(lastSeen().headers.authorization).toBe('Bearer t0k');
  });

  it('fills ${username} and ${password} in the url, URL-encoded, and masks the password in the transcript', async () => {
    const r = await request(`D.device.http.get.bind(null, { url: '/login?u=\${username}&p=\${password}' })`);
    expect(lastSeen().url).toBe('/login?u=admin&p=p%40ss%20word');
    expect(r.result.http[0].url).toBe(`http://127.0.0.1:${http.port}/login?u=admin&p=***`);
    // Every occurrence, not only the first (the README's claim).
    await request(`D.device.http.get.bind(null, { url: '/\${username}/x?a=\${password}&b=\${password}&c=\${username}' })`);
    expect(lastSeen().url).toBe('/admin/x?a=p%40ss%20word&b=p%40ss%20word&c=admin');
  });

  it('useHostname: the host name by default, the IP when false or when no host name is known', async () => {
    const named = await request(`D.device.http.get.bind(null, { url: '/h' })`, { host: 'localhost' });
    expect(named.result.http[0].url).toBe(`http://localhost:${http.port}/h`);
    expect(lastSeen().headers.host).toBe(`localhost:${http.port}`);
    const byIp = await request(`D.device.http.get.bind(null, { url: '/h', useHostname: false })`, { host: 'localhost' });
    expect(byIp.result.http[0].url).toBe(`http://127.0.0.1:${http.port}/h`);
    const noName = await request(`D.device.http.get.bind(null, { url: '/h', useHostname: true })`);
    expect(noName.result.http[0].url).toBe(`http://127.0.0.1:${http.port}/h`);
    const none = await request(`D.device.http.get.bind(null, { url: '/h' })`, { ip: null });
    expect(none.code).toBe('MISSING_DEVICE_ADDRESS');
  });

  it('port and protocol: https defaults to 443, an explicit port is dialled through the port map or as is', async () => {
    const tls = await request(`D.device.http.get.bind(null, { url: '/s', protocol: 'https', rejectUnauthorized: false })`);
    expect(tls.status).toBe(200);
    expect(tls.result.http[0].url).toBe(`https://127.0.0.1:${https.port}/s`);
    const explicit = await request(`D.device.http.get.bind(null, { url: '/p', port: ${http.port} })`, { portMap: {} });
    expect(explicit.status).toBe(200);
    const bad = await request(`D.device.http.get.bind(null, { url: '/p', protocol: 'ftp' })`);
    expect(bad.code).toBe('INVALID_OPTIONS');
    const badPort = await request(`D.device.http.get.bind(null, { url: '/p', port: 70000 })`);
    expect(badPort.code).toBe('INVALID_OPTIONS');
  });

  it('rejectUnauthorized: verification is on by default; false (or strictSSL: false) accepts a self-signed device', async () => {
    const strict = await request(`D.device.http.get.bind(null, { url: '/s', protocol: 'https' })`);
    expect(strict.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    expect(strict.message).toContain('rejectUnauthorized');
    const relaxed = await request(`D.device.http.get.bind(null, { url: '/s', protocol: 'https', strictSSL: false })`);
    expect(relaxed.status).toBe(200);
  });

  it('timeout bounds one request; a later request of the run still works', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.get({ url: '/slow?ms=2000', timeout: 150 }, function (err) {
          D.device.http.get({ url: '/after' }, function (err2, res) {
            D.success([D.createVariable('first', 'First', err && err.code), D.createVariable('second', 'Second', res.statusCode)]);
          });
        });
      }`,
      { device: device() },
    );
    expect(result.variables.map((v) => v.value)).toEqual(['ETIMEDOUT', '200']);
    expect(result.http[0]!.durationMs).toBeLessThan(1500);
  });

  it('headers: names are sent lower-cased as given; CR/LF in a value and bad names are refused', async () => {
    await request(`D.device.http.get.bind(null, { url: '/hd', headers: { 'X-A': 1, 'x-list': ['a', 'b'], Host: 'evil.example' } })`);
    expect(lastSeen().headers['x-a']).toBe('1');
    expect(lastSeen().headers['x-list']).toBe('a, b');
    expect(lastSeen().headers.host).toBe(`127.0.0.1:${http.port}`);
    const crlf = await request(`D.device.http.get.bind(null, { url: '/hd', headers: { 'X-A': 'a\\r\\nX-Injected: 1' } })`);
    expect(crlf.code).toBe('INVALID_HEADER');
    const badName = await request(`D.device.http.get.bind(null, { url: '/hd', headers: { 'Bad Name': 'x' } })`);
    expect(badName.code).toBe('INVALID_OPTIONS');
  });

  it('response headers: lower-case names, set-cookie always an array', async () => {
    const one = await request(`D.device.http.get.bind(null, { url: '/set-cookie?cookie=a%3D1' })`);
    expect(one.headers['set-cookie']).toEqual(['a=1']);
    const two = await request(`D.device.http.get.bind(null, { url: '/set-cookie?cookie=a%3D1&cookie=b%3D2' })`);
    expect(two.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(Object.keys(two.headers).every((name) => name === name.toLowerCase())).toBe(true);
  });

  it('a non-2xx status is a response, not an error', async () => {
    const r = await request(`D.device.http.get.bind(null, { url: '/status?code=503&body=down' })`);
    expect(r).toMatchObject({ code: null, status: 503, statusMessage: 'Service Unavailable', body: 'down' });
  });

  it('a missing callback or non-object options throw in the driver with a clear message', async () => {
    const noCallback = await runSource(host, `function get_status() { D.device.http.get({ url: '/' }); }`, { device: device() });
    expect(noCallback.status).toBe('failure');
    expect(noCallback.message).toContain('callback');
    const badOptions = await runSource(host, `function get_status() { D.device.http.get(42, function () {}); }`, { device: device() });
    expect(badOptions.message).toContain('options must be an object');
  });
});
