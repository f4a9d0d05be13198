// D.tftpServer.accept through createHost().run: the driver tells a test "device" (an HTTP server
// on loopback) where to upload, and the device uploads with Debian's tftp-hpa client (the real
// peer) or, for the protocol's refusals, with raw TFTP packets from node:dgram.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSource, useHost } from '../../helpers/host.js';

const exec = promisify(execFile);
const host = useHost();
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-tftp-'));
const config = Array.from({ length: 30 }, (_, i) => `interface Gi0/${i}\n description port ${i}\n!`).join('\n') + '\nend\n';
writeFileSync(path.join(work, 'running.cfg'), config);
writeFileSync(path.join(work, 'big.cfg'), 'x'.repeat(10_000));

/** What the device does when the driver tells it to upload to host:port. */
type Scenario = (to: { host: string; port: number; file: string }) => Promise<unknown>;
const scenarios = new Map<string, Scenario>();
const told: Array<{ host: string; port: number }> = [];

/** Uploads with tftp-hpa: `tftp host port -m mode -c put local remote`. */
async function tftpPut(to: { host: string; port: number }, local: string, remote: string, mode = 'octet') {
  const { stdout, stderr } = await exec('tftp', [to.host, String(to.port), '-m', mode, '-c', 'put', path.join(work, local), remote], { timeout: 15_000 }).catch(
    (e: { stdout: string; stderr: string }) => e,
  );
  return `${stdout}${stderr}`.trim();
}

function packet(op: number, ...parts: Array<string | number | Buffer>): Buffer {
  const head = Buffer.alloc(2);
  head.writeUInt16BE(op);
  return Buffer.concat([
    head,
    ...parts.map((p) => {
      if (typeof p === 'number') {
        const b = Buffer.alloc(2);
        b.writeUInt16BE(p);
        return b;
      }
      return typeof p === 'string' ? Buffer.from(`${p}\0`, 'latin1') : p;
    }),
  ]);
}

/** A raw TFTP peer on `address`: send a packet, read the answer. */
async function rawPeer(address = '127.0.0.1') {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, address, resolve));
  const inbox: Buffer[] = [];
  const waiters: Array<(b: Buffer) => void> = [];
  socket.on('message', (m) => (waiters.length ? waiters.shift()!(m) : inbox.push(m)));
  return {
    send: (to: { host: string; port: number }, p: Buffer) => new Promise<void>((resolve) => socket.send(p, to.port, to.host, () => resolve())),
    next: () =>
      new Promise<{ op: number; n: number; text: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no answer')), 3000);
        const take = (m: Buffer) => {
          clearTimeout(timer);
          resolve({ op: m.readUInt16BE(0), n: m.readUInt16BE(2), text: m.subarray(4).toString('latin1').replace(/\0$/, '') });
        };
        if (inbox.length) take(inbox.shift()!);
        else waiters.push(take);
      }),
    close: () => socket.close(),
  };
}

let device: http.Server;
let devicePort: number;
beforeAll(async () => {
  device = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://device');
    const to = { host: url.searchParams.get('host')!, port: Number(url.searchParams.get('port')), file: url.searchParams.get('file') ?? '' };
    told.push(to);
    const scenario = scenarios.get(url.pathname.slice(1));
    if (!scenario) return res.end('no scenario');
    scenario(to).then(
      (out) => res.end(String(out ?? '')),
      (e: Error) => res.end(`scenario failed: ${e.message}`),
    );
  });
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.1', resolve));
  devicePort = (device.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => device.close(() => resolve())));

/** A backup() that opens the receiver and tells the device (GET /<scenario>) where to upload. */
function driver(scenario: string, options: string, extra = '') {
  return `function validate() { D.success(); }
function get_status() { D.success(); }
function backup() {
  D.tftpServer.accept(${options}, function (error, host, port) {
    if (error) { console.error('ready: ' + JSON.stringify(error)); return D.failure(D.errorType.GENERIC_ERROR); }
    console.info('ready ' + (typeof host) + ' ' + (typeof port));
    D.device.http.get({ url: '/${scenario}?host=' + host + '&port=' + port + '&file=' + encodeURIComponent(${JSON.stringify(scenario)}) }, function (err, res, body) {
      console.info('device: ' + (err ? err.message : body));
    });
  }, function (error, content) {
    if (error) { console.error('upload: ' + JSON.stringify(error)); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
    ${extra}
    D.success(D.createBackup({ label: 'tftp', running: content }));
  });
}
`;
}
const run = (source: string, limits = {}) =>
  runSource(host, source, { action: 'backup', device: { ip: '127.0.0.1', portMap: { 80: devicePort } }, limits: { timeoutMs: 20_000, ...limits } });

