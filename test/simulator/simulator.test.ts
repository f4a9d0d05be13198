// Simulated devices driven by real drivers in the sandbox: the example drivers with their
// fixtures, a login → session cookie flow with jar: true, basic auth from the device
// credentials, failures surfacing as the documented error codes, and HTTPS read with
// getTLSCertificate. Every simulator is a real server on 127.0.0.1.
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHost, loadFixture, startSimulator, type Fixture, type FixtureSpec, type Host, type Simulator } from '../../host/index.js';
import { runSource, useHost } from '../helpers/host.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-sim-'));
const examples = path.resolve('drivers-examples');

const started: Simulator[] = [];
async function simulate(source: string | FixtureSpec | Fixture): Promise<Simulator> {
  const sim = await startSimulator(source);
  started.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
});

function writeFixture(name: string, spec: FixtureSpec): string {
  const file = path.join(work, name);
  writeFileSync(file, JSON.stringify(spec, null, 2));
  return file;
}

/** A driver that logs what one request's callback got, as JSON. */
async function probe(host: Host, sim: Simulator, options: Record<string, unknown>, device = sim.device) {
  const source = `function get_status() {
    D.device.http.get(${JSON.stringify(options)}, function (error, response, body) {
      console.log(JSON.stringify(error ? { code: error.code, message: error.message } : { status: response.statusCode, body: body }));
      D.success();
    });
  }`;
  const result = await runSource(host, source, { device });
  expect(result.status, result.message ?? '').toBe('success');
  return { outcome: JSON.parse(result.logs[0]!.message) as { code?: string; message?: string; status?: number; body?: string }, result };
}

const loginDriver = `
function get_status() {
  D.device.http.post({ url: '/api/login', form: { user: D.device.username(), pass: D.device.password() }, jar: true }, function (error, response) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    D.device.http.get({ url: '/api/status', jar: true, json: true }, function (error, response, body) {
      if (error || response.statusCode !== 200) return D.failure(D.errorType.GENERIC_ERROR);
      D.success([D.createVariable('temp', 'Temperature', body.temp, 'C', D.valueType.NUMBER), D.createVariable('site', 'Site', D.getParameter('site'))]);
    });
  });
}`;

const loginFixture: FixtureSpec = {
  fixture: 1,
  description: 'A controller with a form login and a session cookie',
  device: { username: 'admin', password: 'pa ss&1' },
  parameters: { site: 'lab-3' },
  routes: [
    {
      name: 'login',
      method: 'POST',
      path: '/api/login',
      requireBody: { user: '${username}', pass: '${password}' },
      setCookie: ['SID=s3ss10n; Path=/; HttpOnly', 'lang=en; Path=/'],
      setState: 'logged-in',
      json: { ok: true },
    },
    { name: 'status', path: '/api/status', whenState: 'logged-in', cookie: { SID: 's3ss10n' }, json: { temp: 41.5 } },
  ],
};

