// A driver reaches its device and nothing else: refused url forms, redirects checked
// hop by hop, and external devices behind the host's allow-list.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceServer, type DeviceServer, type SeenRequest } from '../../helpers/device-server.js';
import { runSource, useHost } from '../../helpers/host.js';

describe('D.device.http scope', () => {
  const host = useHost({ externalHosts: ['localhost'] });
  let server: DeviceServer;
  let other: DeviceServer;

  beforeAll(async () => {
    other = await startDeviceServer();
    server = await startDeviceServer({
      route(req: SeenRequest, res: ServerResponse) {
        // Absolute redirects, as devices send them: to this server by IP or by name, to another port, elsewhere.
        const to: Record<string, string> = {
          '/abs-self': `http://127.0.0.1:${server.port}/echo`,
          '/abs-port80': 'http://127.0.0.1/echo', // port 80: the port map sends it to this server
          '/abs-other-port': `http://127.0.0.1:${other.port}/echo`,
          '/abs-by-name': `http://LOCALHOST:${server.port}/echo`,
          '/abs-elsewhere': 'http://192.0.2.10/steal',
          '/abs-userinfo': `http://user:pw@127.0.0.1:${server.port}/echo`,
          '/abs-ftp': 'ftp://127.0.0.1/file',
        };
        const location = to[req.url];
        if (!location) return false;
        res.writeHead(302, { location });
        res.end();
        return true;
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await other.close();
  });

  const device = (extra: Record<string, unknown> = {}) => ({ ip: '127.0.0.1', portMap: { 80: server.port }, ...extra });

  /** Runs one request and returns what the callback saw and the run's transcript. */
  async function call(fn: string, options: string, extra: Record<string, unknown> = {}, run: { externalHosts?: string[] } = {}) {
    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.${fn}(${options}, function (err, res, body) {
          console.log(JSON.stringify({ code: err ? err.code : null, message: err ? err.message : null, status: res ? res.statusCode : null, body: body }));
          D.success();
        });
      }`,
      { device: device(extra), ...run },
    );
    expect(result.status, result.message ?? '').toBe('success');
    return { ...(JSON.parse(result.logs[0]!.message) as { code: string | null; message: string | null; status: number | null; body: string }), http: result.http };
  }

  it.each([
    ['an absolute url', 'http://evil.example/x'],
    ['an absolute url to the device itself', 'http://127.0.0.1/x'],
    ['a protocol-relative url', '//evil.example/x'],
    ['userinfo', '/@evil.example'],
    ['CR/LF', '/a\\r\\nHost: evil'],
    ['a backslash', '/a\\\\b'],
    ['a tab', '/a\\tb'],
    ['a relative path', 'status'],
    ['an empty url', ''],
    ['a non-string url', 42],
  ])('refuses %s with INVALID_URL and sends nothing', async (_name, url) => {
    const before = server.seen.length;
    const r = await call('get', `{ url: ${typeof url === 'string' ? `'${url}'` : url} }`);
    if (url === '/@evil.example') {
      // "@" in a path is just a path character: it stays on the device.
      expect(r.status).toBe(200);
      expect(server.seen.at(-1)!.url).toBe('/@evil.example');
      return;
    }
    expect(r.code).toBe('INVALID_URL');
    expect(r.message).toMatch(/url/);
    expect(server.seen.length).toBe(before);
    expect(r.http[0]).toMatchObject({ error: 'INVALID_URL', status: null });
  });

  it('dot segments stay on the device', async () => {
    const r = await call('get', `{ url: '/a/../../../etc/passwd' }`);
    expect(r.status).toBe(200);
    expect(server.seen.at(-1)!.url).toBe('/etc/passwd');
  });

  it('follows GET redirects on the device, relative and absolute, each hop in the transcript', async () => {
    const r = await call('get', `{ url: '/redirect?to=/redirect%3Fto%3D/final%26status%3D301&status=302' }`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ url: '/final' });
    expect(r.http.map((h) => h.status)).toEqual([302, 301, 200]);
    expect(r.http[0]!.redirectedTo).toBe(`http://127.0.0.1:${server.port}/redirect?to=/final&status=301`);
    expect(r.http[2]!.redirectedTo).toBeNull();

    const self = await call('get', `{ url: '/abs-self' }`);
    expect(self.status).toBe(200);
    const mapped = await call('get', `{ url: '/abs-port80' }`);
    expect(mapped.status).toBe(200);
    expect(mapped.http[1]!.url).toBe(`http://127.0.0.1:${server.port}/echo`);
    const otherPort = await call('get', `{ url: '/abs-other-port' }`);
    expect(otherPort.status).toBe(200);
    expect(other.seen.at(-1)!.url).toBe('/echo');
  });

  it('a redirect to the device under its other name (host name ↔ IP) is followed', async () => {
    const r = await call('get', `{ url: '/abs-by-name', useHostname: false }`, { host: 'localhost' });
    expect(r.status).toBe(200);
    expect(r.http[1]!.url).toBe(`http://localhost:${server.port}/echo`);
  });

  it.each([
    ['/abs-elsewhere', 'another host'],
    ['/abs-userinfo', 'userinfo'],
    ['/abs-ftp', 'another protocol'],
  ])('refuses a redirect that leaves the device (%s: %s) without sending it', async (path) => {
    const before = server.seen.length;
    const r = await call('get', `{ url: '${path}' }`);
    expect(r.code).toBe('REDIRECT_REFUSED');
    expect(r.message).toMatch(/redirect/);
    if (path === '/abs-elsewhere') {
      expect(r.message).toBe('the device redirected to http://192.0.2.10, another host; to follow it, allow 192.0.2.10: --external-hosts 192.0.2.10 (driverbox run, serve or agent); in code, the externalHosts option of createHost or host.run');
    }
    expect(server.seen.length).toBe(before + 1);
    expect(r.http).toHaveLength(1);
    expect(r.http[0]).toMatchObject({ status: 302, error: 'REDIRECT_REFUSED' });
  });

  it('a redirect to a host name the device does not have is refused even when it resolves here, unless the allow-list names it', async () => {
    // The device is known by IP only: "localhost" is another host as far as the driver is concerned.
    const before = server.seen.length;
    const r = await call('get', `{ url: '/abs-by-name' }`, {}, { externalHosts: ['cloud.example'] });
    expect(r.code).toBe('REDIRECT_REFUSED');
    expect(r.message).toContain('redirected to http://localhost:');
    expect(r.message).toContain('allow localhost: --external-hosts localhost (driverbox run, serve or agent)');
    expect(server.seen.length).toBe(before + 1);
    // The host's list (localhost) is the run's when it has none of its own: followed.
    const allowed = await call('get', `{ url: '/abs-by-name' }`);
    expect(allowed.status).toBe(200);
    expect(allowed.http.map((h) => h.url)).toEqual([`http://127.0.0.1:${server.port}/abs-by-name`, `http://localhost:${server.port}/echo`]);
  });

  it('followRedirect: false and maxRedirects', async () => {
    const off = await call('get', `{ url: '/redirect?to=/echo', followRedirect: false }`);
    expect(off.status).toBe(302);
    expect(off.http).toHaveLength(1);
    const zero = await call('get', `{ url: '/redirect?to=/echo', maxRedirects: 0 }`);
    expect(zero.code).toBe('TOO_MANY_REDIRECTS');
    const one = await call('get', `{ url: '/redirect?to=/echo', maxRedirects: 1 }`);
    expect(one.status).toBe(200);
  });

  it('POST redirects are returned, not followed, unless followAllRedirects; 303 becomes a GET, 307 keeps the method and body', async () => {
    const plain = await call('post', `{ url: '/redirect?to=/echo&status=302', body: 'x' }`);
    expect(plain.status).toBe(302);
    const see = await call('post', `{ url: '/redirect?to=/echo&status=303', body: 'data', followAllRedirects: true }`);
    expect(JSON.parse(see.body)).toMatchObject({ method: 'GET', body: '' });
    const keep = await call('put', `{ url: '/redirect?to=/echo&status=307', body: 'data', followAllRedirects: true }`);
    expect(JSON.parse(keep.body)).toMatchObject({ method: 'PUT', body: 'data' });
  });

  it('basic auth goes with every hop on the device', async () => {
    await call('get', `{ url: '/redirect?to=/echo', auth: 'basic', username: 'u', password: 'p' }`);
    expect(server.seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
  });

  it('D.createExternalDevice reaches allowed hosts only, with its own credentials, and its url is a path too', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        var api = D.createExternalDevice('localhost', { username: 'cloud', password: 'key' });
        api.http.get({ url: '/ext', port: ${server.port}, auth: 'basic' }, function (err, res) {
          api.http.get({ url: 'http://127.0.0.1/x', port: ${server.port} }, function (err2) {
            D.success([D.createVariable('s', 'S', err ? err.code : res.statusCode), D.createVariable('c', 'C', err2 && err2.code), D.createVariable('h', 'H', api.hostname())]);
          });
        });
      }`,
      { device: device({ username: 'admin', password: 'secret' }) },
    );
    expect(result.variables.map((v) => v.value)).toEqual(['200', 'INVALID_URL', 'localhost']);
    expect(server.seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('cloud:key').toString('base64')}`);
    const denied = await runSource(host, `function get_status() { D.createExternalDevice('example.com'); }`, { device: device() });
    expect(denied.status).toBe('failure');
    expect(denied.message).toContain('does not allow "example.com"');
  });

  it('a run may carry its own allow-list, instead of the host\'s; names compare case-insensitively', async () => {
    const make = (name: string) => `function get_status() { D.createExternalDevice('${name}'); D.success(); }`;
    const perRun = await runSource(host, make('Cloud.Example'), { device: device(), externalHosts: ['cloud.example'] });
    expect(perRun.status).toBe('success');
    const notInRun = await runSource(host, make('localhost'), { device: device(), externalHosts: ['cloud.example'] });
    expect(notInRun.message).toContain('does not allow "localhost"');
    const byPredicate = await runSource(host, make('api.vendor.example'), { device: device(), externalHosts: (h: string) => h.endsWith('.vendor.example') });
    expect(byPredicate.status).toBe('success');
    await expect(runSource(host, make('x'), { device: device(), externalHosts: 'x' as unknown as string[] })).rejects.toThrow(/externalHosts/);
  });

  it('an external device cannot be redirected to the run\'s device', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        var api = D.createExternalDevice('localhost');
        api.http.get({ url: '/redirect?to=' + encodeURIComponent('http://127.0.0.1:${server.port}/echo'), port: ${server.port} }, function (err) {
          D.success([D.createVariable('c', 'C', err && err.code)]);
        });
      }`,
      { device: device() },
    );
    expect(result.variables[0]!.value).toBe('REDIRECT_REFUSED');
  });
});
