// Route features of the simulator through plain HTTP(S) requests (undici): matching,
// requirements, bodies, cookies, delays, state, answers in turn, the 404 for unmatched
// requests, the request log, reset() and close().
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseFixture, startSimulator, type FixtureSpec, type SimulatedRequest, type Simulator } from '../../host/index.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-sim-routes-'));
const started: Simulator[] = [];
async function simulate(spec: FixtureSpec, options: Parameters<typeof startSimulator>[1] = {}): Promise<Simulator> {
  const sim = await startSimulator(spec, options);
  started.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()));
});

// A fresh connection per request: a reset or held socket never leaks into the next test.
const agent = new Agent({ pipelining: 0, connect: { rejectUnauthorized: false } });
afterAll(() => agent.close());

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}
async function send(sim: Simulator, url: string, options: Sent = {}, protocol: 'http' | 'https' = 'http') {
  const port = protocol === 'https' ? sim.httpsPort! : sim.httpPort;
  const response = await request(`${protocol}://127.0.0.1:${port}${url}`, { method: (options.method ?? 'GET') as 'GET', headers: options.headers, body: options.body, dispatcher: agent });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

const basic = (user: string, pass: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });

describe('simulator routes', () => {
  it('matches method (default GET) and exact path; a miss is a 404 naming the request, with hints', async () => {
    const sim = await simulate({
      fixture: 1,
      routes: [
        { path: '/api/items', json: [1, 2] },
        { method: 'post', path: '/api/items', status: 201, json: { created: true } },
      ],
    });
    expect((await send(sim, '/api/items')).json()).toEqual([1, 2]);
    const created = await send(sim, '/api/items', { method: 'POST', body: '{}' });
    expect([created.status, created.json()]).toEqual([201, { created: true }]);

    const wrongMethod = await send(sim, '/api/items', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.headers['content-type']).toBe('application/json');
    expect(wrongMethod.json()).toEqual({
      error: 'no route of the fixture matches DELETE /api/items',
      request: { protocol: 'http', method: 'DELETE', path: '/api/items', query: {}, state: 'start' },
      hints: ['routes[0] answers GET, not DELETE', 'routes[1] answers POST, not DELETE'],
    });
    const trailing = await send(sim, '/api/items/?x=1');
    expect(trailing.json()).toMatchObject({
      error: 'no route of the fixture matches GET /api/items/?x=1',
      request: { path: '/api/items/', query: { x: '1' } },
      hints: ["no route has the path /api/items/; the fixture's paths: /api/items"],
    });
    expect(sim.requests.map((r) => [r.method, r.url, r.outcome, r.routeIndex])).toEqual([
      ['GET', '/api/items', 'answered', 0],
      ['POST', '/api/items', 'answered', 1],
      ['DELETE', '/api/items', 'unmatched', null],
      ['GET', '/api/items/?x=1', 'unmatched', null],
    ]);
    expect(sim.requests[2]!.reason).toBe('routes[0] answers GET, not DELETE; routes[1] answers POST, not DELETE');
  });

  it('query constraints: from the path or `query`, true for any value, other parameters allowed', async () => {
    const sim = await simulate({
      fixture: 1,
      device: { username: 'ops' },
      routes: [
        { path: '/cgi-bin/status?page=1', query: { token: true }, body: 'page one' },
        { path: '/cgi-bin/status', query: { page: '2', user: '${username}' }, body: 'page two' },
      ],
    });
    expect((await send(sim, '/cgi-bin/status?token=abc&page=1&extra=y')).text).toBe('page one');
    expect((await send(sim, '/cgi-bin/status?user=ops&page=2')).text).toBe('page two');
    const missing = await send(sim, '/cgi-bin/status?page=1');
    expect(missing.status).toBe(404);
    expect(missing.json().hints).toEqual(['routes[0] needs the query parameter token', 'routes[1] needs the query parameter page=2']);
  });

  it('answers with status, headers, text, json or a file, with the Content-Type each implies unless one is given', async () => {
    const dir = path.join(work, 'pages');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'index.html'), '<h1>device</h1>');
    writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 255]));
    const fixture = parseFixture(
      {
        fixture: 1,
        routes: [
          { path: '/text', status: 203, headers: { 'X-Firmware': '7.1', 'x-many': ['a', 'b'] }, body: 'plain' },
          { path: '/json', json: null },
          { path: '/page', bodyFile: 'pages/index.html' },
          { path: '/blob', bodyFile: 'pages/blob.bin' },
          { path: '/xml', headers: { 'content-type': 'text/xml' }, body: '<a/>' },
          { path: '/empty', status: 204 },
        ],
      },
      { baseDir: work },
    );
    const sim = await startSimulator(fixture);
    started.push(sim);
    const text = await send(sim, '/text');
    expect([text.status, text.text, text.headers['content-type'], text.headers['x-firmware'], text.headers['x-many']]).toEqual([203, 'plain', 'text/plain; charset=utf-8', '7.1', ['a', 'b']]);
    const json = await send(sim, '/json');
    expect([json.text, json.headers['content-type']]).toEqual(['null', 'application/json']);
    const page = await send(sim, '/page');
    expect([page.text, page.headers['content-type']]).toEqual(['<h1>device</h1>', 'text/html; charset=utf-8']);
    const blob = await request(`http://127.0.0.1:${sim.httpPort}/blob`, { dispatcher: agent });
    expect([...Buffer.from(await blob.body.arrayBuffer())]).toEqual([0, 1, 2, 255]);
    expect(blob.headers['content-type']).toBe('application/octet-stream');
    expect((await send(sim, '/xml')).headers['content-type']).toBe('text/xml');
    const empty = await send(sim, '/empty');
    expect([empty.status, empty.text]).toEqual([204, '']);
  });

  it('setCookie sends one or many Set-Cookie headers', async () => {
    const sim = await simulate({
      fixture: 1,
      routes: [
        { path: '/one', setCookie: 'SID=1; Path=/' },
        { path: '/two', setCookie: ['a=1; Path=/; HttpOnly', 'b=2'] },
      ],
    });
    expect((await send(sim, '/one')).headers['set-cookie']).toBe('SID=1; Path=/');
    expect((await send(sim, '/two')).headers['set-cookie']).toEqual(['a=1; Path=/; HttpOnly', 'b=2']);
  });

  it('delayMs holds the answer back at least that long', async () => {
    const sim = await simulate({ fixture: 1, routes: [{ path: '/slow', delayMs: 250, body: 'late' }] });
    const began = performance.now();
    expect((await send(sim, '/slow')).text).toBe('late');
    expect(performance.now() - began).toBeGreaterThanOrEqual(240);
  });

  it('requirements: basic auth (401 + challenge), cookie (401), header (403), body fields (401); each names what is missing', async () => {
    const sim = await simulate({
      fixture: 1,
      description: 'Lab "NAS"',
      device: { username: 'admin', password: 'pw' },
      routes: [
        { path: '/basic', auth: 'device', body: 'in' },
        { path: '/other-basic', auth: { username: 'u2', password: 'p2' }, body: 'in' },
        { path: '/cookie', cookie: { SID: 'abc', seen: true }, body: 'in' },
        { path: '/header', requireHeaders: { 'X-Api-Key': 'k-1', 'x-trace': true }, body: 'in' },
        { method: 'POST', path: '/login', requireBody: { user: '${username}', pass: '${password}' }, body: 'in' },
      ],
    });
    const noAuth = await send(sim, '/basic');
    expect([noAuth.status, noAuth.headers['www-authenticate'], noAuth.json()]).toEqual([401, 'Basic realm="Lab NAS"', { error: 'no basic credentials were sent (Authorization header)', route: 'GET /basic' }]);
    expect((await send(sim, '/basic', { headers: basic('admin', 'bad') })).json().error).toBe('the basic credentials do not match');
    expect((await send(sim, '/basic', { headers: basic('admin', 'pw') })).text).toBe('in');
    expect((await send(sim, '/other-basic', { headers: basic('u2', 'p2') })).text).toBe('in');

    const noCookie = await send(sim, '/cookie', { headers: { cookie: 'seen=1' } });
    expect([noCookie.status, noCookie.headers['www-authenticate'], noCookie.json().error]).toEqual([401, undefined, 'cookie "SID" is missing']);
    expect((await send(sim, '/cookie', { headers: { cookie: 'SID=abd; seen=1' } })).json().error).toBe('cookie "SID" has another value');
    expect((await send(sim, '/cookie', { headers: { cookie: 'SID=abc' } })).json().error).toBe('cookie "seen" is missing');
    expect((await send(sim, '/cookie', { headers: { cookie: 'a=b; SID=abc; seen=' } })).text).toBe('in');

    const noHeader = await send(sim, '/header', { headers: { 'x-trace': '1' } });
    expect([noHeader.status, noHeader.json().error]).toEqual([403, 'header "x-api-key" is missing']);
    expect((await send(sim, '/header', { headers: { 'x-api-key': 'k-1', 'x-trace': '' } })).text).toBe('in');

    const form = await send(sim, '/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=admin' });
    expect([form.status, form.json().error]).toEqual([401, 'body field "pass" is missing']);
    expect((await send(sim, '/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'user=admin&pass=pw' })).text).toBe('in');
    expect((await send(sim, '/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"user":"admin","pass":"pw"}' })).text).toBe('in');
    expect(sim.requests.filter((r) => r.outcome === 'refused')).toHaveLength(7);
  });

  it('a route whose requirements fail lets a later route for the same request answer (not logged in → redirect)', async () => {
    const sim = await simulate({
      fixture: 1,
      routes: [
        { path: '/home', cookie: { SID: 'ok' }, body: 'dashboard' },
        { path: '/home', status: 302, headers: { location: '/login.html' } },
      ],
    });
    expect((await send(sim, '/home', { headers: { cookie: 'SID=ok' } })).text).toBe('dashboard');
    const redirected = await send(sim, '/home');
    expect([redirected.status, redirected.headers.location]).toEqual([302, '/login.html']);
    expect(sim.requests.map((r) => r.routeIndex)).toEqual([0, 1]);
  });

  it('setState / whenState: a route that changes the state, routes that only match in a state; reset() starts over', async () => {
    const sim = await simulate({
      fixture: 1,
      state: 'idle',
      routes: [
        { method: 'POST', path: '/reboot', setState: 'rebooting', status: 202 },
        { path: '/status', whenState: 'rebooting', responses: [{ status: 503 }, { status: 503 }, { json: { up: true }, setState: 'idle' }] },
        { path: '/status', whenState: ['idle'], json: { up: true, fresh: false } },
      ],
    });
    expect((await send(sim, '/status')).json()).toEqual({ up: true, fresh: false });
    expect((await send(sim, '/reboot', { method: 'POST' })).status).toBe(202);
    expect(sim.state).toBe('rebooting');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(sim, '/status')).status);
    expect(statuses).toEqual([503, 503, 200, 200]);
    expect(sim.state).toBe('idle');
    expect(sim.requests.map((r) => r.state)).toEqual(['idle', 'rebooting', 'rebooting', 'rebooting', 'idle', 'idle']);

    sim.reset();
    expect([sim.state, sim.requests.length]).toEqual(['idle', 0]);
    await send(sim, '/reboot', { method: 'POST' });
    expect((await send(sim, '/status')).status).toBe(503); // the answers start over
  });

  it('responses in turn: the last one repeats; a state-only 404 says which state the route needs', async () => {
    const sim = await simulate({
      fixture: 1,
      routes: [
        { path: '/flaky', responses: [{ status: 503, headers: { 'retry-after': '1' } }, { body: 'ok' }] },
        { path: '/later', whenState: 'ready', body: 'x' },
        { path: '/ready', setState: 'ready' },
      ],
    });
    const first = await send(sim, '/flaky');
    expect([first.status, first.headers['retry-after']]).toEqual([503, '1']);
    expect([(await send(sim, '/flaky')).text, (await send(sim, '/flaky')).text]).toEqual(['ok', 'ok']);
    expect((await send(sim, '/later')).json().hints).toEqual(['routes[1] only answers in state "ready" (the state is "start")']);
  });

  it('serves the same routes over HTTPS on every listed port; protocol limits a route to one of them', async () => {
    const sim = await simulate({
      fixture: 1,
      http: { ports: [80, 8080] },
      https: { ports: [443, 8443] },
      routes: [
        { path: '/both', body: 'either' },
        { path: '/tls', protocol: 'https', body: 'secret' },
      ],
    });
    expect(sim.portMap).toEqual({ 80: sim.httpPort, 8080: sim.httpPort, 443: sim.httpsPort, 8443: sim.httpsPort });
    expect(sim.device.portMap).toEqual(sim.portMap);
    expect((await send(sim, '/both', {}, 'https')).text).toBe('either');
    expect((await send(sim, '/tls', {}, 'https')).text).toBe('secret');
    expect((await send(sim, '/tls')).status).toBe(404);
    expect(sim.requests.map((r) => r.protocol)).toEqual(['https', 'https', 'http']);
  });

  it('listens on the ports asked for, and logs each request to onRequest as it is decided', async () => {
    const seen: SimulatedRequest[] = [];
    const probe = await simulate({ fixture: 1, https: true, routes: [{ path: '/', body: 'x' }] });
    const [free, freeTls] = [probe.httpPort, probe.httpsPort!];
    await probe.close();
    const sim = await simulate({ fixture: 1, https: true, routes: [{ path: '/', body: 'x' }] }, { port: free, httpsPort: freeTls, onRequest: (r) => seen.push(r) });
    expect([sim.httpPort, sim.httpsPort]).toEqual([free, freeTls]);
    await send(sim, '/', { method: 'GET', headers: { 'x-test': '1' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ seq: 1, protocol: 'http', method: 'GET', url: '/', route: 'GET /', routeIndex: 0, status: 200, outcome: 'answered', reason: null, state: 'start', body: '' });
    expect(seen[0]!.headers['x-test']).toBe('1');
    expect(Date.parse(seen[0]!.time)).not.toBeNaN();
    // A port already taken is a clear error.
    await expect(startSimulator({ fixture: 1, routes: [{ path: '/' }] }, { port: free })).rejects.toThrow(`cannot serve http on 127.0.0.1:${free}: the port is in use`);
    await expect(startSimulator({ fixture: 1, routes: [{ path: '/' }] }, { httpsPort: 4430 })).rejects.toThrow('httpsPort was given, but the fixture does not serve https');
    await expect(startSimulator({ fixture: 1, routes: [{ path: '/' }] }, { port: 70000 })).rejects.toThrow('port must be an integer 0–65535 (got 70000)');
  });

  it('close() ends connections the simulator holds (fail: "timeout") and stops listening', async () => {
    const sim = await startSimulator({ fixture: 1, routes: [{ path: '/hang', fail: 'timeout' }] });
    const pending = send(sim, '/hang');
    await expect.poll(() => sim.requests.length).toBe(1);
    await sim.close();
    await expect(pending).rejects.toThrow();
    await expect(send(sim, '/hang')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('refuses request bodies over 1 MiB with 413', async () => {
    const sim = await simulate({ fixture: 1, routes: [{ method: 'POST', path: '/upload' }] });
    const big = await send(sim, '/upload', { method: 'POST', body: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(sim.requests[0]).toMatchObject({ outcome: 'too-large', status: 413 });
  });
});
