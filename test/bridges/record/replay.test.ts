// Record a driver's run against real loopback devices (HTTP and HTTPS), stop the devices,
// replay the recording: the same result with nothing listening. Also what the recording
// holds (no secrets), the matching rules, misses, bad recordings and record paths, and the
// CLI's --record / --replay.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec, HttpExchange, RecordedExchange, RecordedHttp, RecordingFile, RunResult } from '../../../host/index.js';
import { makeTestPki } from '../../helpers/certs.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource, useHost } from '../../helpers/host.js';

const pki = await makeTestPki();
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-rec-'));

const USER = 'admin';
const PASSWORD = 'Pa55-w0rd!xyz';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xfe, 0xff]);

/** A NAS-like device: form login → session cookie + redirect, cookie-protected JSON, binary, basic auth. */
async function startNas(tls?: { cert: string; key: string }): Promise<DeviceServer & { session: string }> {
  const session = randomBytes(16).toString('hex');
  let counter = 0;
  const server = await startDeviceServer({
    tls,
    route: (req, res) => {
      const url = new URL(req.url, 'http://nas');
      const loggedIn = (req.headers.cookie ?? '').split(/;\s*/).includes(`sid=${session}`);
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
        return true;
      };
      if (url.pathname.startsWith('/auth/')) return json(200, { ok: true });
      switch (url.pathname) {
        case '/login': {
          const form = new URLSearchParams(req.body);
          if (req.method !== 'POST' || form.get('user') !== USER || form.get('password') !== PASSWORD) return json(401, { error: 'bad credentials' });
          res.writeHead(302, { 'set-cookie': `sid=${session}; Path=/; HttpOnly`, location: '/home' });
          res.end();
          return true;
        }
        case '/home': // devices echo the session id in their pages: it must be masked there too
          return loggedIn ? json(200, { model: 'NAS-9000', session }) : json(403, { error: 'log in first' });
        case '/api/status':
          return loggedIn ? json(200, { temp: 41.5, fans: [{ id: 'fan1', rpm: 1200 }, { id: 'fan2', rpm: 980 }] }) : json(403, { error: 'log in first' });
        case '/logo.bin':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.end(LOGO);
          return true;
        case '/basic': // echoes the credentials, as debug pages do
          return req.headers.authorization === `Basic ${BASIC}` ? json(200, { uptime: 86400, debug: `you sent Basic ${BASIC}` }) : json(401, { error: 'auth' });
        case '/counter':
          return json(200, { n: ++counter });
        case '/query':
          return json(200, { query: [...url.searchParams].sort() });
        case '/settings':
          return json(200, { saved: req.headers['content-type']?.startsWith('application/json') ? (JSON.parse(req.body) as unknown) : Object.fromEntries(new URLSearchParams(req.body)) });
        case '/slow':
          setTimeout(() => res.end('late'), Number(url.searchParams.get('ms') ?? 300));
          return true;
        case '/secure':
          res.end('over tls');
          return true;
      }
      return false;
    },
  });
  return Object.assign(server, { session });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const nasDriver = `
function get_status() {
  var http = D.device.http;
  var vars = [];
  function fail(step, err) {
    console.error(step + ': ' + (err ? err.code + ' ' + err.message : 'bad answer'));
    D.failure(D.errorType.GENERIC_ERROR);
  }
  http.post({ url: '/login', form: { user: D.device.username(), password: D.device.password() }, jar: true, followAllRedirects: true }, function (err, res, body) {
    if (err || res.statusCode !== 200) return fail('login', err);
    vars.push(D.createVariable('model', 'Model', JSON.parse(body).model));
    http.get({ url: '/api/status?b=2&a=1', jar: true, json: true }, function (err, res, status) {
      if (err || res.statusCode !== 200) return fail('status', err);
      vars.push(D.createVariable('temp', 'Temperature', status.temp, 'C', D.valueType.NUMBER));
      var table = D.createTable('Fans', [{ label: 'Speed', unit: 'rpm', valueType: D.valueType.NUMBER }]);
      status.fans.forEach(function (f) { table.insertRecord(f.id, [f.rpm]); });
      http.get({ url: '/logo.bin', encoding: null }, function (err, res, logo) {
        if (err) return fail('logo', err);
        console.log('logo: ' + logo.length + ' bytes, ' + logo[0] + ' … ' + logo[logo.length - 1]);
        http.get({ url: '/basic', auth: 'basic' }, function (err, res, body) {
          if (err || res.statusCode !== 200) return fail('basic', err);
          vars.push(D.createVariable('uptime', 'Uptime', JSON.parse(body).uptime, 's', D.valueType.NUMBER));
          http.get('/counter', function (err1, res1, first) {
            http.get('/counter', function (err2, res2, second) {
              if (err1 || err2) return fail('counter', err1 || err2);
              vars.push(D.createVariable('counts', 'Counts', JSON.parse(first).n + ',' + JSON.parse(second).n));
              http.get({ url: '/secure', protocol: 'https' }, function (err, res, body) {
                if (err) return fail('https', err);
                vars.push(D.createVariable('secure', 'Secure', body));
                http.getTLSCertificate({ port: 443 }, function (err, cert) {
                  if (err) return fail('tls', err);
                  vars.push(D.createVariable('issuer', 'Issuer', cert.issuer));
                  vars.push(D.createVariable('cert_valid', 'Certificate valid', String(cert.valid)));
                  vars.push(D.createVariable('cert_days', 'Certificate days', cert.daysToExpiry, 'd', D.valueType.NUMBER));
                  console.warn('all steps done');
                  D.success(vars, table);
                });
              });
            });
          });
        });
      });
    });
  });
}`;

