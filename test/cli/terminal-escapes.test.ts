// Issue 34, cause 9: device- and driver-controlled text reaches the operator's terminal inert.
// The real bin/driverbox.js, with a device and a driver that put hostile text — OSC 52 (the
// clipboard), OSC 0 (the window title), CSI 2J (clear screen), SGR 8 (hidden text), a carriage
// return overwrite, C1 controls (8-bit CSI/OSC/ST), bidi override and isolate, NUL and DEL — in
// every channel: variables, table label/columns/cells, logs, warnings, a failure message, a
// backup, HTTP headers and bodies (--verbose), a replayed recording, a fixture's description and
// its routes (simulate), inventory device names and failure messages in run lines (agent), and
// entry-point labels (actions, drivers add/list). In text mode no raw control
// reaches stdout or stderr, and the text is shown escaped (`\u001b`); --json carries it exact.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait-for.js';

const bin = path.resolve('bin/driverbox.js');

/** Every kind of hostile text at once. */
const H = [
  'A\u001b]52;c;SGVsbG8=\u0007', // OSC 52: write the clipboard
  'B\u001b]0;pwned-title\u0007', // OSC 0: the window title
  'C\u001b[2J', // clear the screen
  'D\u001b[8mhidden\u001b[0m', // hidden text
  'E\rFAKE', // carriage-return overwrite
  'F\u009b31m', // C1 CSI
  'G\u009d0;t\u009c', // C1 OSC … ST
  'H\u202eI\u2066J', // bidi override, isolate
  'K\u001bPdcs\u001b\\', // DCS
  'L\u0000M\u007fN', // NUL, DEL
].join('');

/** Short hostile text, for fields with a short limit (a column label: 30 characters). */
const S = 'S\u001b]0;t\u0007\r\u009b2J\u202e';

/** What must never reach the terminal raw (tab and line feed are layout). */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

function expectInert(text: string, where: string): void {
  const m = UNSAFE.exec(text);
  const at = m ? `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}` : '';
  expect(m, `${where} holds a raw control character, ${at}`).toBeNull();
}

/** The hostile text as the terminal shows it: each control as its code. */
const ESCAPED_OSC52 = '\\u001b]52;c;SGVsbG8=\\u0007';

let work: string;
let devicePort = 0;
let device: net.Server;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real bin; output decoded whole (a C1 character is two UTF-8 bytes that a chunk may split). */
function cli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args], { cwd: work, encoding: 'buffer', env: { PATH: process.env.PATH, NO_COLOR: '1', DRIVERBOX_DATA_DIR: path.join(work, 'data'), ...env } }, (error, stdout, stderr) => {
      const code = error ? ((error as { code?: number }).code ?? null) : 0;
      if (error && typeof (error as { code?: unknown }).code !== 'number') return reject(error);
      resolve({ code, stdout: stdout.toString('utf8'), stderr: stderr.toString('utf8') });
    });
  });
}

/** A long-running command: started, ready when `ready` matches its stdout, stopped with SIGTERM. */
async function startLong(args: string[], ready: RegExp, env: Record<string, string> = {}) {
  const proc = spawn(process.execPath, [bin, ...args], { cwd: work, env: { PATH: process.env.PATH, NO_COLOR: '1', DRIVERBOX_DATA_DIR: path.join(work, 'data'), ...env } });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  proc.stdout.on('data', (d: Buffer) => out.push(d));
  proc.stderr.on('data', (d: Buffer) => err.push(d));
  const stdout = () => Buffer.concat(out).toString('utf8');
  const stderr = () => Buffer.concat(err).toString('utf8');
  const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
  let match: RegExpExecArray | null = null;
  await waitFor(`${args[0]} to be ready`, () => (match = ready.exec(stdout())) !== null || proc.exitCode !== null, 60_000);
  if (!match) throw new Error(`${args[0]} exited ${proc.exitCode}: ${stderr()}`);
  return {
    match: match as RegExpExecArray,
    stdout,
    stderr,
    async stop(): Promise<Outcome> {
      proc.kill('SIGTERM');
      const code = await exited;
      return { code, stdout: stdout(), stderr: stderr() };
    },
  };
}

/** One raw HTTP/1.1 request. (Node's HTTP parser refuses control bytes in a request target: request lines cannot carry them.) */
function rawRequest(port: number, target: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(Buffer.concat([Buffer.from('GET '), target, Buffer.from(' HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')]));
    });
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
  });
}

