// Redirects to another host (a cloud API's 308 to its regional host): followed only to a host
// the run allows (externalHosts, a name pinned with resolve), without the credentials, with
// the jar's cookies by their domain; a refusal says how to allow the host. Real servers on
// loopback, named with resolve.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host, type RunRequest } from '../../../host/index.js';
import { makeTestPki } from '../../helpers/certs.js';
import { runCli } from '../../helpers/cli.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource } from '../../helpers/host.js';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server.js';

let api: DeviceServer;
let regional: DeviceServer;
let secure: TestHttpsServer;
const secureSeen: Array<{ url: string; host: string; authorization?: string }> = [];
let host: Host;
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-redirect-'));

beforeAll(async () => {
  const pki = await makeTestPki();
  regional = await startDeviceServer();
  api = await startDeviceServer({
    route(req, res) {
      if (!req.url.startsWith('/login-then')) return false;
      // A login answer that sets a cookie for this host only and one for the whole domain, then sends the client on.
      res.writeHead(302, { 'set-cookie': ['hostonly=h1; Path=/', 'shared=s1; Domain=cloud.test; Path=/'], location: 'http://n123.cloud.test/v1/after-login' });
      res.end();
      return true;
    },
  });
  // Its certificate names other.example only: a verified hop there must have asked for that name.
  secure = await startHttpsServer(pki.wrongHost, (req, res) => {
    secureSeen.push({ url: req.url ?? '', host: req.headers.host ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"secure":true}');
  });
  host = createHost({ trustedCAs: [pki.ca.cert] });
});
afterAll(async () => {
  await host.close();
  await api.close();
  await regional.close();
  await secure.close();
  rmSync(work, { recursive: true, force: true });
});

const API = () => ({ 'api.cloud.test': { ip: '127.0.0.1', portMap: { 80: api.port } } });
const REGIONAL = () => ({ 'n123.cloud.test': { ip: '127.0.0.1', portMap: { 80: regional.port } } });
const DEVICE = { host: 'api.cloud.test', username: 'admin', password: 'pw-secret-1' };

/** A cloud driver's request: basic auth, an API-key header and a cookie of its own; 308 to `to`. */
function driver(to: string, target = 'D.device'): string {
  return `function get_status() {
    var api = ${target};
    api.http.get({ url: '/redirect?status=308&to=' + encodeURIComponent(${JSON.stringify(to)}), auth: 'basic',
        headers: { 'x-cisco-meraki-api-key': 'k3y-123', cookie: 'mine=m1' } }, function (err, res, body) {
      if (err) { console.error(err.code + ': ' + err.message); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
      D.success([D.createVariable('status', 'Status', res.statusCode), D.createVariable('body', 'Body', JSON.parse(body).url || 'secure')]);
    });
  }`;
}

const run = (source: string, request: Omit<RunRequest, 'source'>) => runSource(host, source, { device: DEVICE, ...request });

describe('a redirect to another host', () => {
  it('is refused when the run does not allow that host, before anything is sent there; the error says how to allow it', async () => {
    const before = regional.seen.length;
    const result = await run(driver('http://n123.cloud.test/api/v1/orgs'), { resolve: API() });
    expect(result.status).toBe('failure');
    expect(result.logs[0]?.message).toBe(
      "REDIRECT_REFUSED: the device redirected to http://n123.cloud.test, another host; to follow it, allow n123.cloud.test: --external-hosts n123.cloud.test or '*.cloud.test' (driverbox run, serve or agent), or pin it with driverbox run --resolve n123.cloud.test=<ip>; in code, the externalHosts option of createHost or host.run",
    );
    expect(result.http.map((h) => [h.status, h.error])).toEqual([[308, 'REDIRECT_REFUSED']]);
    expect(regional.seen.length).toBe(before);
  });

  it('is followed to a host pinned with resolve: basic auth and the driver\'s Cookie stay behind, its API-key header goes', async () => {
    const result = await run(driver('http://n123.cloud.test/api/v1/orgs'), { resolve: { ...API(), ...REGIONAL() } });
    expect(result.status, result.logs[0]?.message).toBe('success');
    expect(result.variables.map((v) => v.value)).toEqual(['200', '/api/v1/orgs']);
    expect(api.seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('admin:pw-secret-1').toString('base64')}`);
    const there = regional.seen.at(-1)!;
    expect(there.url).toBe('/api/v1/orgs');
    expect(there.headers.host).toBe(`n123.cloud.test:${regional.port}`);
    expect(there.headers.authorization).toBeUndefined();
    expect(there.headers.cookie).toBeUndefined();
    expect(there.headers['x-cisco-meraki-api-key']).toBe('k3y-123');
    expect(result.http.map((h) => [h.url.replace(/\/redirect\?.*/, '/redirect'), h.status, h.redirectedTo])).toEqual([
      [`http://api.cloud.test:${api.port}/redirect`, 308, `http://n123.cloud.test:${regional.port}/api/v1/orgs`],
      [`http://n123.cloud.test:${regional.port}/api/v1/orgs`, 200, null],
    ]);
  });

  it('is followed to a host the run\'s externalHosts names; never through "*" alone', async () => {
    const to = `http://localhost:${regional.port}/v2/sites`;
    const named = await run(driver(to), { resolve: API(), externalHosts: ['localhost'] });
    expect(named.status, named.logs[0]?.message).toBe('success');
    expect(named.variables[1]!.value).toBe('/v2/sites');
    expect(regional.seen.at(-1)!.headers.authorization).toBeUndefined();
    // "*" lets D.createExternalDevice reach any host; a redirect is the device's choice and needs a name.
    const any = await run(driver(to), { resolve: API(), externalHosts: ['*'] });
    expect(any.logs[0]?.message).toMatch(/^REDIRECT_REFUSED: the device redirected to http:\/\/localhost:\d+, another host; to follow it, allow localhost: --external-hosts localhost \(driverbox run, serve or agent\), or pin it with driverbox run --resolve localhost=<ip>;/);
    const byPredicate = await run(driver(to), { resolve: API(), externalHosts: (h: string) => h === 'localhost' });
    expect(byPredicate.status).toBe('success');
  });

  it('"*.example.com" in externalHosts names every host under it, for D.createExternalDevice and redirects alike', async () => {
    const make = (name: string) => `function get_status() { D.createExternalDevice('${name}'); D.success(); }`;
    expect((await run(make('eu.cloud.test'), { externalHosts: ['*.cloud.test'] })).status).toBe('success');
    expect((await run(make('cloud.test'), { externalHosts: ['*.cloud.test'] })).message).toContain('does not allow "cloud.test"');
    expect((await run(make('evilcloud.test'), { externalHosts: ['*.cloud.test'] })).message).toContain('does not allow "evilcloud.test"');
    // Pinned so that it can be dialled; the wildcard is what a list without the pin would need.
    const followed = await run(driver('http://n123.cloud.test/v1/x'), { resolve: { ...API(), ...REGIONAL() }, externalHosts: ['*.cloud.test'] });
    expect(followed.status).toBe('success');
  });

  it('from an external device: followed to an allowed host without that device\'s credentials', async () => {
    const source = driver('http://n123.cloud.test/v1/networks', "D.createExternalDevice('api.cloud.test', { username: 'cloud', password: 'cloud-pw-9' })");
    const result = await runSource(host, source, { device: { ip: '10.255.255.1' }, resolve: { ...API(), ...REGIONAL() } });
    expect(result.status, result.logs[0]?.message).toBe('success');
    expect(api.seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('cloud:cloud-pw-9').toString('base64')}`);
    expect(regional.seen.at(-1)).toMatchObject({ url: '/v1/networks' });
    expect(regional.seen.at(-1)!.headers.authorization).toBeUndefined();
    const refused = await runSource(host, source, { device: { ip: '10.255.255.1' }, resolve: API() });
    expect(refused.logs[0]?.message).toMatch(/^REDIRECT_REFUSED: api\.cloud\.test redirected to http:\/\/n123\.cloud\.test, another host/);
  });

  it('to HTTPS: the new host\'s certificate is verified against its name, dialled at its pin', async () => {
    const result = await run(driver('https://other.example/v1/secure'), { resolve: { ...API(), 'other.example': { ip: '127.0.0.1', portMap: { 443: secure.port } } } });
    expect(result.status, result.logs[0]?.message).toBe('success');
    expect(secureSeen.at(-1)).toEqual({ url: '/v1/secure', host: `other.example:${secure.port}`, authorization: undefined });
    expect(result.http[1]!.url).toBe(`https://other.example:${secure.port}/v1/secure`);
  });

  it('cookies go by the jar\'s domain rules: one set for the domain follows, one for the first host does not', async () => {
    const source = `function get_status() {
      D.device.http.get({ url: '/login-then', jar: true }, function (err, res) {
        if (err) { console.error(err.code + ': ' + err.message); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
        D.success([D.createVariable('status', 'Status', res.statusCode)]);
      });
    }`;
    const result = await run(source, { device: { host: 'api.cloud.test' }, resolve: { ...API(), ...REGIONAL() } });
    expect(result.status, result.logs[0]?.message).toBe('success');
    expect(regional.seen.at(-1)).toMatchObject({ url: '/v1/after-login' });
    expect(regional.seen.at(-1)!.headers.cookie).toBe('shared=s1');
  });

  it('a recording keeps the hosts its redirects went to: the replay follows them without the allow-list', async () => {
    const file = path.join(work, 'regional.json');
    const to = `http://localhost:${regional.port}/v3/devices`;
    const recorded = await run(driver(to), { resolve: API(), externalHosts: ['localhost'], record: file });
    expect(recorded.status, recorded.logs[0]?.message).toBe('success');
    expect(JSON.parse(readFileSync(file, 'utf8')).redirectHosts).toEqual(['localhost']);
    const before = regional.seen.length;
    const replayed = await run(driver(to), { replay: file });
    expect(replayed.status, replayed.logs[0]?.message).toBe('success');
    expect(replayed.http.map((h) => h.status)).toEqual([308, 200]);
    expect(regional.seen.length).toBe(before);
  });
});

