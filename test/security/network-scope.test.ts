// Requests to anything but the device. test/bridges/http/scope.test.ts already refuses absolute urls,
// //host, CR/LF, tabs and backslashes in the url, and checks redirects by IP / name / port,
// userinfo and other schemes; here are the tricks around those rules: percent-encoding,
// credentials in the url, the Host header, header injection, redirects dressed up, option
// values that are not what they seem, external hosts that are more than a name, and a host
// name that resolves elsewhere in a later run. A second server ("elsewhere") must never be hit.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { useHost } from '../helpers/host.js';
import { attack, logged } from './harness.js';

interface Seen {
  code: string | null;
  status: number | null;
  body: unknown;
}

describe('security: network scope', () => {
  const host = useHost({ externalHosts: (name) => name === 'localhost' || name.endsWith('.allowed.test') });
  let device: DeviceServer;
  let elsewhere: DeviceServer;
  beforeAll(async () => {
    elsewhere = await startDeviceServer();
    device = await startDeviceServer({
      route(req, res) {
        if (!req.url.startsWith('/go?')) return false;
        res.writeHead(302, { location: new URL(req.url, 'http://x').searchParams.get('to')! });
        res.end();
        return true;
      },
    });
  });
  afterAll(async () => {
    await device.close();
    await elsewhere.close();
  });
  const onDevice = (extra: Record<string, unknown> = {}) => ({ ip: '127.0.0.1', portMap: { 80: device.port }, ...extra });

  /** Runs `options` through D.device.http.get and returns what the callback saw, per request. */
  async function tryAll(options: string[], request: Record<string, unknown> = {}): Promise<Seen[]> {
    const r = await attack(
      host,
      `function get_status() {
        var all = ${JSON.stringify(options)}.map(function (o) { return eval('(' + o + ')'); });
        var seen = new Array(all.length), left = all.length;
        all.forEach(function (o, i) {
          D.device.http.get(o, function (err, res, body) {
            seen[i] = { code: err ? err.code : null, status: res ? res.statusCode : null, body: body };
            if (--left === 0) { console.log(JSON.stringify(seen)); D.success(); }
          });
        });
      }`,
      { device: onDevice(), ...request },
    );
    expect(r.status, r.message ?? '').toBe('success');
    return logged<Seen[]>(r);
  }

  it('N1 percent-encoded slashes, @, backslashes and CR/LF stay in the path on the device', async () => {
    const before = device.seen.length;
    const urls = ['/%2F%2F127.0.0.1:1/x', '/%40127.0.0.1', '/%5C%5Celsewhere', '/..%2F..%2Fetc%2Fpasswd', '/a%0D%0AHost:%20evil', '/%252F%252Fevil'];
    const seen = await tryAll(urls.map((u) => `{ url: ${JSON.stringify(u)}, json: true }`));
    expect(seen.map((s) => s.status)).toEqual(urls.map(() => 200));
    expect(device.seen.slice(before).map((s) => s.url).sort()).toEqual([...urls].sort());
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('N2 credentials substituted into the url (${password}) cannot move it to another host', async () => {
    const before = device.seen.length;
    const seen = await tryAll([`{ url: '/login?p=\${password}&u=\${username}' }`, `{ url: '/\${password}' }`], {
      device: onDevice({ username: 'a@b', password: `x@127.0.0.1:${elsewhere.port}/#` }),
    });
    expect(seen.map((s) => s.status)).toEqual([200, 200]);
    const urls = device.seen.slice(before).map((s) => s.url);
    expect(urls).toContain(`/login?p=x%40127.0.0.1%3A${elsewhere.port}%2F%23&u=a%40b`);
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('N3 a Host header (any case, repeated) is not the driver\'s to set; framing headers neither', async () => {
    const before = device.seen.length;
    await tryAll([`{ url: '/echo', headers: { Host: 'evil.test', HOST: 'evil2.test', 'Content-Length': '0', 'Transfer-Encoding': 'chunked', Connection: 'upgrade' }, body: 'abc' }`]);
    const got = device.seen.slice(before)[0]!;
    expect(got.headers.host).toBe(`127.0.0.1:${device.port}`);
    expect(got.headers['content-length']).toBe('3');
    expect(got.headers['transfer-encoding']).toBeUndefined();
    expect(got.body).toBe('abc');
  });

  it('N4 CR, LF or NUL in a header value, and header names that are not tokens, are refused before anything is sent', async () => {
    const before = device.seen.length;
    const seen = await tryAll([
      `{ url: '/h1', headers: { 'x-a': 'v\\r\\nHost: evil' } }`,
      `{ url: '/h2', headers: { 'x-a': 'v\\nSet-Cookie: a=b' } }`,
      `{ url: '/h3', headers: { 'x-a': 'v\\u0000' } }`,
      `{ url: '/h4', headers: { 'x-a\\r\\nHost': 'evil' } }`,
      `{ url: '/h5', headers: { 'Host:evil.test': '1' } }`,
    ]);
    expect(seen.map((s) => s.code)).toEqual(['INVALID_HEADER', 'INVALID_HEADER', 'INVALID_HEADER', 'INVALID_OPTIONS', 'INVALID_OPTIONS']);
    expect(device.seen.length).toBe(before);
  });

  it('N5 redirects dressed up as the device (userinfo, encoded @, backslashes, scheme-relative, IPv4-mapped IPv6, another name) are refused', async () => {
    const e = elsewhere.port;
    const targets = [
      `http://127.0.0.1:${device.port}@localhost:${e}/`,
      `http://127.0.0.1%40localhost:${e}/`,
      `http:\\\\localhost:${e}\\x`,
      `//localhost:${e}/x`,
      `http://[::ffff:127.0.0.1]:${e}/`,
      `http://localhost:${e}/`,
      `http://127.0.0.2:${e}/`,
    ];
    // This run does not allow localhost (the host's list does): a redirect to a host the run allows
    // is followed by design (issue 19, http-redirect-hosts); here none of these forms may reach it.
    const seen = await tryAll(
      targets.map((t) => `{ url: ${JSON.stringify(`/go?to=${encodeURIComponent(t)}`)} }`),
      { externalHosts: (name: string) => name.endsWith('.allowed.test') },
    );
    // (The device's own IP on another port is the device, and followed by design: see http-scope.)
    expect(seen.map((s, i) => [targets[i], s.code])).toEqual(targets.map((t) => [t, 'REDIRECT_REFUSED']));
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('N6 protocol, port and useHostname values that are not what they seem are refused or stay on the device', async () => {
    const seen = await tryAll([
      `{ url: '/p', protocol: 'file' }`,
      `{ url: '/p', protocol: 'http://127.0.0.1:${elsewhere.port}/' }`,
      `{ url: '/p', port: '80@127.0.0.1:${elsewhere.port}' }`,
      `{ url: '/p', port: '${elsewhere.port}/x' }`,
      `{ url: '/p', port: 70000 }`,
      `{ url: '/p', port: -1 }`,
      `{ url: '/p', useHostname: 'yes', host: '127.0.0.1', hostname: '127.0.0.1', uri: 'http://127.0.0.1:${elsewhere.port}/' }`,
    ]);
    expect(seen.map((s) => s.code)).toEqual(['INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', 'INVALID_OPTIONS', null]);
    expect(seen[6]!.status).toBe(200); // the extra host / uri options are ignored: the device answered
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('N7 getTLSCertificate takes only a port: host / servername options do not move it', async () => {
    const r = await attack(
      host,
      `function get_status() {
        D.device.http.getTLSCertificate({ port: 443, host: '127.0.0.1', hostname: 'localhost', servername: 'evil.test' }, function (err) {
          D.success([D.createVariable('found', 'Found', err ? err.code : 'cert')]);
        });
      }`,
      { device: { ip: '127.0.0.1', portMap: { 443: elsewhere.port } } },
    );
    // The device (by its port map) answers plain HTTP on 443, so the read fails; what matters is where it went: the device, not the names in the options.
    expect(r.http[0]!.url).toBe(`tls://127.0.0.1:443`);
    expect(r.variables[0]!.value).not.toBe('cert');
  });

  it('N8 D.createExternalDevice: a name that passes a suffix rule but carries a port, path, fragment or user is refused', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var names = ['127.0.0.1:${elsewhere.port}/.allowed.test', '127.0.0.1:${elsewhere.port}#.allowed.test', '127.0.0.1:${elsewhere.port}?.allowed.test',
          'user@127.0.0.1:${elsewhere.port}/x.allowed.test', ' localhost', 'localhost\\r\\n.allowed.test', 'api.allowed.test'];
        var out = names.map(function (n) { try { D.createExternalDevice(n); return 'created'; } catch (e) { return /not a host name or IP/.test(e.message) ? 'bad-name' : 'not-allowed'; } });
        var ext = null;
        try { ext = D.createExternalDevice('127.0.0.1:${elsewhere.port}/.allowed.test'); } catch (e) {}
        D.success([D.createVariable('found', 'Found', out.join(',') + ';' + (ext === null))]);
      }`,
    );
    expect(r.variables[0]!.value).toBe('bad-name,bad-name,bad-name,bad-name,bad-name,bad-name,created;true');
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('N9 an allow-list by name is not an allow-list by address: the IP behind an allowed name is refused', async () => {
    const r = await attack(
      host,
      `function get_status() {
        var out = ['127.0.0.1', '::1', 'LOCALHOST'].map(function (n) { try { D.createExternalDevice(n); return 'created'; } catch (e) { return 'refused'; } });
        D.success([D.createVariable('found', 'Found', out.join(','))]);
      }`,
    );
    // The policy sees the canonical name: LOCALHOST is localhost (and is dialled as such).
    expect(r.variables[0]!.value).toBe('refused,refused,created');
  });

  it('N10 the device\'s host name resolves elsewhere in a later run (127.0.0.2): that run reaches the new address, without the jar or connections of the old one', async () => {
    const moved = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: req.url, cookie: req.headers.cookie ?? null }));
    });
    await new Promise<void>((resolve) => moved.listen(0, '127.0.0.2', resolve));
    const movedPort = (moved.address() as AddressInfo).port;
    try {
      const first = await attack(
        host,
        `function get_status() { D.device.http.get({ url: '/set-cookie?cookie=session=from-first', jar: true }, function () { D.success(); }); }`,
        { device: { id: 'dev-1', host: 'nas.test' }, resolve: { 'nas.test': { ip: '127.0.0.1', portMap: { 80: device.port } } } },
      );
      expect(first.status).toBe('success');
      const second = await attack(
        host,
        `function get_status() {
          D.device.http.get({ url: '/echo', jar: true, json: true }, function (err, res, body) { D.success([D.createVariable('found', 'Found', err ? err.code : JSON.stringify(body))]); });
        }`,
        { device: { id: 'dev-1', host: 'nas.test' }, resolve: { 'nas.test': { ip: '127.0.0.2', portMap: { 80: movedPort } } } },
      );
      expect(JSON.parse(second.variables[0]!.value!)).toEqual({ url: '/echo', cookie: null });
    } finally {
      moved.closeAllConnections();
      await new Promise((resolve) => moved.close(resolve));
    }
  });
});
