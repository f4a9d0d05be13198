// RunResult.http: the run's transcript of HTTP exchanges. One entry per exchange and per
// redirect hop, with timings and sizes; headers and bodies only in 'full' mode, and never a
// secret (credentials, cookies, passwords) in it. The CLI prints it (--verbose) and emits it (--json).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec } from '../../../host/contract/device.js';
import type { HttpExchange } from '../../../host/contract/run-result.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource, useHost } from '../../helpers/host.js';

const PASSWORD = 'S3cr3t pw&x=1';
const USERNAME = 'admin';
const OPTION_PASSWORD = 'opt-Secret9';
const EXTERNAL_PASSWORD = 'ext-Secret7';

/** Every form a secret could take on the wire or in a url. */
function secretForms(secret: string, username = USERNAME): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    Buffer.from(`${username}:${secret}`).toString('base64'),
  ];
}

function expectNoSecret(text: string, secrets: string[]): void {
  for (const secret of secrets) expect(text, `leaks ${JSON.stringify(secret)}`).not.toContain(secret);
}

describe('RunResult.http transcript', () => {
  const host = useHost();
  let server: DeviceServer;
  const device = (extra: Partial<DeviceSpec> = {}): DeviceSpec => ({
    id: 'transcript',
    ip: '127.0.0.1',
    username: USERNAME,
    password: PASSWORD,
    portMap: { 80: server.port, 8080: server.port },
    ...extra,
  });

  beforeAll(async () => {
    server = await startDeviceServer({
      route: (req, res) => {
        if (req.url === '/cookies') {
          res.setHeader('set-cookie', ['sid=verysecretsession; Path=/; HttpOnly', 'theme=dark']);
          res.end('ok');
          return true;
        }
        return false;
      },
    });
  });
  afterAll(() => server.close());

  it('records one entry per exchange and per redirect hop, with the dialled url', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.get({ url: '/redirect?to=%2Fredirect%3Fto%3D%252Fecho%253Fend' }, function (err, res) {
          D.device.http.post({ url: '/echo?post', port: 8080, body: 'hello' }, function () {
            D.device.http.get({ url: '/status?code=404' }, function () { D.success(); });
          });
        });
      }`,
      { device: device() },
    );
    expect(result.status).toBe('success');
    const base = `http://127.0.0.1:${server.port}`;
    expect(result.http.map((h) => [h.method, h.url, h.status, h.redirectedTo, h.error])).toEqual([
      ['GET', `${base}/redirect?to=%2Fredirect%3Fto%3D%252Fecho%253Fend`, 302, `${base}/redirect?to=%2Fecho%3Fend`, null],
      ['GET', `${base}/redirect?to=%2Fecho%3Fend`, 302, `${base}/echo?end`, null],
      ['GET', `${base}/echo?end`, 200, null, null],
      ['POST', `${base}/echo?post`, 200, null, null],
      ['GET', `${base}/status?code=404`, 404, null, null],
    ]);
  });

  it('records failures with their code and message, refused urls included', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.get({ url: 'http://evil.example/x' }, function (e1) {
          D.device.http.get({ url: '/x', port: 81 }, function (e2) {
            D.device.http.get({ url: '/slow?ms=1000', timeout: 100 }, function (e3) {
              D.success([D.createVariable('codes', 'Codes', [e1.code, e2.code, e3.code].join(','))]);
            });
          });
        });
      }`,
      { device: device({ portMap: { 80: server.port, 81: deadPort } }) },
    );
    expect(result.variables[0]!.value).toBe('INVALID_URL,ECONNREFUSED,ETIMEDOUT');
    expect(result.http).toHaveLength(3);
    const [refused, connRefused, timedOut] = result.http as [HttpExchange, HttpExchange, HttpExchange];
    expect(refused).toMatchObject({ method: 'GET', url: 'http://evil.example/x', status: null, error: 'INVALID_URL', headersMs: null, requestBytes: 0, responseBytes: 0 });
    expect(refused.errorMessage).toContain('a driver cannot choose the host');
    expect(connRefused).toMatchObject({ url: `http://127.0.0.1:${deadPort}/x`, status: null, error: 'ECONNREFUSED', headersMs: null });
    expect(connRefused.errorMessage).toContain('refused');
    expect(timedOut).toMatchObject({ url: `http://127.0.0.1:${server.port}/slow?ms=1000`, status: null, error: 'ETIMEDOUT', headersMs: null });
    expect(timedOut.errorMessage).toContain('100 ms');
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(90);
  });

  it('times each exchange: startedMs in order, headersMs ≤ durationMs', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.get({ url: '/echo?t1' }, function () {
          D.device.http.get({ url: '/slow?ms=120' }, function () {
            D.device.http.get({ url: '/big?bytes=200000' }, function () { D.success(); });
          });
        });
      }`,
      { device: device() },
    );
    expect(result.http).toHaveLength(3);
    for (const h of result.http) {
      expect(typeof h.startedMs).toBe('number');
      expect(h.startedMs).toBeGreaterThanOrEqual(0);
      expect(h.headersMs).not.toBeNull();
      expect(h.headersMs!).toBeGreaterThanOrEqual(0);
      expect(h.durationMs).toBeGreaterThanOrEqual(0);
      expect(h.headersMs!).toBeLessThanOrEqual(h.durationMs);
      expect(h.startedMs + h.durationMs).toBeLessThanOrEqual(result.durationMs + 1);
    }
    const [first, slow, big] = result.http as [HttpExchange, HttpExchange, HttpExchange];
    expect(slow.startedMs).toBeGreaterThanOrEqual(first.startedMs + first.durationMs - 1);
    expect(big.startedMs).toBeGreaterThanOrEqual(slow.startedMs + slow.durationMs - 1);
    expect(slow.headersMs!).toBeGreaterThanOrEqual(100);
  });

  it('counts the real request and response body sizes', async () => {
    const gzipped = gzipSync(JSON.stringify({ zipped: true })).length;
    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.post({ url: '/status?code=200&body=abc', body: 'hello wörld' }, function () {
          D.device.http.put({ url: '/status?code=201', json: { k: [1, 2, 3] } }, function () {
            D.device.http.post({ url: '/status?code=204', form: { a: 'x y', b: 'é' } }, function () {
              D.device.http.get({ url: '/big?bytes=12345' }, function () {
                D.device.http.get({ url: '/gzip', gzip: true }, function (err, res, body) {
                  D.success([D.createVariable('zipped', 'Zipped', body)]);
                });
              });
            });
          });
        });
      }`,
      { device: device() },
    );
    expect(result.variables[0]!.value).toBe('{"zipped":true}');
    expect(result.http.map((h) => [h.status, h.requestBytes, h.responseBytes])).toEqual([
      [200, Buffer.byteLength('hello wörld'), 3],
      [201, Buffer.byteLength('{"k":[1,2,3]}'), 0],
      [204, Buffer.byteLength('a=x+y&b=%C3%A9'), 0],
      [200, 0, 12345],
      [200, 0, gzipped], // as received, before decompression
    ]);
    // And those are the bytes the server really got.
    expect(server.seen.slice(-5, -2).map((s) => Buffer.byteLength(s.body))).toEqual([12, 13, 14]);
  });

  it("has no headers or bodies in 'summary' mode (the default)", async () => {
    const result = await runSource(host, `function get_status() { D.device.http.post({ url: '/echo', body: 'x', auth: 'basic' }, function () { D.success(); }); }`, {
      device: device(),
    });
    expect(result.http).toHaveLength(1);
    expect(result.http[0]).not.toHaveProperty('request');
    expect(result.http[0]).not.toHaveProperty('response');
    const explicit = await runSource(host, `function get_status() { D.device.http.get({ url: '/echo' }, function () { D.success(); }); }`, {
      device: device(),
      transcript: 'summary',
    });
    expect(Object.keys(explicit.http[0]!).sort()).toEqual(
      ['durationMs', 'error', 'errorMessage', 'headersMs', 'method', 'redirectedTo', 'requestBytes', 'responseBytes', 'startedMs', 'status', 'url'].sort(),
    );
  });

  it("adds headers and bodies in 'full' mode, Authorization and cookie values masked, names kept", async () => {
    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.post({ url: '/echo?full', auth: 'basic', headers: { 'X-Trace': 'trace-1', Cookie: 'own=cookievalue1; lang=fr' }, body: 'plain body' }, function () {
          D.device.http.get({ url: '/cookies' }, function (err, res) {
            D.success([D.createVariable('cookies', 'Cookies', res.headers['set-cookie'].join('|'))]);
          });
        });
      }`,
      { device: device(), transcript: 'full' },
    );
    // The driver itself still gets the real values.
    expect(result.variables[0]!.value).toBe('sid=verysecretsession; Path=/; HttpOnly|theme=dark');
    const [post, cookies] = result.http as [HttpExchange, HttpExchange];
    expect(post.request).toEqual({
      headers: { 'x-trace': 'trace-1', cookie: 'own=***; lang=***', authorization: 'Basic ***' },
      body: 'plain body',
    });
    expect(post.response!.headers['content-type']).toBe('application/json');
    const echoed = JSON.parse(post.response!.body!) as { method: string; body: string; headers: Record<string, string> };
    expect(echoed).toMatchObject({ method: 'POST', body: 'plain body' });
    expect(echoed.headers['x-trace']).toBe('trace-1');
    expect(cookies.response!.headers['set-cookie']).toEqual(['sid=***; Path=/; HttpOnly', 'theme=***']);
    expect(cookies.response!.body).toBe('ok');
    const all = JSON.stringify(result.http);
    expectNoSecret(JSON.stringify([post.request, cookies]), ['verysecretsession', 'cookievalue1']);
    expectNoSecret(all, secretForms(PASSWORD));
    // The server did get the real header, so the masking is the transcript's.
    expect(server.seen.find((s) => s.url === '/echo?full')!.headers.authorization).toBe(`Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`);
  });

  it('masks the device password, options.password and external passwords in urls, bodies and headers, also when echoed', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        var pw = D.device.password();
        D.device.http.post({ url: '/echo?u=\${username}&p=\${password}', auth: 'basic', headers: { 'X-Pass': pw }, form: { user: 'admin', pass: pw } }, function (e1, r1) {
          D.device.http.put({ url: '/echo?json', json: { password: pw } }, function (e2, r2) {
            D.device.http.post({ url: '/echo?opt', auth: 'basic', username: 'other', password: '${OPTION_PASSWORD}', body: 'again ${OPTION_PASSWORD}' }, function (e3, r3) {
              var ext = D.createExternalDevice('127.0.0.1', { username: 'cloud', password: '${EXTERNAL_PASSWORD}' });
              ext.http.get({ url: '/echo?k=\${password}', port: ${server.port}, auth: 'basic' }, function (e4, r4) {
                D.success([D.createVariable('codes', 'Codes', [r1.statusCode, r2.statusCode, r3.statusCode, r4.statusCode].join(','))]);
              });
            });
          });
        });
      }`,
      { device: device(), transcript: 'full' },
    );
    expect(result.variables[0]!.value).toBe('200,200,200,200');
    expect(result.http).toHaveLength(4);
    const [form, json, opt, ext] = result.http as [HttpExchange, HttpExchange, HttpExchange, HttpExchange];

    // The device got the real secrets…
    const seen = server.seen.slice(-4);
    expect(seen[0]!.url).toBe(`/echo?u=admin&p=${encodeURIComponent(PASSWORD)}`);
    expect(seen[0]!.body).toBe(`user=admin&pass=${new URLSearchParams({ s: PASSWORD }).toString().slice(2)}`);
    expect(seen[0]!.headers['x-pass']).toBe(PASSWORD);
    expect(seen[1]!.body).toBe(JSON.stringify({ password: PASSWORD }));
    expect(seen[2]!.body).toBe(`again ${OPTION_PASSWORD}`);
    expect(seen[3]!.url).toBe(`/echo?k=${EXTERNAL_PASSWORD}`);

    // …the transcript only ***.
    expect(form.url).toBe(`http://127.0.0.1:${server.port}/echo?u=admin&p=***`);
    expect(form.request).toEqual({
      headers: { 'x-pass': '***', 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ***' },
      body: 'user=admin&pass=***',
    });
    const echoedForm = JSON.parse(form.response!.body!) as { url: string; body: string; headers: Record<string, string> };
    expect(echoedForm.url).toBe('/echo?u=admin&p=***');
    expect(echoedForm.body).toBe('user=admin&pass=***');
    expect(echoedForm.headers['x-pass']).toBe('***');
    expect(echoedForm.headers.authorization).toBe('Basic ***');
    expect(json.request!.body).toBe('{"password":"***"}');
    expect(JSON.parse(json.response!.body!).body).toBe('{"password":"***"}');
    expect(opt.request!.body).toBe('again ***');
    expect(JSON.parse(opt.response!.body!).body).toBe('again ***');
    expect(ext.url).toBe(`http://127.0.0.1:${server.port}/echo?k=***`);
    expect(JSON.parse(ext.response!.body!).headers.authorization).toBe('Basic ***');

    expectNoSecret(JSON.stringify(result.http), [
      ...secretForms(PASSWORD),
      ...secretForms(OPTION_PASSWORD, 'other'),
      ...secretForms(EXTERNAL_PASSWORD, 'cloud'),
    ]);
  });

  // BUG (host/bridges/core/transcript.ts, Redactor): the masked forms of a password are the
  // raw text, encodeURIComponent and form encoding, but not the WHATWG URL serialiser's
  // percent-encoding. A driver writing the password straight into its url
  // (url: '/login?p=' + D.device.password(), common in real drivers) with a password such as
  // 'S3cr3t pw&x=1' gets it recorded as 'S3cr3t%20pw&x=1' in HttpExchange.url and in the
  // echoed body: neither form matches, so it is printed by --verbose. Todo until fixed.
  it('masks a password concatenated into the url (as the URL parser serialises it)', async () => {
    const result = await runSource(
      host,
      `function get_status() { D.device.http.get({ url: '/echo?p=' + D.device.password() }, function () { D.success(); }); }`,
      { device: device(), transcript: 'full' },
    );
    expect(server.seen.at(-1)!.url).toBe('/echo?p=S3cr3t%20pw&x=1');
    expect(result.http[0]!.url).toBe(`http://127.0.0.1:${server.port}/echo?p=***`);
    expectNoSecret(JSON.stringify(result.http), ['S3cr3t%20pw', 'S3cr3t pw', ...secretForms(PASSWORD)]);
  });

  it('keeps a request the run\'s end cut short (ABORTED) and a refused one past the request bound, in the order sent', async () => {
    const cut = await runSource(host, `function get_status() { D.device.http.get({ url: '/slow?ms=3000' }, function () {}); }`, {
      device: device(),
      limits: { timeoutMs: 300 },
    });
    expect(cut.errorType).toBe('TIMEOUT_ERROR');
    expect(cut.http).toHaveLength(1);
    expect(cut.http[0]).toMatchObject({ url: expect.stringContaining('/slow?ms=3000'), status: null, error: 'ABORTED' });
    const bounded = await runSource(
      host,
      `function get_status() {
        D.device.http.get({ url: '/one' }, function () {
          D.device.http.get({ url: '/two' }, function (err) { D.success([D.createVariable('c', 'C', err.code)]); });
        });
      }`,
      { device: device(), limits: { maxHttpRequests: 1 } },
    );
    expect(bounded.variables[0]!.value).toBe('TOO_MANY_REQUESTS');
    expect(bounded.http.map((e) => [e.url.replace(/^.*\d(?=\/)/, ''), e.status, e.error])).toEqual([
      ['/one', 200, null],
      ['/two', null, 'TOO_MANY_REQUESTS'],
    ]);
  });

  it('cuts bodies over 64 KiB with a note of the bytes left out, but gives the driver everything', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        D.device.http.post({ url: '/big?bytes=70000', body: new Array(70001).join('y') }, function (err, res, body) {
          D.success([D.createVariable('length', 'Length', body.length)]);
        });
      }`,
      { device: device(), transcript: 'full' },
    );
    expect(result.variables[0]!.value).toBe('70000');
    const h = result.http[0]!;
    expect(h.requestBytes).toBe(70000);
    expect(h.responseBytes).toBe(70000);
    expect(h.request!.body).toBe(`${'y'.repeat(65536)}… (4464 more bytes)`);
    expect(h.response!.body).toBe(`${'x'.repeat(65536)}… (4464 more bytes)`);
    // Exactly 64 KiB is not cut.
    const exact = await runSource(host, `function get_status() { D.device.http.get({ url: '/big?bytes=65536' }, function () { D.success(); }); }`, {
      device: device(),
      transcript: 'full',
    });
    expect(exact.http[0]!.response!.body).toBe('x'.repeat(65536));
  });
});

describe('driverbox run prints the transcript', () => {
  const exec = promisify(execFile);
  const bin = path.resolve('bin/driverbox.js');
  const work = mkdtempSync(path.join(tmpdir(), 'driverbox-transcript-'));
  const driverFile = path.join(work, 'driver.js');
  let server: DeviceServer;

  beforeAll(async () => {
    server = await startDeviceServer();
    writeFileSync(
      driverFile,
      `function get_status() {
        D.device.http.get({ url: '/redirect?to=%2Fecho%3Fafter', auth: 'basic' }, function (err, res) {
          D.device.http.post({ url: '/echo?login=\${password}', form: { pass: D.device.password() }, headers: { 'X-Trace': 'cli-1' } }, function (err2, res2) {
            D.success([D.createVariable('status', 'Status', res2.statusCode)]);
          });
        });
      }\n`,
    );
  });
  afterAll(() => server.close());

  async function cli(extra: string[]): Promise<string> {
    const { stdout } = await exec(
      process.execPath,
      [bin, 'run', driverFile, '--device-ip', '127.0.0.1', '--port-map', `80=${server.port}`, '--username', USERNAME, '--password', PASSWORD, ...extra],
      { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1' } },
    );
    return stdout;
  }

  // The four runs start together: each CLI process takes about a second to start.
  let outputs: Promise<Record<'verbose' | 'plain' | 'json' | 'jsonVerbose', string>>;
  beforeAll(() => {
    outputs = Promise.all([cli(['--verbose']), cli([]), cli(['--json']), cli(['--json', '--verbose'])]).then(([verbose, plain, json, jsonVerbose]) => ({
      verbose: verbose!,
      plain: plain!,
      json: json!,
      jsonVerbose: jsonVerbose!,
    }));
    outputs.catch(() => {}); // reported by the tests that await it
  });

  it('--verbose prints each exchange with its > request and < response lines, masked', async () => {
    const stdout = (await outputs).verbose;
    const lines = stdout.split('\n').map((l) => l.trim());
    const base = `http://127.0.0.1:${server.port}`;
    expect(lines).toContain('HTTP (3)');
    expect(lines.some((l) => l.startsWith(`GET ${base}/redirect?to=%2Fecho%3Fafter → 302`))).toBe(true);
    expect(lines).toContain(`↪ redirected to ${base}/echo?after`);
    expect(lines.some((l) => l.startsWith(`GET ${base}/echo?after → 200`))).toBe(true);
    expect(lines.some((l) => l.startsWith(`POST ${base}/echo?login=*** → 200`))).toBe(true);
    expect(lines).toContain('> authorization: Basic ***');
    expect(lines).toContain('> x-trace: cli-1');
    expect(lines).toContain('> pass=***');
    expect(lines).toContain('< content-type: application/json');
    expect(lines).toContain('< location: /echo?after');
    expect(lines.filter((l) => l.startsWith('< {"method":"POST"'))).toHaveLength(1);
    expectNoSecret(stdout, secretForms(PASSWORD));
    // The device did get it.
    expect(server.seen.filter((s) => s.method === 'POST').map((s) => s.body)).toEqual(Array(4).fill(`pass=${new URLSearchParams({ s: PASSWORD }).toString().slice(2)}`));
  });

  it('without --verbose prints the summary lines only', async () => {
    const stdout = (await outputs).plain;
    expect(stdout).toContain('HTTP (3)');
    expect(stdout).toContain(`POST http://127.0.0.1:${server.port}/echo?login=*** → 200`);
    expect(stdout).not.toMatch(/^\s*[<>] /m);
    expectNoSecret(stdout, secretForms(PASSWORD));
  });

  it('--json contains the http entries, masked', async () => {
    const stdout = (await outputs).json;
    const result = JSON.parse(stdout) as { status: string; http: HttpExchange[] };
    expect(result.status).toBe('success');
    expect(result.http.map((h) => [h.method, h.status, h.redirectedTo !== null])).toEqual([
      ['GET', 302, true],
      ['GET', 200, false],
      ['POST', 200, false],
    ]);
    expect(result.http[2]!.url).toBe(`http://127.0.0.1:${server.port}/echo?login=***`);
    expect(result.http[0]).not.toHaveProperty('request');
    expectNoSecret(stdout, secretForms(PASSWORD));
    const verbose = JSON.parse((await outputs).jsonVerbose) as { http: HttpExchange[] };
    expect(verbose.http[2]!.request!.body).toBe('pass=***');
  });
});
