// A recording is untrusted input (issue 34, deliverable 4): a replayed run keeps the run's limits
// as a live run does on the wire (answer bytes, requests, device commands and their output), a
// recording is bounded and checked before it is parsed, its prototype keys are refused, and it
// never widens what the run reaches (nothing of a replay goes to the network).
import { mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RecordingFile } from '../../../host/index.js';
import { MAX_RECORDED_EXCHANGES, MAX_RECORDING_BYTES } from '../../../host/untrusted-input/files.js';
import { runSource, useHost } from '../../helpers/host.js';

const work = mkdtempSync(path.join(tmpdir(), 'driverbox-replay-limits-'));
const host = useHost({ threads: 1, warmIsolates: 1 });

const device = { ip: '10.0.0.7', host: null, username: 'admin', hasPassword: false, portMap: {} };

function recording(exchanges: unknown[], extra: Record<string, unknown> = {}): RecordingFile {
  return { recording: 1, driver: 'd.js', action: 'get_status', recordedAt: '2026-01-01T00:00:00.000Z', outcome: { status: 'success', errorType: null }, device, exchanges, ...extra } as unknown as RecordingFile;
}

const get = (url: string, body: string) => ({
  kind: 'http',
  method: 'GET',
  url: `http://10.0.0.7${url}`,
  request: { headers: {}, body: null },
  response: { status: 200, headers: { 'content-type': 'text/plain' }, body: { text: body }, wireBytes: Buffer.byteLength(body) },
});

/** Gets `url` and logs what came: the error code, or the body's length. */
const GETTER = `
function get_status() {
  D.device.http.get('/big', function (err, res, body) {
    if (err) { console.log('error ' + err.code + ': ' + err.message); return D.failure(D.errorType.GENERIC_ERROR); }
    console.log('got ' + body.length);
    D.success();
  });
}`;

describe('a replay keeps the run\'s limits, as the wire does', () => {
  it('an answer larger than maxResponseBytes is BODY_TOO_LARGE, never handed to the driver', async () => {
    const big = 'x'.repeat(300_000);
    const replay = recording([get('/big', big)]);
    const result = await runSource(host, GETTER, { replay, limits: { maxResponseBytes: 100_000 } });
    expect(result.status).toBe('failure');
    expect(result.logs.map((l) => l.message)).toEqual(['error BODY_TOO_LARGE: GET http://10.0.0.7: the response body is larger than the limit of 100000 bytes (maxResponseBytes)']);
    expect(result.http[0]!.error).toBe('BODY_TOO_LARGE');
    // Within the limit, the same recording answers as it did.
    const within = await runSource(host, GETTER, { replay, limits: { maxResponseBytes: 300_000 } });
    expect(within.logs.map((l) => l.message)).toEqual(['got 300000']);
  });

  it('a binary (base64) answer is measured by its bytes, before it is decoded', async () => {
    const bytes = Buffer.alloc(150_000, 0xff);
    const entry = { ...get('/big', ''), response: { status: 200, headers: {}, body: { base64: bytes.toString('base64') }, wireBytes: bytes.length } };
    const result = await runSource(host, GETTER, { replay: recording([entry]), limits: { maxResponseBytes: 149_999 } });
    expect(result.logs.map((l) => l.message)).toEqual(['error BODY_TOO_LARGE: GET http://10.0.0.7: the response body is larger than the limit of 149999 bytes (maxResponseBytes)']);
  });

  it('maxHttpRequests holds: the request past it is TOO_MANY_REQUESTS, as live', async () => {
    const source = `
function get_status() {
  D.device.http.get('/big', function (e1) {
    D.device.http.get('/big', function (e2) {
      console.log(String(e1 && e1.code) + ' ' + String(e2 && e2.code));
      D.success();
    });
  });
}`;
    const result = await runSource(host, source, { replay: recording([get('/big', 'a'), get('/big', 'b')]), limits: { maxHttpRequests: 1 } });
    expect(result.logs.map((l) => l.message)).toEqual(['null TOO_MANY_REQUESTS']);
  });

  const SSH = `
function get_status() {
  D.device.sendSSHCommand({ command: 'show run' }, function (out, err) {
    if (err) { console.log('error ' + err.code + ': ' + err.message); return D.failure(D.errorType.GENERIC_ERROR); }
    console.log('got ' + out.length);
    D.success();
  });
}`;
  const ssh = (result: unknown) => ({ kind: 'ssh', url: 'ssh://10.0.0.7', request: { command: 'show run' }, answer: { error: null, result } });

  it('a protocol answer larger than maxOutputBytes is OUTPUT_TOO_LARGE', async () => {
    const result = await runSource(host, SSH, { replay: recording([ssh('y'.repeat(50_000))]), limits: { maxOutputBytes: 10_000 } });
    expect(result.status).toBe('failure');
    expect(result.logs.map((l) => l.message)).toEqual(["error OUTPUT_TOO_LARGE: ssh: the output passed 10000 bytes (the run's maxOutputBytes; the recorded answer has 50000)"]);
    const within = await runSource(host, SSH, { replay: recording([ssh('y'.repeat(50_000))]), limits: { maxOutputBytes: 50_000 } });
    expect(within.logs.map((l) => l.message)).toEqual(['got 50000']);
  });

  it('maxProtocolCommands holds: the command past it is TOO_MANY_COMMANDS', async () => {
    const source = `
function get_status() {
  D.device.sendSSHCommand({ command: 'show run' }, function (o1, e1) {
    D.device.sendSSHCommand({ command: 'show run' }, function (o2, e2) {
      console.log(String(e1 && e1.code) + ' ' + String(e2 && e2.code));
      D.success();
    });
  });
}`;
    const result = await runSource(host, source, { replay: recording([ssh('a'), ssh('b')]), limits: { maxProtocolCommands: 1 } });
    expect(result.logs.map((l) => l.message)).toEqual(['null TOO_MANY_COMMANDS']);
  });
});