/** Sends the requests of parameter "steps" one after the other and logs what each got. */
const stepsDriver = `
function get_status() {
  var steps = D.getParameter('steps');
  var out = [];
  (function next(i) {
    if (i === steps.length) {
      console.log(JSON.stringify(out));
      return D.success();
    }
    var step = steps[i];
    D.device.http[step.method](step.options, function (err, res, body) {
      out.push(err ? { code: err.code, message: err.message } : { status: res.statusCode, body: typeof body === 'string' ? body : JSON.stringify(body) });
      next(i + 1);
    });
  })(0);
}`;

type Step = { method: 'get' | 'post'; options: Record<string, unknown> | string };
type Outcome = { status?: number; body?: string; code?: string; message?: string };

const outcomes = (result: RunResult): Outcome[] => {
  expect(result.status, result.message ?? '').toBe('success');
  return JSON.parse(result.logs[0]!.message) as Outcome[];
};

/** What must not change between a run and its replay: everything but timings and byte counts sent. */
const shape = (h: HttpExchange) => ({ method: h.method, url: h.url, status: h.status, error: h.error, redirectedTo: h.redirectedTo, responseBytes: h.responseBytes });

const isHttp = (e: RecordedExchange): e is RecordedHttp => e.kind === 'http';

function readRecording(file: string): RecordingFile {
  return JSON.parse(readFileSync(file, 'utf8')) as RecordingFile;
}

