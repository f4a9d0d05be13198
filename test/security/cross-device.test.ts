// One device's secrets in another device's run: credentials, basic auth, cookies, external
// devices' credentials, parameters, and runs of different devices at the same time. The
// same-address cookie cases are in test/http-cookies.test.ts.
import { describe, expect, it } from 'vitest';
import { useDeviceServer } from '../helpers/device-server.js';
import { useHost } from '../helpers/host.js';
import { attack, reported } from './harness.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('security: cross-device', () => {
  const host = useHost({ externalHosts: ['localhost'], threads: 1, maxIsolates: 4 });
  const server = useDeviceServer();
  const deviceA = () => ({ id: 'A', ip: '127.0.0.1', portMap: { 80: server.port }, username: 'alice', password: 'secret-of-A' });
  const deviceB = () => ({ id: 'B', ip: '127.0.0.1', portMap: { 80: server.port } });

  it('X1 after a run of device A, a run of device B sees none of A\'s credentials: not in D.device, not in basic auth, not in its result', async () => {
    await attack(host, `function get_status() { D.device.http.get({ url: '/a', auth: 'basic' }, function () { D.success(); }); }`, { device: deviceA() });
    const before = server.seen.length;
    const r = await attack(
      host,
      `function get_status() {
        var found = [D.device.username(), D.device.password()];
        D.device.http.get({ url: '/b', auth: 'basic' }, function () { D.success([D.createVariable('found', 'Found', JSON.stringify(found))]); });
      }`,
      { device: deviceB(), transcript: 'full' },
    );
    expect(reported(r)).toBe('[null,null]');
    const seenB = server.seen.slice(before);
    expect(seenB.map((s) => s.url)).toEqual(['/b']);
    expect(seenB[0]!.headers.authorization ?? basic('', '')).toBe(basic('', ''));
    expect(JSON.stringify(r)).not.toContain('secret-of-A');
  });

  it('X2 cookies stored by device A (jar: true) are not sent on device B\'s requests, nor readable by B', async () => {
    // One driver for all three runs: sessions are also per driver (security/bridge-network B11).
    const driver = `function get_status() {
      if (D.getParameter('set')) return D.device.http.get({ url: '/set-cookie?cookie=sid=A-session', jar: true }, function () { D.success(); });
      D.device.http.get({ url: '/echo', jar: true, json: true }, function (e, res, body) { D.success([D.createVariable('found', 'Found', String(body.headers.cookie))]); });
    }`;
    await attack(host, driver, { device: deviceA(), parameters: { set: true } });
    const before = server.seen.length;
    const r = await attack(host, driver, { device: deviceB(), parameters: { set: false } });
    expect(reported(r)).toBe('undefined');
    expect(server.seen.slice(before)[0]!.headers.cookie).toBeUndefined();
    // A itself still has its session: the jar was kept, just not shared.
    const again = await attack(host, driver, { device: deviceA(), parameters: { set: false } });
    expect(reported(again)).toBe('sid=A-session');
  });

  it('X3 an external device\'s credentials given in one run are not used by another run\'s external device of the same host', async () => {
    await attack(
      host,
      `function get_status() { var api = D.createExternalDevice('localhost', { username: 'svc', password: 'api-key-1' });
        api.http.get({ url: '/ext-a', port: ${server.port}, auth: 'basic', jar: true }, function () { D.success(); }); }`,
      { device: deviceA() },
    );
    const before = server.seen.length;
    const r = await attack(
      host,
      `function get_status() { var api = D.createExternalDevice('localhost');
        api.http.get({ url: '/ext-b', port: ${server.port}, auth: 'basic', jar: true }, function (e) { D.success([D.createVariable('found', 'Found', String(api.password()))]); }); }`,
      { device: deviceB() },
    );
    expect(reported(r)).toBe('null');
    const got = server.seen.slice(before)[0]!;
    expect(got.url).toBe('/ext-b');
    expect(got.headers.authorization ?? basic('', '')).toBe(basic('', ''));
  });

  it('X4 runs of two devices at the same time, interleaved, each send only their own credentials and get only their own parameters', async () => {
    const before = server.seen.length;
    const driver = `function get_status() {
      var n = 0;
      for (var i = 0; i < 5; i++) D.device.http.get({ url: '/who?d=' + D.getParameter('me'), auth: 'basic' }, function () {
        if (++n === 5) D.success([D.createVariable('found', 'Found', D.getParameter('me') + ':' + D.device.password())]);
      });
    }`;
    const runs = Array.from({ length: 8 }, (_, i) => {
      const me = i % 2 === 0 ? 'A' : 'B';
      const device = { id: me, ip: '127.0.0.1', portMap: { 80: server.port }, username: me, password: `pw-${me}` };
      return attack(host, driver, { device, parameters: { me } });
    });
    const results = await Promise.all(runs);
    expect(results.map((r) => reported(r))).toEqual(['A:pw-A', 'B:pw-B', 'A:pw-A', 'B:pw-B', 'A:pw-A', 'B:pw-B', 'A:pw-A', 'B:pw-B']);
    const seen = server.seen.slice(before).filter((s) => s.url.startsWith('/who'));
    expect(seen).toHaveLength(40);
    for (const s of seen) {
      const me = s.url.endsWith('A') ? 'A' : 'B';
      expect([s.url, s.headers.authorization]).toEqual([s.url, basic(me, `pw-${me}`)]);
    }
  });

  it('X5 the full transcript of a run masks its own device\'s password, and a log of it is the driver\'s own doing only', async () => {
    const r = await attack(
      host,
      `function get_status() {
        D.device.http.post({ url: '/login', auth: 'basic', form: { user: D.device.username(), pass: D.device.password() } }, function () { D.success(); });
      }`,
      { device: deviceA(), transcript: 'full' },
    );
    expect(r.status).toBe('success');
    expect(JSON.stringify(r.http)).not.toContain('secret-of-A');
    expect(JSON.stringify(r.http)).toContain('***');
  });
});
