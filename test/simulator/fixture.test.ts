// The fixture format's validation: every mistake a hand-written file can make is a
// FixtureError naming the file and the field path; all problems are listed at once.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DriverboxError, FixtureError, loadFixture, parseFixture } from '../../host/index.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-fixture-'));

function problemsOf(spec: unknown, options: Parameters<typeof parseFixture>[1] = { baseDir: work }): string[] {
  try {
    parseFixture(spec, options);
  } catch (error) {
    expect(error).toBeInstanceOf(FixtureError);
    return (error as FixtureError).problems;
  }
  throw new Error('the fixture was accepted');
}

const withRoute = (route: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ fixture: 1, ...extra, routes: [{ path: '/ok' }, route] });

describe('fixture files', () => {
  it('loads a valid file, filling in the defaults', () => {
    const file = path.join(work, 'ok.json');
    writeFileSync(file, JSON.stringify({ fixture: 1, routes: [{ path: '/status', json: { up: true } }] }));
    const fixture = loadFixture(file);
    expect(fixture).toMatchObject({
      version: 1,
      file,
      description: null,
      device: { username: null, password: null, host: null },
      parameters: {},
      initialState: 'start',
      http: { ports: [80] },
      https: null,
    });
    expect(fixture.routes).toEqual([
      {
        name: 'GET /status',
        method: 'GET',
        path: '/status',
        query: {},
        protocol: null,
        whenState: null,
        auth: null,
        cookie: {},
        requireHeaders: {},
        requireBody: {},
        responses: [{ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"up":true}'), setCookie: [], delayMs: 0, fail: null, setState: null }],
      },
    ]);
  });

  it('a missing file, a folder, and broken JSON (with line and column) are FixtureErrors naming the file', () => {
    const missing = path.join(work, 'nope.json');
    expect(() => loadFixture(missing)).toThrow(`fixture ${missing}: cannot be read: no such file`);
    expect(() => loadFixture(work)).toThrow(`fixture ${work}: cannot be read: it is a directory`);
    const broken = path.join(work, 'broken.json');
    writeFileSync(broken, '{\n  "fixture": 1,\n  "routes": [],\n}\n');
    expect(() => loadFixture(broken)).toThrow(`fixture ${broken}: is not valid JSON: Expected double-quoted property name at line 4, column 1`);
    try {
      loadFixture(broken);
    } catch (error) {
      expect(error).toBeInstanceOf(DriverboxError);
      expect(error).toMatchObject({ code: 'INVALID_FIXTURE', file: broken, name: 'FixtureError' });
    }
  });

  it('the version must be there and be 1; another version is not read further', () => {
    expect(problemsOf({ routes: [] })).toEqual(['fixture: missing: the file must say which version of the format it uses, as "fixture": 1']);
    expect(problemsOf({ fixture: 2, anything: 'goes' })).toEqual(['fixture: version 2 is not supported: this driverbox reads fixture version 1']);
    expect(problemsOf({ fixture: '1', routes: [{ path: '/' }] })).toEqual(['fixture: version "1" is not supported: this driverbox reads fixture version 1']);
    expect(problemsOf([{ path: '/' }])).toEqual(['(top level): must be an object (got a list)']);
  });

  it('lists every problem at once, in one message', () => {
    const file = path.join(work, 'many.json');
    writeFileSync(file, JSON.stringify({ fixture: 1, rotues: [], state: '' }));
    expect(() => loadFixture(file)).toThrow(
      `fixture ${file} has 3 problems:\n  rotues: unknown field (did you mean "routes"?)\n  state: must be a non-empty string (got "")\n  routes: must be a non-empty list of routes such as { "path": "/status", "json": { … } } (got nothing)`,
    );
  });

  it('a bodyFile that is missing is an error at load time naming the route and the path', () => {
    const file = path.join(work, 'nested', 'device.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(withRoute({ name: 'home page', path: '/index.html', bodyFile: 'pages/index.html' })));
    const full = path.join(work, 'nested', 'pages', 'index.html');
    expect(() => loadFixture(file)).toThrow(`fixture ${file}: routes[1].bodyFile: route home page: cannot read "pages/index.html" (${full}): no such file`);
    mkdirSync(path.dirname(full));
    writeFileSync(full, '<p>hi</p>');
    expect(loadFixture(file).routes[1]!.responses[0]!.body.toString()).toBe('<p>hi</p>'); // relative to the fixture's folder
  });
});

describe('fixture validation: field by field', () => {
  const cases: Array<[string, unknown, string[]]> = [
    ['unknown route field, with a suggestion', withRoute({ path: '/x', header: { a: 'b' } }), ['routes[1].header: unknown field (did you mean "headers"?)']],
    ['a route that is not an object', { fixture: 1, routes: ['/x'] }, ['routes[0]: must be an object (got "/x")']],
    ['path missing', withRoute({ json: 1 }), ['routes[1].path: missing: every route needs a path such as "/status"']],
    ['path not starting with /', withRoute({ path: 'status' }), ['routes[1].path: must be a path starting with "/", without spaces or "#" (got "status")']],
    ['method', withRoute({ path: '/x', method: 'GET /x' }), ['routes[1].method: must be an HTTP method such as "GET" or "POST" (got "GET /x")']],
    ['status out of range', withRoute({ path: '/x', status: 700 }), ['routes[1].status: must be an integer 200–599 (got 700)']],
    ['status not an integer', withRoute({ path: '/x', status: '200' }), ['routes[1].status: must be an integer 200–599 (got "200")']],
    ['a body on a 204', withRoute({ path: '/x', status: 204, body: 'no' }), ['routes[1].status: a 204 response has no body, but one is given']],
    ['two bodies', withRoute({ path: '/x', body: 'a', json: {} }), ['routes[1]: give only one of body, json or bodyFile (got body and json)']],
    ['body not text', withRoute({ path: '/x', body: { a: 1 } }), ['routes[1].body: must be a string; use json for other values (got an object)']],
    ['headers the simulator owns', withRoute({ path: '/x', headers: { 'Content-Length': '5', 'set-cookie': 'a=b' } }), ['routes[1].headers["Content-Length"]: cannot be set here: it is set from the body', 'routes[1].headers["set-cookie"]: cannot be set here: use setCookie']],
    ['header value', withRoute({ path: '/x', headers: { 'x-a': 5, 'x-b': 'line\nbreak', 'bad name': 'v' } }), ['routes[1].headers["x-a"]: must be a string or a non-empty list of strings (got 5)', 'routes[1].headers["x-b"]: must not contain CR, LF or NUL', 'routes[1].headers["bad name"]: is not a valid header name']],
    ['setCookie shape', withRoute({ path: '/x', setCookie: ['a=1', 'no equals sign'] }), ['routes[1].setCookie[1]: must look like "name=value" or "name=value; Path=/; HttpOnly" (got "no equals sign")']],
    ['setCookie type', withRoute({ path: '/x', setCookie: 3 }), ['routes[1].setCookie: must be a string or a non-empty list of strings (got 3)']],
    ['delayMs', withRoute({ path: '/x', delayMs: -1 }), ['routes[1].delayMs: must be an integer 0–600000 (got -1)']],
    ['fail', withRoute({ path: '/x', fail: 'crash' }), ['routes[1].fail: must be "reset", "timeout" or "close" (got "crash")']],
    ['setState', withRoute({ path: '/x', setState: '' }), ['routes[1].setState: must be a non-empty string (got "")']],
    ['protocol', withRoute({ path: '/x', protocol: 'ftp' }), ['routes[1].protocol: must be "http" or "https" (got "ftp")']],
    ['https route without https', withRoute({ path: '/x', protocol: 'https' }), ['routes[1].protocol: "https", but the fixture does not serve https (add "https": true)']],
    ['whenState type', withRoute({ path: '/x', whenState: [] }), ['routes[1].whenState: must be a string or a non-empty list of strings (got a list)']],
    ['auth "device" without credentials', withRoute({ path: '/x', auth: 'device' }), ['routes[1].auth: "device" means the device credentials, but device.username is not set']],
    ['auth shape', withRoute({ path: '/x', auth: { user: 'a', password: 'b' } }), ['routes[1].auth.user: unknown field (did you mean "username"?)', 'routes[1].auth: must be "device" or { "username": …, "password": … } (got an object)']],
    ['cookie value', withRoute({ path: '/x', cookie: { SID: 5 } }), ['routes[1].cookie.SID: must be a string, or true for any value (got 5)']],
    ['cookie name', withRoute({ path: '/x', cookie: { 'a b': 'c' } }), ['routes[1].cookie["a b"]: is not a valid cookie name']],
    ['requireHeaders name', withRoute({ path: '/x', requireHeaders: { 'x:y': 'v' } }), ['routes[1].requireHeaders["x:y"]: is not a valid header name']],
    ['a credentials placeholder without credentials', withRoute({ path: '/x', requireBody: { pass: '${password}' } }, { device: { username: 'a' } }), ['routes[1].requireBody.pass: uses ${password} but device.password is not set']],
    ['query that contradicts the path', withRoute({ path: '/x?page=1', query: { page: '2' } }), ['routes[1].query.page: contradicts the path\'s own query (page=1)']],
    ['responses beside response fields', withRoute({ path: '/x', status: 503, responses: [{ status: 200 }] }), ['routes[1]: has both "responses" and "status": put those in each entry of "responses"']],
    ['responses empty', withRoute({ path: '/x', responses: [] }), ['routes[1].responses: must be a non-empty list of responses (got a list)']],
    ['a bad entry of responses', withRoute({ path: '/x', responses: [{ status: 503 }, { status: 99, path: '/y' }] }), ['routes[1].responses[1].path: unknown field', 'routes[1].responses[1].status: must be an integer 200–599 (got 99)']],
    ['device fields', { fixture: 1, device: { username: 7, host: 'bad host!', pass: 'x' }, routes: [{ path: '/' }] }, ['device.pass: unknown field (did you mean "password"?)', 'device.username: must be a string (got 7)', 'device.host: must be a host name such as "nas-01.lan" (got "bad host!")']],
    ['parameters', { fixture: 1, parameters: [1], routes: [{ path: '/' }] }, ['parameters: must be an object (got a list)']],
    ['http ports', { fixture: 1, http: { ports: [80, 80] }, routes: [{ path: '/' }] }, ['http.ports: lists port 80 twice']],
    ['http port range', { fixture: 1, http: { ports: [0] }, routes: [{ path: '/' }] }, ['http.ports[0]: must be an integer 1–65535 (got 0)']],
    ['https type', { fixture: 1, https: 'yes', routes: [{ path: '/' }] }, ['https: must be true, false or an object such as { "hosts": ["nas-01.lan"] } (got "yes")']],
    ['https fields', { fixture: 1, https: { ports: [80], hosts: ['ok.lan', 'not ok'], expiresInDays: 5000, cert: 'x' }, routes: [{ path: '/' }] }, ['https.cert: unknown field', 'https.hosts[1]: must be a host name (got "not ok")', 'https.expiresInDays: must be an integer -3650–3650 (got 5000)', 'https.ports: port 80 is also an http port (http.ports): a device port speaks one protocol']],
  ];

  it.each(cases)('%s', (_name, spec, expected) => {
    expect(problemsOf(spec)).toEqual(expected);
  });

  it('a whenState that no route sets is reported as the typo it usually is', () => {
    expect(problemsOf({ fixture: 1, routes: [{ path: '/login', setState: 'logged-in' }, { path: '/x', whenState: 'logged_in' }] })).toEqual([
      'routes[1].whenState: no route sets the state "logged_in" and the fixture starts in "start" (states set: "start", "logged-in")',
    ]);
  });

  it('a fixture object made in code: json that cannot be written, bodyFile relative to baseDir, and the error has no file', () => {
    expect(problemsOf(withRoute({ path: '/x', json: () => 1 }))).toEqual(['routes[1].json: cannot be written as JSON (got function)']);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(problemsOf(withRoute({ path: '/x', json: cyclic }))[0]).toMatch(/^routes\[1\]\.json: cannot be written as JSON: Converting circular structure/);
    writeFileSync(path.join(work, 'page.txt'), 'from baseDir');
    expect(parseFixture(withRoute({ path: '/x', bodyFile: 'page.txt' }), { baseDir: work }).routes[1]!.responses[0]!.body.toString()).toBe('from baseDir');
    expect(() => parseFixture({ fixture: 1, routes: [{ path: 'x' }] })).toThrow(/^fixture: routes\[0\]\.path: must be a path/);
  });

  it('fills ${username} / ${password} from the device and resolves auth "device"; a query in the path becomes constraints', () => {
    const fixture = parseFixture({
      fixture: 1,
      device: { username: 'ad min', password: 'p@ss' },
      routes: [{ path: '/cgi?user=${username}&x=1', query: { token: true }, auth: 'device', requireBody: { pw: '${password}!' }, requireHeaders: { 'X-Key': 'k' } }],
    });
    expect(fixture.routes[0]).toMatchObject({
      path: '/cgi',
      query: { user: 'ad min', x: '1', token: true },
      auth: { username: 'ad min', password: 'p@ss' },
      requireBody: { pw: 'p@ss!' },
      requireHeaders: { 'x-key': 'k' },
    });
  });
});