describe('a recording is bounded and checked before it is parsed', () => {
  it('a file past MAX_RECORDING_BYTES is refused by its size, unread', async () => {
    const file = path.join(work, 'huge.json');
    writeFileSync(file, '');
    truncateSync(file, MAX_RECORDING_BYTES + 1); // sparse: nothing is written, its size says it all
    await expect(runSource(host, GETTER, { replay: file })).rejects.toMatchObject({
      code: 'REPLAY_TOO_LARGE',
      message: `cannot read the recording ${file}: it is ${MAX_RECORDING_BYTES + 1} bytes, larger than the limit of ${MAX_RECORDING_BYTES} bytes`,
    });
  });

  it('more exchanges than MAX_RECORDED_EXCHANGES are refused', async () => {
    const many = Array.from({ length: MAX_RECORDED_EXCHANGES + 1 }, () => get('/big', 'a'));
    await expect(runSource(host, GETTER, { replay: recording(many) })).rejects.toMatchObject({
      code: 'REPLAY_TOO_LARGE',
      message: `the replay recording is refused: it has ${MAX_RECORDED_EXCHANGES + 1} exchanges, more than the limit of ${MAX_RECORDED_EXCHANGES}`,
    });
  });

  it('a recording nested past the JSON depth bound is refused without a stack overflow', async () => {
    const file = path.join(work, 'deep.json');
    writeFileSync(file, `{"recording":1,"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}`);
    await expect(runSource(host, GETTER, { replay: file })).rejects.toMatchObject({ code: 'REPLAY_MALFORMED', message: `${file} is not a valid recording: nests deeper than 256 levels` });
  });

  it('an object recording nested past the bound is refused too (matching it would recurse)', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const entry = { kind: 'ssh', url: 'ssh://10.0.0.7', request: { command: deep }, answer: { error: null, result: '' } };
    await expect(runSource(host, GETTER, { replay: recording([entry]) })).rejects.toMatchObject({ code: 'REPLAY_MALFORMED', message: 'the replay recording is not a valid recording: nests deeper than 256 levels' });
  });

  it.each([
    ['__proto__', 'exchanges[0].response.headers.__proto__'],
    ['constructor', 'exchanges[0].response.headers.constructor'],
    ['prototype', 'exchanges[0].response.headers.prototype'],
  ])('a "%s" key is refused, naming where it is', async (key, at) => {
    const file = path.join(work, `proto-${key}.json`);
    const text = JSON.stringify(recording([get('/big', 'a')])).replace('"content-type":"text/plain"', `"content-type":"text/plain","${key}":["location"]`);
    writeFileSync(file, text);
    const error = await runSource(host, GETTER, { replay: file }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'REPLAY_MALFORMED' });
    expect((error as Error).message).toContain(`${file} is not a valid recording: ${at}: the key "${key}" is not allowed`);
  });

  it('an object recording holding a prototype key (JSON.parse makes it an own key) is refused too', async () => {
    const parsed = JSON.parse(JSON.stringify(recording([get('/big', 'a')])).replace('"headers":{}', '"headers":{"__proto__":{"x":"1"}}')) as RecordingFile;
    await expect(runSource(host, GETTER, { replay: parsed })).rejects.toMatchObject({ code: 'REPLAY_MALFORMED', message: expect.stringContaining('exchanges[0].request.headers.__proto__: the key "__proto__" is not allowed') });
  });
});

describe('a recording never widens what the run reaches', () => {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('live');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('its pins and redirect hosts lead nowhere live: a request it lacks is REPLAY_MISS, no connection is made', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // The recording names a host pinned to a live server, and lists it as a redirect host.
    const replay = recording([get('/big', 'a')], { resolve: { 'internal.lan': { ip: '127.0.0.1', portMap: { 80: port } } }, redirectHosts: ['internal.lan'] });
    replay.device = { ...device, ip: '127.0.0.1', host: 'internal.lan', portMap: { 80: port } };
    const source = `
function get_status() {
  D.device.http.get('/other', function (e1) {
    var ext = D.createExternalDevice('internal.lan');
    ext.http.get('/x', function (e2) {
      console.log(e1.code + ' ' + e2.code);
      D.success();
    });
  });
}`;
    const result = await runSource(host, source, { replay });
    expect(result.logs.map((l) => l.message)).toEqual(['REPLAY_MISS REPLAY_MISS']);
    expect(hits).toBe(0);
  });
});
