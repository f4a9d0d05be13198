// Hostile TFTP senders (test/hostile-peers/tftp-peer.ts, on a worker thread) against
// D.tftpServer.accept's receiver. The driver's onReady tells the "device" (an HTTP endpoint
// here, which hands host:port to the sender) where to upload. Each scenario: the run's result
// by its deadline, the host loop's stall under STALL_BOUND_MS, a bystander device's runs all
// successful, and no uncaught exception in this process.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunLimits } from '../../host/contract/limits.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource, useHost } from '../helpers/host.js';
import { expectOthersUnharmed, startBystander, watchLoop } from './harness.js';
import { startTftpPeer, type TftpPeer, type TftpScenario } from './tftp-peer.js';

const RUN_MS = 8_000;
/** The driver's wait for the upload: inside the run's deadline, so its timeout is the receiver's own. */
const UPLOAD_TIMEOUT_MS = 4_000;

const host = useHost();
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);
let peer: TftpPeer | null = null;
/** Before the upload: packets forged from source port 0 to the receiver (see the test). */
let forgeFirst = false;
let trigger: http.Server;
let triggerPort: number;
beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  // The device's management interface: told where to upload, it starts the sender.
  trigger = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://device');
    const to = { host: url.searchParams.get('host')!, port: Number(url.searchParams.get('port')) };
    void (forgeFirst ? forgeFromPortZero(to) : Promise.resolve()).then(() => peer?.upload(to));
    res.end('uploading');
  });
  await new Promise<void>((resolve) => trigger.listen(0, '127.0.0.1', resolve));
  triggerPort = (trigger.address() as AddressInfo).port;
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  await new Promise<void>((resolve) => trigger.close(() => resolve()));
});

/** Forging a source port takes a raw socket: root, and python3 to open it (a child process, off this loop). */
const canForge = process.getuid?.() === 0 && (() => {
  try {
    execFileSync('python3', ['-c', '']);
    return true;
  } catch {
    return false;
  }
})();

/** A WRQ, a DATA and an ACK from 127.0.0.1 port 0: answering one makes dgram.send throw. */
async function forgeFromPortZero(to: { host: string; port: number }): Promise<void> {
  await promisify(execFile)('python3', ['-c', `
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
for p in (b'\\x00\\x02upload.cfg\\x00octet\\x00', b'\\x00\\x03\\x00\\x01forged', b'\\x00\\x04\\x00\\x00'):
    s.sendto(struct.pack('!HHHH', 0, ${to.port}, 8 + len(p), 0) + p, ('${to.host}', 0))
`]);
}

const DRIVER = `function get_status() { D.success(); }
function backup() {
  D.tftpServer.accept({ filePath: 'upload.cfg', timeout: ${UPLOAD_TIMEOUT_MS} }, function (error, host, port) {
    if (error) { console.error('ready: ' + JSON.stringify(error)); return D.failure(D.errorType.GENERIC_ERROR); }
    D.device.http.get({ url: '/upload?host=' + host + '&port=' + port }, function () {});
  }, function (error, content) {
    if (error) { console.error('upload: ' + JSON.stringify(error)); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
    D.success(D.createBackup({ label: 'tftp', running: content }));
  });
}`;

interface Outcome {
  result: RunResult;
  /** The upload's error as onUpload got it, or null. */
  error: { code: string; message: string } | null;
}

async function upload(scenario: TftpScenario, limits: Partial<RunLimits> = {}, options: { delayMs?: number } = {}): Promise<Outcome & { heard: ReturnType<TftpPeer['heard']> }> {
  peer = await startTftpPeer(scenario, options);
  try {
    const thrown = uncaught.length;
    const bystander = await startBystander(host);
    const watch = watchLoop();
    const result = await runSource(host, DRIVER, { action: 'backup', device: { id: `hostile-tftp-${scenario}`, ip: '127.0.0.1', portMap: { 80: triggerPort } }, limits: { timeoutMs: RUN_MS, ...limits } });
    await expectOthersUnharmed(watch, bystander, result, RUN_MS);
    expect(uncaught.slice(thrown).map(String)).toEqual([]);
    const line = result.logs.find((l) => l.message.startsWith('upload: '));
    return { result, error: line ? (JSON.parse(line.message.slice('upload: '.length)) as Outcome['error']) : null, heard: peer.heard() };
  } finally {
    await peer.stop();
    peer = null;
  }
}