const DRIVER = `var H = ${JSON.stringify(H)}, S = ${JSON.stringify(S)};
function validate() { D.success(); }
function get_status() {
  console.log('log ' + H);
  console.warn('two\\nlines ' + H);
  D.device.http.get({ url: '/evil' }, function (err, res, body) {
    var table = D.createTable('table ' + S, [{ label: 'col ' + S }]);
    table.insertRecord('row1', ['cell ' + H]);
    D.getParameter('param' + H);
    D.success([D.createVariable('v1', 'label ' + S, 'value ' + H + ' body ' + body)], table);
  });
}
function backup() { D.success(D.createBackup({ label: 'bk ' + H, running: 'hostname ' + H + '\\nend' })); }
function custom_1() { throw new Error('thrown ' + H); }
`;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'driverbox-terminal-'));
  // A device that answers hostile text in its body and a C1 byte in a header, whatever is asked.
  device = net.createServer((socket) => {
    let seen = '';
    socket.on('data', (d: Buffer) => {
      seen += d.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      const body = Buffer.from(`device ${H}`, 'utf8');
      socket.end(
        Buffer.concat([
          Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Evil: a'),
          Buffer.from([0x9b, 0x32, 0x4a]),
          Buffer.from(`\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`),
          body,
        ]),
      );
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.1', resolve));
  devicePort = (device.address() as net.AddressInfo).port;
  writeFileSync(path.join(work, 'driver.js'), DRIVER);
});
afterAll(async () => {
  await new Promise((resolve) => device.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

const onDevice = () => ['--device-ip', '127.0.0.1', '--port-map', `80=${devicePort}`];

describe('driverbox run: every channel of the result in text mode is inert; --json exact', () => {
  it('get_status --verbose: variables, table, logs, warnings, HTTP headers and bodies', async () => {
    const r = await cli(['run', 'driver.js', ...onDevice(), '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain(ESCAPED_OSC52);
    expect(r.stdout).toContain('E\\u000dFAKE');
    expect(r.stdout).toContain('H\\u202eI\\u2066J');
    for (const where of ['label S\\u001b]0;t', 'cell A\\u001b', 'Table "table S\\u001b', 'col S\\u001b', 'log A\\u001b', 'lines A\\u001b', 'paramA\\u001b', 'device A\\u001b', 'a\\u009b2J']) {
      expect(r.stdout, where).toContain(where);
    }
  }, 60_000);

  it('get_status --json carries every value exact (and no raw control)', async () => {
    const r = await cli(['run', 'driver.js', ...onDevice(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expectInert(r.stdout, 'the JSON document');
    const doc = JSON.parse(r.stdout) as {
      variables: Array<{ label: string; value: string }>;
      tables: Array<{ label: string; columnHeaders: Array<{ label: string }>; rows: string[][] }>;
      logs: Array<{ message: string }>;
    };
    expect(doc.variables[0]!.label).toBe(`label ${S}`);
    expect(doc.variables[0]!.value).toBe(`value ${H} body device ${H}`);
    expect(doc.tables[0]!.label).toBe(`table ${S}`);
    expect(doc.tables[0]!.columnHeaders[0]!.label).toBe(`col ${S}`);
    expect(doc.tables[0]!.rows[0]).toContain(`cell ${H}`);
    expect(doc.logs.map((l) => l.message)).toEqual(expect.arrayContaining([`log ${H}`, `two\nlines ${H}`]));
  }, 60_000);

  it('backup: its label and running configuration; --json exact', async () => {
    const r = await cli(['run', 'driver.js', ...onDevice(), '--action', 'backup']);
    expect(r.code, r.stderr).toBe(0);
    expectInert(r.stdout, 'stdout');
    expect(r.stdout).toContain(`Backup "bk A${ESCAPED_OSC52}`);
    expect(r.stdout).toContain(`hostname A${ESCAPED_OSC52}`);
    const json = await cli(['run', 'driver.js', ...onDevice(), '--action', 'backup', '--json']);
    expect((JSON.parse(json.stdout) as { backup: { running: string; label: string } }).backup).toMatchObject({ label: `bk ${H}`, running: `hostname ${H}\nend` });
  }, 60_000);

  it('a failure message thrown by the driver', async () => {
    const r = await cli(['run', 'driver.js', ...onDevice(), '--action', 'custom_1']);
    expect(r.code).toBe(1);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain(`thrown A${ESCAPED_OSC52}`);
    const json = await cli(['run', 'driver.js', ...onDevice(), '--action', 'custom_1', '--json']);
    expect((JSON.parse(json.stdout) as { message: string }).message).toContain(`thrown ${H}`);
  }, 60_000);

  it('a recording replayed (--replay --verbose): the recorded answer shown inert', async () => {
    const recorded = await cli(['run', 'driver.js', ...onDevice(), '--record', 'rec.json']);
    expect(recorded.code, recorded.stderr).toBe(0);
    const r = await cli(['run', 'driver.js', '--replay', 'rec.json', '--verbose']);
    expect(r.code, r.stderr).toBe(0);
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain(`device A${ESCAPED_OSC52}`);
  }, 60_000);
});

describe('driverbox actions and drivers: labels from the driver file', () => {
  const LABELLED = `/**\n * @label Reboot ${H.replace('\r', '')}\n * @documentation Doc ${H.replace('\r', '')}\n */\nfunction custom_1() { D.success(); }\nfunction validate() { D.success(); }\nfunction get_status() { D.success(); }\n`;
  beforeAll(() => writeFileSync(path.join(work, 'labelled.js'), LABELLED));

  it('actions: text inert, --json exact', async () => {
    const r = await cli(['actions', 'labelled.js']);
    expect(r.code, r.stderr).toBe(0);
    expectInert(r.stdout, 'stdout');
    expect(r.stdout).toContain(`Reboot A${ESCAPED_OSC52}`);
    const json = JSON.parse((await cli(['actions', 'labelled.js', '--json'])).stdout) as Array<{ name: string; label: string | null }>;
    expect(json.find((e) => e.name === 'custom_1')!.label).toBe(`Reboot ${H.replace('\r', '')}`);
  }, 60_000);

  it('drivers add and list: inert', async () => {
    const store = path.join(work, 'drivers.db');
    const added = await cli(['drivers', 'add', 'labelled.js', '--store', store, '--name', 'labelled']);
    expect(added.code, added.stderr).toBe(0);
    expectInert(added.stdout, 'drivers add stdout');
    expect(added.stdout).toContain(`Reboot A${ESCAPED_OSC52}`);
    const listed = await cli(['drivers', 'list', '--store', store]);
    expectInert(listed.stdout, 'drivers list stdout');
  }, 60_000);
});

describe('long-running commands: simulate, agent', () => {
  it("simulate: the fixture's description and a driver's request line", async () => {
    // A fixture is untrusted input too (it may come with a driver's repository): its texts are shown inert.
    writeFileSync(path.join(work, 'fixture.json'), JSON.stringify({ fixture: 1, description: `desc ${H}`, routes: [{ name: `route ${H}`, path: '/x', json: { ok: 1 } }] }));
    const sim = await startLong(['simulate', 'fixture.json', '--port', '0'], /http:\/\/127\.0\.0\.1:(\d+)[\s\S]*Ctrl-C to stop/);
    const port = Number(sim.match[1]);
    await rawRequest(port, Buffer.from('/x'));
    await waitFor('the request line', () => /#1 /.test(sim.stdout()));
    const r = await sim.stop();
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain(`desc A${ESCAPED_OSC52}`);
    expect(r.stdout).toContain(`route A${ESCAPED_OSC52}`);
  }, 60_000);

  it('agent --verbose: inventory device names and failure messages in the run lines', async () => {
    writeFileSync(
      path.join(work, 'inventory.yaml'),
      [
        'version: 1',
        'devices:',
        // YAML double quotes: \e is ESC, \a BEL, \x9b a C1 CSI, \u202e a bidi override.
        `  - { name: "lab\\e]0;pwned-title\\a\\x9b2J\\u202e", ip: 127.0.0.1, portMap: { 80: ${devicePort} } }`,
        'drivers:',
        '  - { name: hostile, path: driver.js, samplePeriod: 300, actions: [get_status, custom_1] }',
        'associations:',
        '  - driver: hostile',
        '    device: "lab\\e]0;pwned-title\\a\\x9b2J\\u202e"',
        '',
      ].join('\n'),
    );
    const agent = await startLong(
      ['agent', '--inventory', 'inventory.yaml', '--port', '0', '--jitter', '0', '--verbose', '--api-key', 'terminal-key'],
      /API +(http:\/\/127\.0\.0\.1:(\d+))\/public-api\/v1/,
      { DRIVERBOX_SECRET_KEY: 'terminal-secret' },
    );
    await waitFor('the run lines', () => /custom_1: failure/.test(agent.stdout()), 30_000);
    const r = await agent.stop();
    expectInert(r.stdout, 'stdout');
    expectInert(r.stderr, 'stderr');
    expect(r.stdout).toContain('hostile@lab\\u001b]0;pwned-title\\u0007\\u009b2J\\u202e get_status: success');
    expect(r.stdout).toContain(`thrown A${ESCAPED_OSC52}`);
  }, 90_000);
});