describe('driverbox run', () => {
  const file = (name: string, to: string) => {
    const full = path.join(work, name);
    writeFileSync(full, driver(to));
    return full;
  };
  const base = () => ['--device-host', 'api.cloud.test', '--resolve', `api.cloud.test=127.0.0.1,80=${api.port}`];

  it('shows a refused redirect with the flag that allows it; --resolve and --external-hosts allow it', async () => {
    const regionalDriver = file('regional.js', 'http://n123.cloud.test/api/v1/orgs');
    const refused = await runCli(['run', regionalDriver, ...base()], { cwd: work });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('→ REDIRECT_REFUSED');
    expect(refused.stdout).toContain("to follow it, allow n123.cloud.test: --external-hosts n123.cloud.test or '*.cloud.test' (driverbox run, serve or agent)");

    const pinned = await runCli(['run', regionalDriver, ...base(), '--resolve', `n123.cloud.test=127.0.0.1,80=${regional.port}`], { cwd: work });
    expect(pinned.code, pinned.stdout).toBe(0);
    expect(pinned.stdout).toContain(`GET http://n123.cloud.test:${regional.port}/api/v1/orgs → 200`);

    const localDriver = file('local.js', `http://localhost:${regional.port}/api/v1/orgs`);
    expect((await runCli(['run', localDriver, ...base()], { cwd: work })).code).toBe(1);
    const listed = await runCli(['run', localDriver, ...base(), '--external-hosts', 'localhost'], { cwd: work });
    expect(listed.code, listed.stdout).toBe(0);
    // The flag widens redirects only: the driver's D.createExternalDevice still reaches any host.
    writeFileSync(path.join(work, 'ext.js'), `function get_status() { D.createExternalDevice('elsewhere.example'); D.success(); }`);
    expect((await runCli(['run', path.join(work, 'ext.js'), ...base(), '--external-hosts', 'localhost'], { cwd: work })).code).toBe(0);
  });

  it('refuses a bad --external-hosts list', async () => {
    const bad = await runCli(['run', 'x.js', '--external-hosts', 'a b,c'], { cwd: work });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--external-hosts expects host names or IPs separated by commas, *.example.com for any name under it (bad name "a b")');
  });
});