describe('TFTP receiver against hostile senders', () => {
  it('endless full blocks end at the run\'s maxOutputBytes (ERROR 3 to the sender)', async () => {
    const { result, error, heard } = await upload('endless', { maxOutputBytes: 64 * 1024 });
    expect(result.status).toBe('failure');
    expect(error).toEqual({ code: 'OUTPUT_TOO_LARGE', message: 'the upload passed 65536 bytes, the most a run may receive' });
    expect(heard.acks.at(-1)).toBe(128); // 128 blocks of 512 fit; the 129th is refused
    expect(heard.errors).toEqual(['3 upload too large']);
  });

  it('a dripping sender (each block just before the receiver would ask again) ends at the driver\'s timeout', async () => {
    const { result, error } = await upload('dripping', {}, { delayMs: 700 });
    expect(result.status).toBe('failure');
    expect(error).toEqual({ code: 'TFTP_TIMEOUT', message: `no complete upload within ${UPLOAD_TIMEOUT_MS} ms` });
    expect(result.durationMs).toBeLessThan(RUN_MS);
  });

  it('a one-byte block is the whole (one-byte) file, as RFC 1350 says', async () => {
    const { result } = await upload('byte-block');
    expect(result.status).toBe('success');
    expect(result.backup!.running).toBe('x');
  });

  it('duplicate blocks and blocks from the future and the past: each block taken once, in order', async () => {
    const { result } = await upload('shuffled');
    expect(result.status).toBe('success');
    expect(result.backup!.running).toBe('b'.repeat(512) + 'c'.repeat(512) + 'end');
  });

  it('packets from another port of the device: ERROR 5 (unknown transfer ID) there, the upload goes on', async () => {
    const { result, heard } = await upload('other-tid');
    expect(result.status).toBe('success');
    expect(result.backup!.running).toBe('genuine');
    expect(heard.other).toEqual(['5 5', '5 2']); // DATA: unknown TID; WRQ: one upload at a time; its ERROR: no answer
  });

  it('malformed packets of every kind before and during the upload are refused or dropped; the upload completes', async () => {
    const { result, heard } = await upload('malformed');
    expect(result.status).toBe('success');
    expect(result.backup!.running).toBe('after the junk');
    expect(heard.errors.every((e) => e.length < 120)).toBe(true);
  });

  it('a block larger than 512 bytes ends the upload with TFTP_ERROR', async () => {
    const { result, error, heard } = await upload('oversized-block');
    expect(result.status).toBe('failure');
    expect(error).toEqual({ code: 'TFTP_ERROR', message: 'block 1 has 1400 bytes; TFTP blocks hold at most 512' });
    expect(heard.errors).toEqual(['4 block too large']);
  });

  it('an ERROR packet ends the upload; its text is bounded and control characters are not passed on', async () => {
    const { result, error } = await upload('error-packet');
    expect(result.status).toBe('failure');
    expect(error!.code).toBe('TFTP_ERROR');
    expect(error!.message).toMatch(/^the device ended the upload with TFTP error 3: \?\]52;c;aGk=\?disk full disk full /);
    expect(error!.message.length).toBeLessThanOrEqual(300);
    expect(error!.message).not.toMatch(/[\x00-\x1f\x7f]/);
  });

  it.skipIf(!canForge)('packets forged from source port 0 (dgram.send throws on port 0) are dropped; the upload goes on', async () => {
    forgeFirst = true;
    try {
      const { result } = await upload('byte-block');
      expect(result.status).toBe('success');
      expect(result.backup!.running).toBe('x');
    } finally {
      forgeFirst = false;
    }
  });

  it('a sender that goes away after one block: the receiver gives up after its retries, within the driver\'s timeout', async () => {
    const { result, error } = await upload('vanishes');
    expect(result.status).toBe('failure');
    expect(error!.code).toBe('TFTP_TIMEOUT');
  });
});