describe('record and replay', () => {
  const recorder = useHost({ trustedCAs: [pki.ca.cert] });
  // Replays run on another host: nothing (cookie jar, connection) carries over from the recording run.
  const replayer = useHost();

  describe('a recorded run replayed with the devices stopped', () => {
    const file = path.join(mkdtempSync(path.join(work, 'nas-')), 'session.json');
    let recorded: RunResult;
    let replayed: RunResult;
    let nas: Awaited<ReturnType<typeof startNas>>;
    let nasTls: Awaited<ReturnType<typeof startNas>>;

    beforeAll(async () => {
      nas = await startNas();
      nasTls = await startNas(pki.valid);
      const device: DeviceSpec = { ip: '127.0.0.1', username: USER, password: PASSWORD, portMap: { 80: nas.port, 443: nasTls.port } };
      recorded = await runSource(recorder, nasDriver, { filename: 'nas.js', device, record: file, transcript: 'full' });
      await Promise.all([nas.close(), nasTls.close()]);
      // No device address and no password: the recording's address, and a stand-in password.
      replayed = await runSource(replayer, nasDriver, { filename: 'nas.js', replay: file, transcript: 'full' });
    });

    it('recorded a real run: login, cookie, redirect, JSON, binary, basic auth, HTTPS and a certificate', () => {
      expect(recorded.status, recorded.logs.map((l) => l.message).join('\n')).toBe('success');
      expect(nas.seen.find((r) => r.url === '/home')?.headers.cookie).toBe(`sid=${nas.session}`);
      expect(recorded.http.map((h) => `${h.method} ${h.url.replace(/:\d+/, ':PORT')} ${h.status ?? h.error}`)).toEqual([
        'POST http://127.0.0.1:PORT/login 302',
        'GET http://127.0.0.1:PORT/home 200',
        'GET http://127.0.0.1:PORT/api/status?b=2&a=1 200',
        'GET http://127.0.0.1:PORT/logo.bin 200',
        'GET http://127.0.0.1:PORT/basic 200',
        'GET http://127.0.0.1:PORT/counter 200',
        'GET http://127.0.0.1:PORT/counter 200',
        'GET https://127.0.0.1:PORT/secure 200',
        'TLS tls://127.0.0.1:PORT null',
      ]);
    });

    it('replays to the same result with nothing listening', () => {
      expect(replayed.status, replayed.logs.map((l) => l.message).join('\n')).toBe('success');
      expect(replayed.variables).toEqual(recorded.variables);
      expect(replayed.tables).toEqual(recorded.tables);
      expect(replayed.logs).toEqual(recorded.logs);
      expect(replayed.warnings).toEqual(recorded.warnings);
      expect(replayed.http.map(shape)).toEqual(recorded.http.map(shape));
      expect(replayed.variables.find((v) => v.uid === 'counts')?.value).toBe('1,2'); // identical requests, answered in recorded order
      expect(replayed.variables.find((v) => v.uid === 'cert_valid')?.value).toBe('true');
      expect(replayed.logs[0]!.message).toBe('logo: 8 bytes, 137 … 255');
    });

    it('runs the cookie jar again at replay: the masked session cookie goes back with the redirect', () => {
      const home = replayed.http.find((h) => h.url.endsWith('/home'))!;
      expect(home.request?.headers.cookie).toBe('sid=***');
      expect(replayed.http[0]!.response?.headers['set-cookie']).toEqual(['sid=***; Path=/; HttpOnly']);
    });

    it('writes versioned, readable JSON saying what was run', () => {
      const recording = readRecording(file);
      expect(recording).toMatchObject({
        recording: 1,
        driver: 'nas.js',
        action: 'get_status',
        outcome: { status: 'success', errorType: null },
        device: { ip: '127.0.0.1', host: null, username: USER, hasPassword: true, portMap: { 80: nas.port, 443: nasTls.port } },
      });
      expect(Date.parse(recording.recordedAt)).toBeGreaterThan(Date.now() - 60_000);
      const http = recording.exchanges.filter(isHttp);
      expect(http).toHaveLength(8);
      const byPath = (p: string) => http.find((e) => new URL(e.url).pathname === p)!;
      expect(byPath('/api/status').response?.body).toEqual({ text: JSON.stringify({ temp: 41.5, fans: [{ id: 'fan1', rpm: 1200 }, { id: 'fan2', rpm: 980 }] }) });
      expect(byPath('/logo.bin').response?.body).toEqual({ base64: LOGO.toString('base64') });
      expect(byPath('/login').response?.status).toBe(302);
      expect(byPath('/login').request.body).toEqual({ text: 'user=admin&password=***' });
      const tls = recording.exchanges.find((e) => e.kind === 'tls')!;
      expect(tls).toMatchObject({ kind: 'tls', url: 'tls://127.0.0.1:443', answer: { error: null, certificate: { issuer: 'driverbox', valid: true } } });
      expect(readdirSync(path.dirname(file))).toEqual(['session.json']); // no temporary file left
    });

    it('never writes a secret: password, cookie values, basic-auth base64', () => {
      const text = readFileSync(file, 'utf8');
      for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), new URLSearchParams({ p: PASSWORD }).toString().slice(2), nas.session, nasTls.session, BASIC]) {
        expect(text).not.toContain(secret);
      }
      // The session cookie has one mask everywhere: Set-Cookie, the Cookie sent back, the page that echoed it.
      const recording = readRecording(file);
      const exchanges = recording.exchanges.filter(isHttp);
      const login = exchanges.find((e) => e.url.endsWith('/login'))!;
      const home = exchanges.find((e) => e.url.endsWith('/home'))!;
      expect(login.response?.headers['set-cookie']).toEqual(['sid=***cookie-1***; Path=/; HttpOnly']);
      expect(home.request.headers.cookie).toBe('sid=***cookie-1***');
      expect(JSON.parse((home.response?.body as { text: string }).text)).toEqual({ model: 'NAS-9000', session: '***cookie-1***' });
      const basic = exchanges.find((e) => e.url.endsWith('/basic'))!;
      expect(basic.request.headers.authorization).toBe('Basic ***');
      expect(JSON.parse((basic.response?.body as { text: string }).text).debug).toBe('you sent Basic ***');
    });

    it('also replays from a recording object, and with the real password given', async () => {
      const again = await runSource(replayer, nasDriver, {
        filename: 'nas.js',
        replay: readRecording(file),
        device: { password: PASSWORD },
      });
      expect(again.status).toBe('success');
      expect(again.variables).toEqual(recorded.variables);
      expect(again.http.map(shape)).toEqual(recorded.http.map(shape));
    });
  });

  describe('matching', () => {
    const file = path.join(mkdtempSync(path.join(work, 'match-')), 'steps.json');
    let server: DeviceServer;
    const recordedSteps: Step[] = [
      { method: 'get', options: { url: '/query?b=2&a=1' } },
      { method: 'post', options: { url: '/settings', json: { mode: 'eco', level: 3 } } },
      { method: 'get', options: '/counter' },
      { method: 'get', options: '/counter' },
      { method: 'get', options: { url: '/', port: 8080 } },
    ];
    let recorded: Outcome[];

    beforeAll(async () => {
      server = await startNas();
      const device = { ip: '127.0.0.1', portMap: { 80: server.port, 8080: await closedPort() } };
      recorded = outcomes(await runSource(recorder, stepsDriver, { device, parameters: { steps: recordedSteps }, record: file }));
      await server.close();
    });

    it('recorded the answers, the failed connection included', () => {
      expect(recorded.map((o) => o.status ?? o.code)).toEqual([200, 200, 200, 200, 'ECONNREFUSED']);
      const recording = readRecording(file);
      expect(recording.exchanges[4]).toMatchObject({ kind: 'http', error: { code: 'ECONNREFUSED' } });
    });

    it("applies the run's maxResponseBytes to replayed answers as to the wire's", async () => {
      const steps: Step[] = [{ method: 'get', options: { url: '/query?a=1&b=2' } }];
      const result = await runSource(replayer, stepsDriver, { parameters: { steps }, replay: file, limits: { maxResponseBytes: 10 } });
      expect(outcomes(result)).toEqual([{ code: 'BODY_TOO_LARGE', message: expect.stringContaining('larger than the limit of 10 bytes (maxResponseBytes)') }]);
    });

    it('matches query parameters in any order and JSON bodies as JSON; identical requests in recorded order', async () => {
      const steps: Step[] = [
        { method: 'get', options: { url: '/query?a=1&b=2' } },
        { method: 'post', options: { url: '/settings', json: { level: 3, mode: 'eco' } } },
        { method: 'get', options: '/counter' },
        { method: 'get', options: '/counter' },
        { method: 'get', options: { url: '/', port: 8080 } },
      ];
      const result = await runSource(replayer, stepsDriver, { parameters: { steps }, replay: file });
      const got = outcomes(result);
      expect(got).toEqual(recorded);
      expect(got.map((o) => o.body)).toEqual([
        JSON.stringify({ query: [['a', '1'], ['b', '2']] }),
        JSON.stringify({ saved: { mode: 'eco', level: 3 } }),
        JSON.stringify({ n: 1 }),
        JSON.stringify({ n: 2 }),
        undefined,
      ]);
      expect(result.warnings).toEqual([]);
    });

    it('fails a request that was not recorded with REPLAY_MISS, naming it and the closest recorded ones', async () => {
      const steps: Step[] = [
        { method: 'get', options: { url: '/query?a=1&b=3' } },
        { method: 'post', options: { url: '/settings', json: { mode: 'sport', level: 3 } } },
        { method: 'get', options: '/counter' },
        { method: 'get', options: '/counter' },
        { method: 'get', options: '/counter' },
      ];
      const result = await runSource(replayer, stepsDriver, { parameters: { steps }, replay: file });
      const got = outcomes(result);
      const origin = `http://127.0.0.1:${server.port}`;
      expect(got[0]).toMatchObject({ code: 'REPLAY_MISS' });
      expect(got[0]!.message).toContain(`no recorded answer for GET ${origin}/query?a=1&b=3 (no body)`);
      expect(got[0]!.message).toContain(`closest recorded: GET ${origin}/query?a=1&b=2 (no body), differs in query`);
      expect(got[1]).toMatchObject({ code: 'REPLAY_MISS' });
      expect(got[1]!.message).toMatch(new RegExp(`no recorded answer for POST ${origin}/settings \\(body sha256:[0-9a-f]{12}, 26 bytes\\)`));
      expect(got[1]!.message).toMatch(/closest recorded: POST .*\/settings \(body sha256:[0-9a-f]{12}, 24 bytes\), differs in body/);
      expect(got.slice(2, 4).map((o) => o.body)).toEqual([JSON.stringify({ n: 1 }), JSON.stringify({ n: 2 })]);
      expect(got[4]).toMatchObject({ code: 'REPLAY_MISS' });
      expect(got[4]!.message).toContain(`GET ${origin}/counter (no body) was recorded 2 times and every recorded answer was already used`);
      // The transcript and the result say so too.
      const missed = result.http.filter((h) => h.error === 'REPLAY_MISS');
      expect(missed.map((h) => h.url)).toEqual([`${origin}/query?a=1&b=3`, `${origin}/settings`, `${origin}/counter`]);
      expect(missed[0]!.errorMessage).toContain('closest recorded');
      expect(result.warnings).toContain('replay: 3 requests had no recorded answer (REPLAY_MISS, see the HTTP exchanges)');
      expect(result.warnings.some((w) => w.startsWith('replay: 3 recorded exchanges were never asked for: GET'))).toBe(true);
    });

    it('answers a certificate read that was not recorded with REPLAY_MISS', async () => {
      const source = `function get_status() {
        D.device.http.getTLSCertificate({ port: 443 }, function (err) { console.log(err.code + ': ' + err.message); D.success(); });
      }`;
      const result = await runSource(replayer, source, { replay: file });
      expect(result.logs[0]!.message).toBe('REPLAY_MISS: replay: no recorded answer for getTLSCertificate of tls://127.0.0.1:443; recorded: no certificate reads');
      expect(result.http[0]).toMatchObject({ method: 'TLS', error: 'REPLAY_MISS' });
    });
  });

  describe('edge cases', () => {
    let server: DeviceServer;
    beforeAll(async () => {
      server = await startNas();
    });
    afterAll(() => server.close());

    it('masks a password too short to mask as text where it is a whole value: form field, JSON string, url segment', async () => {
      const file = path.join(mkdtempSync(path.join(work, 'short-')), 'short.json');
      const source = `function get_status() {
        var pw = D.device.password();
        D.device.http.post({ url: '/auth/\${password}?p=\${password}', json: { user: 'pw-user', password: pw } }, function (e1, r1, b1) {
          D.device.http.post({ url: '/settings', form: { password: pw, note: 'pwned' } }, function (e2, r2, b2) {
            if (e1 || e2) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
            console.log(JSON.stringify([r1.statusCode, b1, r2.statusCode, b2]));
            D.success();
          });
        });
      }`;
      const device = { ip: '127.0.0.1', username: 'admin', password: 'pw', portMap: { 80: server.port } };
      const recorded = await runSource(recorder, source, { device, record: file });
      expect(recorded.logs[0]!.message).toBe(JSON.stringify([200, { ok: true }, 200, JSON.stringify({ saved: { password: 'pw', note: 'pwned' } })]));
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('/auth/***?p=***');
      expect(text).toContain('\\"password\\":\\"***\\"');
      expect(text).toContain('password=***&note=pwned');
      expect(text).not.toMatch(/\/auth\/pw|p=pw\b|password=pw\b|\\"pw\\"/);
      // Replayed with no password: the stand-in redacts to what was recorded. The device's echo was redacted too.
      const replayed = await runSource(replayer, source, { replay: file });
      expect(replayed.status).toBe('success');
      expect(replayed.logs[0]!.message).toBe(JSON.stringify([200, { ok: true }, 200, JSON.stringify({ saved: { password: '***', note: 'pwned' } })]));
    });

    it('leaves unanswered at replay what the run ended before the device answered', async () => {
      const file = path.join(mkdtempSync(path.join(work, 'cut-')), 'cut.json');
      const source = `function get_status() {
        D.device.http.get('/slow?ms=3000', function () { console.log('slow answered'); });
        D.device.http.get('/counter', function () { D.success(); });
      }`;
      const device = { ip: '127.0.0.1', portMap: { 80: server.port } };
      const recorded = await runSource(recorder, source, { device, record: file });
      expect(recorded.http.map((h) => h.error ?? h.status)).toEqual(['ABORTED', 200]);
      expect(readRecording(file).exchanges[0]).toMatchObject({ kind: 'http', unanswered: true });
      const replayed = await runSource(replayer, source, { replay: file });
      expect(replayed.status).toBe('success');
      expect(replayed.logs).toEqual([]);
      expect(replayed.http.map((h) => h.error ?? h.status)).toEqual(['ABORTED', 200]);
      expect(replayed.warnings).toEqual([]);
    });

    it('says so when the caller gives another device address than the recorded one', async () => {
      const file = path.join(mkdtempSync(path.join(work, 'addr-')), 'addr.json');
      const source = `function get_status() { D.device.http.get('/counter', function (e, r, b) { D.success([D.createVariable('ip', 'IP', D.device.ip())]); }); }`;
      await runSource(recorder, source, { device: { ip: '127.0.0.1', portMap: { 80: server.port } }, record: file });
      const replayed = await runSource(replayer, source, { device: { ip: '10.9.8.7' }, replay: file });
      expect(replayed.variables[0]!.value).toBe('127.0.0.1');
      expect(replayed.warnings).toEqual(['replay: the device address given (ip 10.9.8.7) is not used; urls are built on the recorded one (127.0.0.1)']);
    });
  });

  describe('the recording file', () => {
    it('appears only when complete: a temporary file next to it while the run goes on, then a rename', async () => {
      const server = await startNas();
      try {
        const dir = mkdtempSync(path.join(work, 'atomic-'));
        const file = path.join(dir, 'slow.json');
        writeFileSync(file, 'the previous recording');
        const run = runSource(recorder, `function get_status() { D.device.http.get('/slow?ms=400', function () { D.success(); }); }`, {
          device: { ip: '127.0.0.1', portMap: { 80: server.port } },
          record: file,
        });
        while (!server.seen.some((r) => r.url.startsWith('/slow'))) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(readFileSync(file, 'utf8')).toBe('the previous recording');
        expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toHaveLength(1);
        expect((await run).status).toBe('success');
        expect(readRecording(file).exchanges).toHaveLength(1);
        expect(readdirSync(dir)).toEqual(['slow.json']);
      } finally {
        await server.close();
      }
    });

    it('refuses a record path that cannot be written before the run starts', async () => {
      const server = await startNas();
      try {
        const dir = mkdtempSync(path.join(work, 'unwritable-'));
        const source = `function get_status() { D.device.http.get('/counter', function () { D.success(); }); }`;
        const device = { ip: '127.0.0.1', portMap: { 80: server.port } };
        await expect(runSource(recorder, source, { device, record: path.join(dir, 'missing', 'x.json') })).rejects.toMatchObject({
          code: 'RECORD_UNWRITABLE',
          message: `cannot write the recording ${path.join(dir, 'missing', 'x.json')}: the directory ${path.join(dir, 'missing')} does not exist`,
        });
        mkdirSync(path.join(dir, 'taken.json'));
        await expect(runSource(recorder, source, { device, record: path.join(dir, 'taken.json') })).rejects.toMatchObject({
          code: 'RECORD_UNWRITABLE',
          message: expect.stringContaining('it is a directory'),
        });
        expect(server.seen).toHaveLength(0); // the driver never ran
      } finally {
        await server.close();
      }
    });

    it('refuses a recording of another version, or malformed, before the run', async () => {
      const dir = mkdtempSync(path.join(work, 'bad-'));
      const good: RecordingFile = {
        recording: 1,
        driver: 'd.js',
        action: 'get_status',
        recordedAt: new Date().toISOString(),
        outcome: { status: 'success', errorType: null },
        device: { ip: '127.0.0.1', host: null, username: null, hasPassword: false, portMap: {} },
        exchanges: [{ kind: 'http', method: 'GET', url: 'http://127.0.0.1/', request: { headers: {}, body: null }, response: { status: 200, headers: {}, body: { text: 'ok' }, wireBytes: 2 } }],
      };
      const write = (name: string, text: string) => {
        writeFileSync(path.join(dir, name), text);
        return path.join(dir, name);
      };
      const source = `function get_status() { D.success(); }`;
      const replay = (replay: string | RecordingFile) => runSource(replayer, source, { replay });

      await expect(replay(write('v2.json', JSON.stringify({ ...good, recording: 2 })))).rejects.toMatchObject({
        code: 'REPLAY_VERSION',
        message: `${path.join(dir, 'v2.json')} is a recording of version 2; this driverbox reads version 1 only (record it again)`,
      });
      await expect(replay({ ...good, recording: 2 } as unknown as RecordingFile)).rejects.toMatchObject({ code: 'REPLAY_VERSION' });
      await expect(replay(write('text.json', 'not json {'))).rejects.toMatchObject({
        code: 'REPLAY_MALFORMED',
        message: expect.stringMatching(/text\.json is not a driverbox recording: not valid JSON/),
      });
      await expect(replay(write('other.json', '{"name":"something else"}'))).rejects.toMatchObject({
        code: 'REPLAY_MALFORMED',
        message: expect.stringContaining('it has no "recording" version field'),
      });
      const badStatus = structuredClone(good) as unknown as { exchanges: Array<{ response: { status: unknown } }> };
      badStatus.exchanges[0]!.response.status = 'ok';
      await expect(replay(write('status.json', JSON.stringify(badStatus)))).rejects.toMatchObject({
        code: 'REPLAY_MALFORMED',
        message: `${path.join(dir, 'status.json')} is not a valid recording: exchanges[0].response.status must be an integer from 100 to 599 (got "ok")`,
      });
      const noOutcome = structuredClone(good) as unknown as { exchanges: Array<Record<string, unknown>> };
      delete noOutcome.exchanges[0]!.response;
      await expect(replay(write('outcome.json', JSON.stringify(noOutcome)))).rejects.toMatchObject({
        code: 'REPLAY_MALFORMED',
        message: expect.stringContaining('exchanges[0] must be one of "response", "error", "unanswered"'),
      });
      await expect(replay(path.join(dir, 'absent.json'))).rejects.toMatchObject({
        code: 'REPLAY_UNREADABLE',
        message: `cannot read the recording ${path.join(dir, 'absent.json')}: no such file`,
      });
      // The good one replays.
      const ok = await runSource(replayer, `function get_status() { D.device.http.get('/', function (e, r, b) { D.success([D.createVariable('b', 'B', b)]); }); }`, { replay: write('good.json', JSON.stringify(good)) });
      expect(ok.variables[0]!.value).toBe('ok');
    });

    it('refuses record and replay together', async () => {
      await expect(runSource(recorder, 'function get_status() { D.success(); }', { record: path.join(work, 'x.json'), replay: path.join(work, 'y.json') })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    });
  });
});