describe('simulated devices under real drivers', () => {
  const host = useHost({ warmIsolates: 1 });

  it('runs both example drivers against their own fixtures, through loadFixture + startSimulator', async () => {
    const nas = await simulate(loadFixture(path.join(examples, 'nas-storage/device.json')));
    const result = await host.run({ path: path.join(examples, 'nas-storage/driver.js'), device: nas.device, parameters: nas.parameters });
    expect(result.status, result.message ?? '').toBe('success');
    expect(result.variables.find((v) => v.uid === 'hostname')?.value).toBe('nas-01');
    expect(result.tables[0]!.rows).toHaveLength(2);
    expect(nas.requests.map((r) => [r.url, r.status, r.route])).toEqual(
      expect.arrayContaining([
        ['/api/auth/login', 200, 'login'],
        ['/api/system', 200, 'GET /api/system'],
        ['/api/volumes', 200, 'GET /api/volumes'],
      ]),
    );

    const ups = await simulate(path.join(examples, 'ups-status/device.json')); // bodyFile: status.html
    const upsResult = await host.run({ path: path.join(examples, 'ups-status/driver.js'), device: ups.device, parameters: ups.parameters });
    expect(upsResult.status, upsResult.message ?? '').toBe('success');
    expect(upsResult.variables.find((v) => v.uid === 'model')?.value).toBe('SmartCell 1500');
  });

  it('basic auth from the device credentials: the right ones pass, wrong ones get 401 → AUTHENTICATION_ERROR', async () => {
    const ups = await simulate(path.join(examples, 'ups-status/device.json'));
    expect(ups.device).toMatchObject({ ip: '127.0.0.1', username: 'admin', password: 'ups-secret', portMap: { 80: ups.httpPort } });
    const wrong = await host.run({ path: path.join(examples, 'ups-status/driver.js'), device: { ...ups.device, password: 'guess' } });
    expect(wrong.status).toBe('failure');
    expect(wrong.errorType).toBe('AUTHENTICATION_ERROR');
    expect(ups.requests[0]).toMatchObject({ status: 401, outcome: 'refused', route: 'GET /status.html', reason: 'the basic credentials do not match' });
    expect(ups.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from('admin:guess').toString('base64')}`);
  });

  it('login → session cookie with jar: true, in the state the login set; parameters come from the fixture', async () => {
    const sim = await simulate(writeFixture('login.json', loginFixture));
    expect(sim.state).toBe('start');
    const result = await host.run({ source: loginDriver, device: sim.device, parameters: sim.parameters });
    expect(result.status, result.message ?? '').toBe('success');
    expect(result.variables.map((v) => [v.uid, v.value])).toEqual([
      ['temp', '41.5'],
      ['site', 'lab-3'],
    ]);
    expect(sim.state).toBe('logged-in');
    expect(sim.requests.map((r) => [r.method, r.url, r.route, r.status, r.state])).toEqual([
      ['POST', '/api/login', 'login', 200, 'logged-in'],
      ['GET', '/api/status', 'status', 200, 'logged-in'],
    ]);
    // The form carried the credentials (URL-encoded by the driver), and the jar sent both cookies back.
    expect(sim.requests[0]!.body).toBe('user=admin&pass=pa+ss%261');
    expect(sim.requests[1]!.headers.cookie).toContain('SID=s3ss10n');
    expect(sim.requests[1]!.headers.cookie).toContain('lang=en');
  });

  it('login with a wrong password is refused (401, requireBody) and the driver reports AUTHENTICATION_ERROR', async () => {
    const sim = await simulate(loginFixture);
    const result = await host.run({ source: loginDriver, device: { ...sim.device, password: 'nope' } });
    expect(result.errorType).toBe('AUTHENTICATION_ERROR');
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]).toMatchObject({ route: 'login', status: 401, outcome: 'refused', reason: 'body field "pass" has another value', state: 'start' });
    expect(sim.state).toBe('start');
  });

  it('without jar: true the session cookie is not sent back: the status route refuses with 401', async () => {
    const sim = await simulate({ ...loginFixture, routes: [loginFixture.routes[0]!, { ...loginFixture.routes[1]!, whenState: undefined }] });
    const noJar = loginDriver.replaceAll('jar: true', 'jar: false');
    const result = await host.run({ source: noJar, device: sim.device });
    expect(result.errorType).toBe('GENERIC_ERROR');
    expect(sim.requests[1]).toMatchObject({ route: 'status', status: 401, outcome: 'refused', reason: 'cookie "SID" is missing' });
  });

  it('fail: "reset" and "close" reach the driver as ECONNRESET, "timeout" as ETIMEDOUT', async () => {
    const sim = await simulate({
      fixture: 1,
      routes: [
        { path: '/reset', fail: 'reset' },
        { path: '/close', json: { long: 'x'.repeat(2000) }, fail: 'close' },
        { path: '/hang', fail: 'timeout' },
      ],
    });
    const reset = await probe(host, sim, { url: '/reset' });
    expect(reset.outcome.code).toBe('ECONNRESET');
    expect(reset.result.http[0]).toMatchObject({ error: 'ECONNRESET', status: null });
    const close = await probe(host, sim, { url: '/close' });
    expect(close.outcome.code).toBe('ECONNRESET');
    const hang = await probe(host, sim, { url: '/hang', timeout: 300 });
    expect(hang.outcome.code).toBe('ETIMEDOUT');
    expect(sim.requests.map((r) => [r.url, r.outcome, r.status])).toEqual([
      ['/reset', 'reset', null],
      ['/close', 'close', 200],
      ['/hang', 'timeout', null],
    ]);
  });

  it('answers given in turn: a driver that retries once after 503 gets the 200', async () => {
    const sim = await simulate({
      fixture: 1,
      routes: [{ path: '/data', responses: [{ status: 503, body: 'warming up' }, { json: { ready: true } }] }],
    });
    const retrying = `function get_status() {
      function read(attempt) {
        D.device.http.get({ url: '/data', json: true }, function (error, response, body) {
          if (response.statusCode === 503 && attempt < 3) return read(attempt + 1);
          D.success([D.createVariable('attempts', 'Attempts', attempt), D.createVariable('ready', 'Ready', body.ready)]);
        });
      }
      read(1);
    }`;
    const result = await runSource(host, retrying, { device: sim.device });
    expect(result.variables.map((v) => v.value)).toEqual(['2', 'true']);
  });

  it('the complete example of docs/reference/simulator.md behaves as the doc says', async () => {
    const doc = readFileSync('docs/reference/simulator.md', 'utf8');
    const json = /## A complete example[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)![1]!;
    const dir = mkdtempSync(path.join(work, 'doc-'));
    mkdirSync(path.join(dir, 'pages'));
    writeFileSync(path.join(dir, 'pages/login.html'), '<form>login</form>');
    writeFileSync(path.join(dir, 'device.json'), json);
    const sim = await simulate(path.join(dir, 'device.json'));
    const driver = `function get_status() {
      var seen = [];
      function reboot() {
        D.device.http.post({ url: '/api/reboot', jar: true }, function (error) {
          seen.push('reboot ' + error.code);
          D.success([D.createVariable('seen', 'Seen', seen.join(', '))]);
        });
      }
      function status(attempt) {
        D.device.http.get({ url: '/api/status', protocol: 'https', rejectUnauthorized: false, jar: true, json: true }, function (error, response, body) {
          seen.push('status ' + response.statusCode);
          if (response.statusCode === 503 && attempt < 2) return status(attempt + 1);
          seen.push('temperature ' + body.temperature);
          reboot();
        });
      }
      D.device.http.get({ url: '/api/status', followRedirect: false }, function (error, response) {
        seen.push('before login ' + response.statusCode + ' ' + response.headers.location);
        D.device.http.post({ url: '/api/login', form: { user: D.device.username(), pass: D.device.password() }, jar: true }, function (error, response) {
          seen.push('login ' + response.statusCode + ' ' + D.getParameter('site'));
          status(1);
        });
      });
    }`;
    const result = await runSource(host, driver, { device: sim.device, parameters: sim.parameters });
    expect(result.status, result.message ?? '').toBe('success');
    expect(result.variables[0]!.value).toBe('before login 302 /login.html, login 200 lab-3, status 503, status 200, temperature 41.5, reboot ECONNRESET');
    expect(sim.requests.map((r) => `${r.protocol} ${r.method} ${r.url} ${r.status ?? r.outcome} ${r.route}`)).toEqual([
      'http GET /api/status 302 GET /api/status',
      'http POST /api/login 200 login',
      'https GET /api/status 503 status',
      'https GET /api/status 200 status',
      'http POST /api/reboot reset POST /api/reboot',
    ]);
    expect(new X509Certificate(sim.certificatePem!).subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, DNS:ctl-01.lab');
  });

  describe('HTTPS', () => {
    const httpsFixture: FixtureSpec = {
      fixture: 1,
      https: { hosts: ['nas-01.example'] },
      routes: [
        { path: '/secure', protocol: 'https', body: 'over TLS' },
        { path: '/plain', protocol: 'http', body: 'in clear' },
      ],
    };
    const tlsDriver = `function get_status() {
      D.device.http.getTLSCertificate({}, function (error, certificate) {
        if (error) return D.failure(D.errorType.NETWORK_ERROR);
        D.device.http.get({ url: '/secure', protocol: 'https' }, function (e, response, body) {
          console.log(JSON.stringify({ certificate: certificate, get: e ? e.code : body }));
          D.success();
        });
      });
    }`;

    it('getTLSCertificate reads the self-signed certificate made at start; HTTPS requests refuse it unless the host trusts it', async () => {
      const sim = await simulate(httpsFixture);
      expect(sim.httpsPort).toEqual(expect.any(Number));
      expect(sim.portMap).toEqual({ 80: sim.httpPort, 443: sim.httpsPort });
      const result = await host.run({ source: tlsDriver, device: sim.device });
      const seen = JSON.parse(result.logs[0]!.message);
      expect(seen.certificate).toMatchObject({ valid: false, certError: 'DEPTH_ZERO_SELF_SIGNED_CERT', subject: 'CN=localhost, O=driverbox simulator', issuer: 'driverbox simulator' });
      expect(seen.certificate.subjectAltNames).toEqual(['DNS:localhost', 'IP:127.0.0.1', 'DNS:nas-01.example']);
      expect(seen.certificate.daysToExpiry).toBeGreaterThan(360);
      expect(seen.get).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    });

    it('a host that trusts sim.certificatePem verifies it: valid certificate, HTTPS GET answered from the https-only route', async () => {
      const sim = await simulate(httpsFixture);
      const trusting = createTrustingHost(sim.certificatePem!);
      try {
        const result = await trusting.run({ source: tlsDriver, device: sim.device });
        const seen = JSON.parse(result.logs[0]!.message);
        expect(seen.certificate).toMatchObject({ valid: true, certError: null });
        expect(seen.get).toBe('over TLS');
        expect(sim.requests.at(-1)).toMatchObject({ protocol: 'https', url: '/secure', status: 200, route: 'GET /secure' });
      } finally {
        await trusting.close();
      }
      // The same path over plain HTTP is not a route: 404 naming why.
      const plain = await probe(host, sim, { url: '/secure' });
      expect(plain.outcome.status).toBe(404);
      expect(JSON.parse(plain.outcome.body!).hints).toEqual(['routes[0] only answers over https']);
      expect((await probe(host, sim, { url: '/plain', protocol: 'https', rejectUnauthorized: false })).outcome.status).toBe(404);
    });

    it('https.expiresInDays < 0 serves an expired certificate; device.host is its CN and in its names', async () => {
      const sim = await simulate({ fixture: 1, device: { host: 'ups-7.example' }, https: { expiresInDays: -3 }, routes: [{ path: '/', body: 'x' }] });
      expect(sim.device.host).toBe('ups-7.example');
      const certificate = new X509Certificate(sim.certificatePem!);
      expect(certificate.subject).toContain('CN=ups-7.example');
      expect(certificate.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, DNS:ups-7.example');
      expect(new Date(certificate.validTo).getTime()).toBeLessThan(Date.now());
      // Read by IP (the name only resolves in a lab): the driver sees how long ago it expired.
      const result = await host.run({
        source: `function get_status() { D.device.http.getTLSCertificate({ useHostname: false }, function (e, c) { D.success([D.createVariable('days', 'Days', c.daysToExpiry)]); }); }`,
        device: sim.device,
      });
      expect(Number(result.variables[0]!.value)).toBeLessThan(-2);
    });
  });
});

function createTrustingHost(pem: string): Host {
  return createHost({ warmIsolates: 0, threads: 1, trustedCAs: [pem] });
}