describe('D.tftpServer.accept with tftp-hpa uploading', () => {
  it('receives an octet upload on the device-facing address; the backup is the file', async () => {
    let clientSaid: string | null = null;
    let clientMs = 0;
    scenarios.set('octet', async (to) => {
      const started = performance.now();
      clientSaid = await tftpPut(to, 'running.cfg', 'cfg-1.txt');
      clientMs = performance.now() - started;
    });
    const r = await run(driver('octet', `{ port: 0, filePath: 'cfg-1.txt', timeout: 10000 }`));
    // The run ends in onUpload, at once: the device still got its final ACK (no retry, no timeout).
    await expect.poll(() => clientSaid).toBe('');
    expect(clientMs).toBeLessThan(2000);
    expect(r).toMatchObject({ status: 'success', errorType: null });
    expect(r.backup!.running).toBe(config);
    expect(r.logs[0]).toEqual({ level: 'info', message: 'ready string number' });
    const to = told[told.length - 1]!;
    expect(to.host).toBe('127.0.0.1');
    expect(to.port).toBeGreaterThan(1023);
    const exchange = r.http.find((h) => h.method === 'TFTP')!;
    expect(exchange).toMatchObject({ url: `tftp://127.0.0.1:${to.port}/cfg-1.txt`, error: null, responseBytes: Buffer.byteLength(config) });
  });

  it('netascii: CR LF on the wire comes back as LF', async () => {
    scenarios.set('netascii', (to) => tftpPut(to, 'running.cfg', 'netascii', 'netascii'));
    const r = await run(driver('netascii', `{ filePath: 'netascii' }`));
    expect(r.status).toBe('success');
    expect(r.backup!.running).toBe(config);
  });

  it('an upload larger than the run may receive is refused (ERROR 3) and onUpload gets OUTPUT_TOO_LARGE', async () => {
    let clientSaid = '';
    scenarios.set('big', async (to) => (clientSaid = await tftpPut(to, 'big.cfg', 'big')));
    const r = await run(driver('big', `{ filePath: 'big' }`), { maxOutputBytes: 4096 });
    expect(r).toMatchObject({ status: 'failure', errorType: 'RESOURCE_UNAVAILABLE' });
    expect(r.logs.find((l) => l.message.startsWith('upload: '))!.message).toBe(
      'upload: {"code":"OUTPUT_TOO_LARGE","message":"the upload passed 4096 bytes, the most a run may receive"}',
    );
    await expect.poll(() => clientSaid).toMatch(/Error code 3: upload too large/);
  });

  it("times out when the device never uploads, within the driver's timeout", async () => {
    scenarios.set('silent', async () => 'ignored');
    const started = performance.now();
    const r = await run(driver('silent', `{ timeout: 600 }`));
    const took = performance.now() - started;
    expect(r.logs.find((l) => l.message.startsWith('upload: '))!.message).toBe('upload: {"code":"TFTP_TIMEOUT","message":"no complete upload within 600 ms"}');
    expect(r).toMatchObject({ status: 'failure', errorType: 'RESOURCE_UNAVAILABLE' });
    expect(took).toBeLessThan(5000);
  });

  it("the run's deadline bounds the wait: a timeout longer than the run ends with the run", async () => {
    scenarios.set('late', async () => 'ignored');
    const r = await run(driver('late', `{ timeout: 600000 }`), { timeoutMs: 1500 });
    expect(r.status).toBe('failure');
    expect(r.durationMs).toBeLessThan(3000);
  });

  it("closes the socket when the run ends, even with the upload not done", async () => {
    scenarios.set('end', async () => 'told');
    const r = await run(`function validate() { D.success(); }
function get_status() { D.success(); }
function backup() {
  D.tftpServer.accept({}, function (error, host, port) {
    D.device.http.get({ url: '/end?host=' + host + '&port=' + port }, function () { D.success(); });
  }, function () {});
}`);
    expect(r.status).toBe('success');
    const { port } = told[told.length - 1]!;
    // The port is free again: bind it.
    const probe = dgram.createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.bind(port, '127.0.0.1', () => resolve());
    });
    probe.close();
  });
});