describe('driverbox run --record / --replay', () => {
  const exec = promisify(execFile);
  const bin = path.resolve('bin/driverbox.js');
  const dir = mkdtempSync(path.join(work, 'cli-'));

  async function cli(args: string[]) {
    try {
      const { stdout, stderr } = await exec(process.execPath, [bin, ...args], { cwd: dir, env: { PATH: process.env.PATH, NO_COLOR: '1' } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  const driver = `function get_status() {
    D.device.http.post({ url: '/login', form: { user: D.device.username(), password: D.device.password() }, jar: true, followAllRedirects: true }, function (err, res, body) {
      if (err || res.statusCode !== 200) return D.failure(D.errorType.AUTHENTICATION_ERROR);
      D.device.http.get({ url: '/basic', auth: 'basic' }, function (err, res, basic) {
        if (err) { console.error(err.code + ': ' + err.message); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
        D.success([D.createVariable('model', 'Model', JSON.parse(body).model), D.createVariable('uptime', 'Uptime', JSON.parse(basic).uptime)]);
      });
    });
  }`;
  let server: Awaited<ReturnType<typeof startNas>>;
  let recorded: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    server = await startNas();
    writeFileSync(path.join(dir, 'nas.js'), driver);
    writeFileSync(path.join(dir, 'other.js'), driver.replace("'/basic'", "'/basic?verbose=1'"));
    recorded = await cli(['run', 'nas.js', '--device-ip', '127.0.0.1', '--username', USER, '--password', PASSWORD, '--port-map', `80=${server.port}`, '--record', 'session.json', '--json']);
    await server.close();
  });

  it('records with --record, then replays with --replay and no device', async () => {
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(recorded.stderr).toContain(`recorded to ${path.join(dir, 'session.json')}`);
    expect(readFileSync(path.join(dir, 'session.json'), 'utf8')).not.toContain(PASSWORD);
    const replayed = await cli(['run', 'nas.js', '--replay', 'session.json', '--json']);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).variables).toEqual(JSON.parse(recorded.stdout).variables);
    expect(JSON.parse(replayed.stdout).variables).toEqual([
      { uid: 'model', label: 'Model', value: 'NAS-9000', unit: null, valueType: 'STRING' },
      { uid: 'uptime', label: 'Uptime', value: '86400', unit: null, valueType: 'STRING' },
    ]);
  });

  it('prints a replay miss with the request and the closest recorded one', async () => {
    const { code, stdout } = await cli(['run', 'other.js', '--replay', 'session.json']);
    expect(code).toBe(1);
    expect(stdout).toContain('replay of session.json');
    expect(stdout).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/basic\?verbose=1 → REPLAY_MISS/);
    expect(stdout).toMatch(/closest recorded: GET http:\/\/127\.0\.0\.1:\d+\/basic \(no body\), differs in query/);
    expect(stdout).toContain('replay: 1 request had no recorded answer');
  });

  it('exits 2 for a malformed recording or an unwritable record path', async () => {
    writeFileSync(path.join(dir, 'broken.json'), JSON.stringify({ recording: 1, action: 'get_status', device: {}, exchanges: [] }));
    const malformed = await cli(['run', 'nas.js', '--replay', 'broken.json']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(`${path.join(dir, 'broken.json')} is not a valid recording: device.ip must be a string or null (got nothing)`);
    writeFileSync(path.join(dir, 'v9.json'), JSON.stringify({ ...JSON.parse(readFileSync(path.join(dir, 'session.json'), 'utf8')), recording: 9 }));
    const version = await cli(['run', 'nas.js', '--replay', 'v9.json']);
    expect(version.code).toBe(2);
    expect(version.stderr).toContain(`${path.join(dir, 'v9.json')} is a recording of version 9; this driverbox reads version 1 only`);
    const unwritable = await cli(['run', 'nas.js', '--device-ip', '127.0.0.1', '--record', 'no/such/dir/x.json']);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain(`cannot write the recording ${path.join(dir, 'no/such/dir/x.json')}`);
    expect(existsSync(path.join(dir, 'no'))).toBe(false);
  });
});
