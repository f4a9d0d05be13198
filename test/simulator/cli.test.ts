// `driverbox simulate`: usage errors and bad fixtures through main() (exit 2), and the
// real bin/driverbox.js serving a fixture until SIGINT / SIGTERM, with the printed
// `driverbox run` line run as printed.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const exec = promisify(execFile);

/** A printed `npx driverbox …` line as a shell runs it here (npx would find this checkout's bin the same way). */
const pasted = (line: string) => line.replace(/^npx driverbox/, `'${process.execPath}' '${bin}'`);
const bin = path.resolve('bin/driverbox.js');
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-sim-cli-'));

function write(name: string, data: unknown): string {
  const file = path.join(work, name);
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data, null, 2));
  return file;
}

// The data folder, where simulate remembers its ports: this test's own.
const dataDir = path.join(work, 'data');
const runMain = (argv: string[]) => runCli(argv, { cwd: work, env: { NO_COLOR: '1', DRIVERBOX_DATA_DIR: dataDir } });

const loginFixture = {
  fixture: 1,
  description: 'Controller with a form login',
  device: { username: 'admin', password: "it's secret" },
  parameters: { site: 'lab-3' },
  https: true,
  routes: [
    { name: 'login', method: 'POST', path: '/login', requireBody: { user: '${username}', pass: '${password}' }, setCookie: 'SID=42; Path=/', setState: 'in' },
    { name: 'status', path: '/status', protocol: 'https', whenState: 'in', cookie: { SID: '42' }, json: { temp: 40 } },
  ],
};

const loginDriver = `function get_status() {
  D.device.http.post({ url: '/login', form: { user: D.device.username(), pass: D.device.password() }, jar: true }, function (error, response) {
    if (error || response.statusCode !== 200) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    D.device.http.get({ url: '/status', protocol: 'https', rejectUnauthorized: false, jar: true, json: true }, function (error, response, body) {
      if (error || response.statusCode !== 200) return D.failure(D.errorType.GENERIC_ERROR);
      D.success([D.createVariable('temp', 'Temp', body.temp), D.createVariable('site', 'Site', D.getParameter('site'))]);
    });
  });
}`;

describe('driverbox simulate: usage and bad fixtures (exit 2)', () => {
  it('is listed in the help and has its own', async () => {
    expect((await runMain(['--help'])).stdout).toContain('simulate <fixture>    serve a simulated device from a fixture file until Ctrl-C');
    const help = await runMain(['simulate', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: driverbox simulate <fixture.json> [options]');
    expect(help.stdout).toContain('--https-port <n>');
  });

  it.each([
    [[], 'driverbox simulate: simulate needs a fixture file: driverbox simulate <fixture.json>'],
    [['a.json', 'b.json'], 'driverbox simulate: simulate takes one fixture file, got 2: a.json b.json'],
    [['f.json', '--port', 'http'], 'driverbox simulate: --port must be a port number 1–65535, or 0 for a free one (got "http")'],
    [['f.json', '--https-port', '70000'], 'driverbox simulate: --https-port must be a port number 1–65535, or 0 for a free one (got "70000")'],
    [['f.json', '--verbose'], 'driverbox simulate: unknown option --verbose\n'],
    [['f.json', '--htps-port', '8443'], 'driverbox simulate: unknown option --htps-port (did you mean --https-port?)\n'],
    [['f.json', '--host', 'nas.lan'], 'driverbox simulate: --host must be an IPv4 address to listen on, such as 127.0.0.1 (got "nas.lan")'],
  ])('%j → exit 2', async (args, message) => {
    const { code, stderr } = await runMain(['simulate', ...args]);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain('Run `npx driverbox simulate --help` for usage.');
  });

  it('a bad fixture: exit 2 with every problem and its field path', async () => {
    const file = write('bad.json', { fixture: 1, routes: [{ path: '/a', status: 99 }, { path: 'b', fail: 'boom' }] });
    const { code, stderr } = await runMain(['simulate', 'bad.json']);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `driverbox simulate: fixture ${file} has 3 problems:\n  routes[0].status: must be an integer 200–599 (got 99)\n  routes[1].path: must be a path starting with "/", without spaces or "#" (got "b")\n  routes[1].fail: must be "reset", "timeout" or "close" (got "boom")`,
    );
  });

  it('a missing fixture, another version, and --https-port for a fixture without https: exit 2', async () => {
    const missing = await runMain(['simulate', 'missing.json']);
    expect([missing.code, missing.stderr]).toEqual([2, `driverbox simulate: fixture ${path.join(work, 'missing.json')}: cannot be read: no such file`]);
    write('v9.json', { fixture: 9, routes: [] });
    const version = await runMain(['simulate', 'v9.json']);
    expect([version.code, version.stderr]).toEqual([2, `driverbox simulate: fixture ${path.join(work, 'v9.json')}: fixture: version 9 is not supported: this driverbox reads fixture version 1`]);
    write('plain.json', { fixture: 1, routes: [{ path: '/' }] });
    const https = await runMain(['simulate', 'plain.json', '--https-port', '8443']);
    expect(https.code).toBe(2);
    expect(https.stderr).toContain('--https-port: the fixture does not serve https (it has no "https" field)');
  });

  it('a port already in use: exit 1 naming the port', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      write('plain.json', { fixture: 1, routes: [{ path: '/' }] });
      const { code, stderr } = await runMain(['simulate', 'plain.json', '--port', String(port)]);
      expect(code).toBe(1);
      expect(stderr).toBe(`driverbox simulate: cannot serve http on 127.0.0.1:${port}: the port is in use`);
    } finally {
      taken.close();
    }
  });
});