describe('the receiver refuses what it must', () => {
  it('a second client, a read request, another address, and a wrong file name; the first upload goes on', async () => {
    const answers: Record<string, unknown> = {};
    scenarios.set('second', async (to) => {
      const a = await rawPeer();
      const b = await rawPeer();
      const c = await rawPeer('127.0.0.2');
      try {
        await a.send(to, packet(1, 'second', 'octet'));
        answers.rrq = await a.next();
        await a.send(to, packet(2, 'other-name', 'octet'));
        answers.wrongName = await a.next();
        await c.send(to, packet(2, 'second', 'octet'));
        answers.otherAddress = await c.next();
        await a.send(to, packet(2, 'second', 'octet'));
        answers.ack0 = await a.next();
        await b.send(to, packet(2, 'second', 'octet'));
        answers.secondClient = await b.next();
        await b.send(to, packet(3, 1, Buffer.from('stray')));
        answers.strayData = await b.next();
        await a.send(to, packet(3, 1, Buffer.from('hostname raw\n')));
        answers.ack1 = await a.next();
      } finally {
        a.close();
        b.close();
        c.close();
      }
    });
    const r = await run(driver('second', `{ filePath: 'second' }`));
    expect(answers).toEqual({
      rrq: { op: 5, n: 4, text: 'this receiver only accepts uploads (WRQ)' },
      wrongName: { op: 5, n: 2, text: 'only second may be uploaded here' },
      otherAddress: { op: 5, n: 2, text: 'only the device may upload here' },
      ack0: { op: 4, n: 0, text: '' },
      secondClient: { op: 5, n: 2, text: 'this receiver takes one upload and has one already' },
      strayData: { op: 5, n: 5, text: 'unknown transfer ID' },
      ack1: { op: 4, n: 1, text: '' },
    });
    expect(r.status).toBe('success');
    expect(r.backup!.running).toBe('hostname raw\n');
  });

  it('resends its ACK when the device goes quiet, and gives up after five tries', async () => {
    const acks: number[] = [];
    scenarios.set('quiet', async (to) => {
      const a = await rawPeer();
      try {
        await a.send(to, packet(2, 'quiet', 'octet'));
        for (;;) {
          const m = await a.next().catch(() => null);
          if (!m) break;
          acks.push(m.op === 4 ? m.n : -m.op);
        }
      } finally {
        a.close();
      }
    });
    const r = await run(driver('quiet', `{ timeout: 15000 }`));
    expect(r.logs.find((l) => l.message.startsWith('upload: '))!.message).toMatch(/TFTP_TIMEOUT.*the device stopped sending: no block 1 after 5 tries/);
    expect(acks).toEqual([0, 0, 0, 0, 0, -5]); // ACK 0, resent four times, then ERROR
  });
});

describe('options, callbacks and the run', () => {
  it('one receiver per run; bad options answer onReady with INVALID_OPTIONS', async () => {
    const r = await run(`function validate() { D.success(); }
function get_status() { D.success(); }
function backup() {
  D.tftpServer.accept({ filePath: 5 }, function (error) {
    console.log(JSON.stringify(error));
    D.tftpServer.accept({}, function () {
      D.tftpServer.accept({}, function (second) { console.log(JSON.stringify(second)); D.success(); }, function () {});
    }, function () {});
  }, function () {});
}`);
    expect(r.logs.map((l) => l.message)).toEqual([
      '{"code":"INVALID_OPTIONS","message":"D.tftpServer.accept: filePath must be a file name of 1 to 255 characters (got number)"}',
      '{"code":"TFTP_BUSY","message":"D.tftpServer.accept: a run has one TFTP receiver and this run opened it already"}',
    ]);
  });

  it('callbacks that are not functions throw into the driver; an exception in onUpload is the uncaught error', async () => {
    const bad = await run(`function validate() {} function get_status() {} function backup() { D.tftpServer.accept({}, null, null); }`);
    expect(bad).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR' });
    expect(bad.message).toMatch(/^TypeError: D\.tftpServer\.accept\(options, onReady, onUpload\): onReady and onUpload must be functions/);
    scenarios.set('throws', (to) => tftpPut(to, 'running.cfg', 'throws'));
    const thrown = await run(driver('throws', `{}`, `throw new Error('parse failed');`));
    expect(thrown).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR' });
    expect(thrown.message).toMatch(/^Error: parse failed\n\s+at .*driver\.js:12/);
  });
});

describe('driverbox run --action backup with a TFTP upload', () => {
  it('prints the uploaded configuration as the backup, and the TFTP exchange with --verbose', async () => {
    scenarios.set('cli', (to) => tftpPut(to, 'running.cfg', 'cli'));
    const file = path.join(work, 'tftp-driver.js');
    writeFileSync(file, driver('cli', `{ filePath: 'cli', timeout: 10000 }`));
    const bin = path.resolve('bin/driverbox.js');
    const args = [bin, 'run', file, '--action', 'backup', '--device-ip', '127.0.0.1', '--port-map', `80=${devicePort}`];
    const json = await exec(process.execPath, [...args, '--json'], { env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({ status: 'success', backup: { label: 'tftp', running: config, startup: null, runningBytes: Buffer.byteLength(config) } });
    const text = await exec(process.execPath, [...args, '--verbose'], { env: { PATH: process.env.PATH, NO_COLOR: '1' } });
    expect(text.stdout).toContain('Backup "tftp"\n  running: ');
    expect(text.stdout).toMatch(/TFTP tftp:\/\/127\.0\.0\.1:\d+\/cli/);
    expect(text.stdout).toContain('< interface Gi0/29');
  });
});