describe('driverbox simulate: the real CLI', () => {
  let child: ChildProcess | null = null;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    child = null;
  });

  /** Starts bin/driverbox.js simulate …; resolves once it printed the start of its request log. */
  function startCli(args: string[]) {
    const proc = spawn(process.execPath, [bin, 'simulate', ...args], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1', DRIVERBOX_DATA_DIR: dataDir } });
    child = proc;
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // 'close': the launcher can exit before its child's last lines are through the shared pipes.
    const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
    const ready = new Promise<void>((resolve, reject) => {
      proc.stdout.on('data', () => /Requests \(.*Ctrl-C to stop\):/.test(stdout) && resolve());
      void exited.then((code) => reject(new Error(`simulate exited ${code} before it was ready: ${stderr}`)));
    });
    return { proc, ready, exited, output: () => stdout, errors: () => stderr };
  }

  it('serves the fixture, prints a run line that works as printed, logs each request, stops on SIGINT with exit 0', async () => {
    write('driver.js', loginDriver);
    write('device.json', loginFixture);
    const sim = startCli(['device.json']);
    await sim.ready;
    const out = sim.output();
    expect(out).toContain('Simulating device.json — Controller with a form login');
    expect(out).toMatch(/http {3}http:\/\/127\.0\.0\.1:\d+ {3}device port 80\n/);
    expect(out).toMatch(/https {2}https:\/\/127\.0\.0\.1:\d+ {2}device port 443; self-signed certificate for localhost, 127\.0\.0\.1\n/);
    expect(out).toContain('2 routes, state "start"');
    const line = /^ {2}(npx driverbox run .*)$/m.exec(out)![1]!;
    expect(line).toMatch(/^npx driverbox run driver\.js --device-ip 127\.0\.0\.1 --port-map 80=\d+,443=\d+ --username admin --password 'it'\\''s secret' --params \S+params\.json --ca \S+simulator-ca\.pem$/);
    const paramsFile = /--params (\S+)/.exec(line)![1]!;
    expect(existsSync(paramsFile)).toBe(true);
    expect(readFileSync(/--ca (\S+)$/.exec(line)![1]!, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);

    // The line, as a user would paste it into a shell (with --json to read the result).
    const { stdout } = await exec('/bin/sh', ['-c', `${pasted(line)} --json`], { cwd: work, env: { PATH: process.env.PATH } });
    const result = JSON.parse(stdout);
    expect(result.status).toBe('success');
    expect(result.variables.map((v: { value: string }) => v.value)).toEqual(['40', 'lab-3']);

    await expect.poll(() => sim.output()).toContain('#2 https GET /status → 200');
    expect(sim.output()).toContain('#1 http  POST /login → 200  routes[0] login · state "in"\n');
    expect(sim.output()).toContain('#2 https GET /status → 200  routes[1] status\n');
    sim.proc.kill('SIGINT');
    expect(await sim.exited).toBe(0);
    expect(sim.output()).toMatch(/Stopped \(SIGINT\) after 2 requests\.\n$/);
    expect(existsSync(paramsFile)).toBe(false);
  });

  it('--host: listens on that address only; the run line dials it and the certificate names it', async () => {
    write('driver.js', loginDriver);
    write('device.json', loginFixture);
    // 127.0.0.2 is loopback on Linux too, but another address than the default's.
    const sim = startCli(['device.json', '--host', '127.0.0.2', '--port', '0']);
    await sim.ready;
    const out = sim.output();
    expect(out).toMatch(/http {3}http:\/\/127\.0\.0\.2:\d+ {3}device port 80\n/);
    expect(out).toMatch(/self-signed certificate for localhost, 127\.0\.0\.1, 127\.0\.0\.2\n/);
    const line = /^ {2}(npx driverbox run .*)$/m.exec(out)![1]!;
    expect(line).toMatch(/^npx driverbox run driver\.js --device-ip 127\.0\.0\.2 --port-map 80=\d+,443=\d+ /);
    const httpPort = Number(/80=(\d+)/.exec(line)![1]);
    const { stdout } = await exec('/bin/sh', ['-c', `${pasted(line)} --json`], { cwd: work, env: { PATH: process.env.PATH } });
    expect(JSON.parse(stdout).status).toBe('success');
    // Nothing listens on the default address at that port.
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect(httpPort, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
    sim.proc.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
  });

  it('listens on --port / --https-port, logs refusals, failures and misses with their reason, and stops on SIGTERM', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 2; i++) {
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      ports.push((probe.address() as net.AddressInfo).port);
      await new Promise<void>((resolve) => probe.close(() => resolve()));
    }
    write('ops.json', {
      fixture: 1,
      device: { username: 'u', password: 'p', host: 'ups-1.lab' },
      https: true,
      routes: [
        { path: '/private', auth: 'device', body: 'ok' },
        { path: '/crash', fail: 'reset' },
      ],
    });
    const sim = startCli(['ops.json', '--port', String(ports[0]), '--https-port', String(ports[1])]);
    await sim.ready;
    expect(sim.output()).toMatch(
      new RegExp(`--device-ip 127\\.0\\.0\\.1 --device-host ups-1\\.lab --port-map 80=${ports[0]},443=${ports[1]} --username u --password p --resolve ups-1\\.lab=127\\.0\\.0\\.1,80=${ports[0]},443=${ports[1]} --ca \\S+/simulator-ca\\.pem\n`),
    );
    expect(sim.output()).toContain('self-signed certificate for localhost, 127.0.0.1, ups-1.lab');
    const base = `http://127.0.0.1:${ports[0]}`;
    expect((await fetch(`${base}/private`)).status).toBe(401);
    await expect(fetch(`${base}/crash`)).rejects.toThrow();
    expect((await fetch(`${base}/nothing?q=1`)).status).toBe(404);
    await expect.poll(() => sim.output()).toContain('#3 http  GET /nothing?q=1 → 404');
    expect(sim.output()).toContain('#1 http  GET /private → 401  routes[0] GET /private: no basic credentials were sent (Authorization header)\n');
    expect(sim.output()).toContain('#2 http  GET /crash → reset  routes[1] GET /crash\n');
    expect(sim.output()).toContain("#3 http  GET /nothing?q=1 → 404  no route: no route has the path /nothing; the fixture's paths: /private, /crash\n");
    sim.proc.kill('SIGTERM');
    expect(await sim.exited).toBe(0);
    expect(sim.output()).toContain('Stopped (SIGTERM) after 3 requests.');
  });

  /** The run line a simulator printed last (a reload prints a new one when it changed). */
  const runLineOf = (out: string) => [...out.matchAll(/^ {2}(npx driverbox run .*)$/gm)].at(-1)![1]!;
  const httpPortOf = (line: string) => Number(/--port-map 80=(\d+)/.exec(line)![1]);
  async function freePort(): Promise<number> {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
  }
  async function stop(sim: ReturnType<typeof startCli>) {
    sim.proc.kill('SIGINT');
    expect(await sim.exited).toBe(0);
  }

  it('keeps its ports across restarts, so the printed run line stays valid; --port 0 takes fresh ones; a port now taken is given up, saying so', async () => {
    write('driver.js', loginDriver);
    write('keep.json', { ...loginFixture, description: 'kept ports' });
    const first = startCli(['keep.json', '--port', String(await freePort())]);
    await first.ready;
    const line = runLineOf(first.output());
    await stop(first);

    // Restarted with no port flag: the same ports, the same files, so the line printed before works as pasted.
    const second = startCli(['keep.json']);
    await second.ready;
    expect(runLineOf(second.output())).toBe(line);
    const { stdout } = await exec('/bin/sh', ['-c', `${pasted(line)} --json`], { cwd: work, env: { PATH: process.env.PATH } });
    expect(JSON.parse(stdout)).toMatchObject({ status: 'success', variables: [{ value: '40' }, { value: 'lab-3' }] });
    await stop(second);

    // Another process holds the HTTP port now: a free one instead, and the output says the line changed.
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(httpPortOf(line), '127.0.0.1', resolve));
    try {
      const third = startCli(['keep.json']);
      await third.ready;
      const moved = runLineOf(third.output());
      expect(httpPortOf(moved)).not.toBe(httpPortOf(line));
      expect(third.output()).toContain(`(the port of the last run, http ${httpPortOf(line)}, is in use: served on a free one instead, so the run line changed)`);
      expect(moved.replace(/80=\d+/, '').replace(/--params \S+ --ca \S+/, '')).toBe(line.replace(/80=\d+/, '').replace(/--params \S+ --ca \S+/, ''));
      const run = await exec('/bin/sh', ['-c', `${pasted(moved)} --json`], { cwd: work, env: { PATH: process.env.PATH } });
      expect(JSON.parse(run.stdout).status).toBe('success');
      await stop(third);
    } finally {
      holder.close();
    }

    // The port it moved to is remembered; --port 0 forgets every remembered port.
    const fourth = startCli(['keep.json', '--port', '0']);
    await fourth.ready;
    const fresh = runLineOf(fourth.output());
    expect(/443=(\d+)/.exec(fresh)![1]).not.toBe(/443=(\d+)/.exec(line)![1]);
    await stop(fourth);
    const fifth = startCli(['keep.json']);
    await fifth.ready;
    expect(runLineOf(fifth.output())).toBe(fresh);
    await stop(fifth);
  }, 180_000); // five CLI starts

  it('--watch reloads the fixture when the file changes; a bad edit is reported and the previous fixture keeps serving', async () => {
    const fixture = (temp: number, extra: object = {}) => ({ fixture: 1, device: { username: 'u', password: 'p' }, routes: [{ path: '/temp', json: { temp } }], ...extra });
    write('watched.json', fixture(40));
    const sim = startCli(['watched.json', '--watch']);
    await sim.ready;
    expect(sim.output()).toContain('Requests (reloaded when watched.json changes; Ctrl-C to stop):');
    const base = `http://127.0.0.1:${httpPortOf(runLineOf(sim.output()))}`;
    const temp = async () => ((await (await fetch(`${base}/temp`)).json()) as { temp: number }).temp;
    expect(await temp()).toBe(40);

    write('watched.json', fixture(41));
    await expect.poll(temp, { timeout: 10_000, interval: 100 }).toBe(41);
    await expect.poll(() => sim.output()).toContain('Reloaded watched.json\n');

    // A syntax error, then a fixture with a bad field: each reported, the last good fixture still answers.
    write('watched.json', '{ "fixture": 1, "routes": [ { "path": "/temp", } ] }');
    await expect.poll(() => sim.errors(), { timeout: 10_000 }).toContain('watched.json not reloaded, the previous fixture keeps serving: ');
    expect(sim.errors()).toContain('is not valid JSON');
    write('watched.json', fixture(42, { routes: [{ path: 'temp', json: {} }] }));
    await expect.poll(() => sim.errors(), { timeout: 10_000 }).toContain('routes[0].path: must be a path starting with "/"');
    expect(await temp()).toBe(41);

    // Credentials changed: the reload prints the new run line, on the same port.
    write('watched.json', fixture(43, { device: { username: 'u', password: 'changed' } }));
    await expect.poll(temp, { timeout: 10_000, interval: 100 }).toBe(43);
    await expect.poll(() => sim.output()).toContain('The run line changed:');
    expect(runLineOf(sim.output())).toContain('--password changed');
    expect(`http://127.0.0.1:${httpPortOf(runLineOf(sim.output()))}`).toBe(base);
    // Requests are numbered across reloads.
    const numbers = [...sim.output().matchAll(/^#(\d+) http /gm)].map((m) => Number(m[1]));
    expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    expect(numbers.length).toBeGreaterThan(3);
    await stop(sim);
  }, 120_000);
});
