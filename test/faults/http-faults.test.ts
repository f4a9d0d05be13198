// Fault injection: D.device.http against a device that misbehaves on the wire (faulty-server.ts).
// Every case checks that
//   - the run ends within its deadline (result.durationMs <= timeoutMs + DEADLINE_MARGIN_MS),
//   - the callback gets the documented code (docs/reference/driver-api.md) as an Error with null response
//     and body, and the run ends with the errorType in test/faults/README.md,
//   - no unhandled rejection or uncaught exception reached the process (harness.ts),
//   - no socket is left open on the device's side AFTER THE RUN. The faulty server never offers
//     keep-alive (it answers `Connection: close` or ends the connection), so a connection that is
//     still open once the run is over is one the host failed to drop. Kept-alive connections of
//     well-behaved devices are closed by host.close(): test/bridges/http/failures.test.ts, last case; the
//     last case here checks host.close() once more against every server of this file.
// Each fault is sent as a GET and as a POST with a 2000-byte body (and the server checks the body
// arrived whole, where it reads one). Cases covered elsewhere are not repeated: ECONNREFUSED,
// ENOTFOUND, a /reset before any byte, certificate errors (http-failures.test.ts), a device that
// only speaks TLS 1.0 (tls-legacy.test.ts), the request queue (http-concurrency.test.ts).
import { gzipSync } from 'node:zlib';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec } from '../../host/contract/device.js';
import type { RunLimits } from '../../host/contract/limits.js';
import { makeTestPki } from '../helpers/certs.js';
import { faults, startFaultyServer, type Fault, type FaultyServer } from '../helpers/faulty-server.js';
import { runSource, useHost } from '../helpers/host.js';
import { DEADLINE_MARGIN_MS, httpProbe, probe, recordProcessFaults, type Probe } from './harness.js';

const POST_BODY = 'p'.repeat(2000);
/** Short deadlines keep the suite quick; faults that hang do so for far longer (10 s). */
const RUN_MS = 1200;
const REQUEST_MS = 300;
const HANG_MS = 10_000;
/** A blackholed device starts reading again after this (see faults.blackhole), well after the run gave up. */
const BLACKHOLE_MS = RUN_MS + 300;

interface Case {
  name: string;
  fault: () => Fault;
  options?: Record<string, unknown>;
  limits?: Partial<RunLimits>;
  /** The callback's code; null when the run's end comes first and the callback never runs. */
  code: string | null;
  /**
   * Past the run's deadline: the request's own bound is the deadline plus 250 ms of slack
   * (run-network.ts), so on a loaded machine where the sandbox's deadline timer fires late the
   * callback may get ETIMEDOUT first. Either way the run ends TIMEOUT_ERROR, within its deadline.
   */
  orCode?: string;
  errorType: string | null;
  /** Extra checks of what the driver got. */
  check?: (p: Probe) => void;
}

const cases: Case[] = [
  {
    name: 'slow first byte, past the timeout option',
    fault: () => faults.slowFirstByte(HANG_MS),
    options: { timeout: REQUEST_MS },
    code: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
    check: (p) => expect(p.message).toContain(`${REQUEST_MS} ms`),
  },
  {
    name: 'slow first byte, past the run deadline (no timeout option)',
    fault: () => faults.slowFirstByte(HANG_MS),
    code: null,
    orCode: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
    // Request and run end together: the exchange may be cut by the run (ABORTED) or time out
    // first (ETIMEDOUT) without the driver getting to its callback.
    check: (p) => {
      expect(p.result.http[0]).toMatchObject({ status: null });
      expect(p.code ? [p.code] : ['ABORTED', 'ETIMEDOUT']).toContain(p.result.http[0]!.error);
    },
  },
  {
    name: 'slow body (one byte every 50 ms), past the timeout option',
    fault: () => faults.drip(1000, 50),
    options: { timeout: REQUEST_MS },
    code: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
    // The headers came: the transcript says when, though the exchange failed.
    check: (p) => expect(p.result.http[0]!.headersMs).not.toBeNull(),
  },
  {
    name: 'slow body, past the run deadline',
    fault: () => faults.drip(1000, 50),
    code: null,
    orCode: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
  },
  {
    name: 'reset (RST) in the middle of the body',
    fault: () => faults.resetMidBody(1000, 100),
    code: 'ECONNRESET',
    errorType: 'NETWORK_ERROR',
  },
  {
    name: 'chunked body cut short (no terminating chunk, then FIN)',
    fault: () => faults.truncatedChunked(),
    code: 'ECONNRESET',
    errorType: 'NETWORK_ERROR',
  },
  {
    name: 'Content-Length shorter than the body sent: the body is cut at Content-Length',
    fault: () => faults.contentLengthShorter(5, 'hello, and more that was not announced'),
    code: null,
    errorType: null,
    check: (p) => expect([p.status, p.body]).toEqual(['200', 'hello']),
  },
  {
    name: 'Content-Length longer than the body sent, then FIN',
    fault: () => faults.contentLengthLonger(1000, 'only this'),
    code: 'ECONNRESET',
    errorType: 'NETWORK_ERROR',
  },
  {
    name: 'Content-Length longer than the body sent, connection held open',
    fault: () => faults.contentLengthLonger(1000, 'only this', true),
    options: { timeout: REQUEST_MS },
    code: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
  },
  {
    name: 'body past maxResponseBytes, announced by Content-Length',
    fault: () => faults.body(Buffer.alloc(300_000, 'z'), 'text/plain'),
    limits: { maxResponseBytes: 100_000 },
    code: 'BODY_TOO_LARGE',
    errorType: 'NETWORK_ERROR',
    check: (p) => expect(p.message).toContain('100000 bytes'),
  },
  {
    name: 'body past maxResponseBytes, chunked (no length to refuse it early)',
    fault: () => faults.chunkedFlood(4 * 1024 * 1024),
    limits: { maxResponseBytes: 100_000 },
    code: 'BODY_TOO_LARGE',
    errorType: 'NETWORK_ERROR',
  },
  {
    name: 'gzip bomb (64 KiB on the wire, 64 MiB inflated) with gzip: true, against the default 16 MiB cap',
    fault: () => faults.body(gzipSync(Buffer.alloc(64 * 1024 * 1024)), 'text/plain', ['Content-Encoding: gzip']),
    options: { gzip: true },
    code: 'BODY_TOO_LARGE',
    errorType: 'NETWORK_ERROR',
    check: (p) => expect(p.message).toContain('decompressed body'),
  },
  {
    name: 'the same gzip bomb without gzip: true is only its wire bytes',
    fault: () => faults.body(gzipSync(Buffer.alloc(64 * 1024 * 1024)), 'text/plain', ['Content-Encoding: gzip']),
    options: { encoding: 'base64' },
    code: null,
    errorType: null,
    check: (p) => expect(Number(p.length)).toBeLessThan(200_000),
  },
  {
    name: 'accepts, reads the request, never answers (timeout option)',
    fault: () => faults.silent(),
    options: { timeout: REQUEST_MS },
    code: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
  },
  {
    name: 'accepts, reads the request, never answers (run deadline)',
    fault: () => faults.silent(),
    code: null,
    orCode: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
  },
  {
    name: 'accepts and never reads (blackholed), timeout option',
    fault: () => faults.blackhole(BLACKHOLE_MS),
    options: { timeout: REQUEST_MS },
    code: 'ETIMEDOUT',
    errorType: 'TIMEOUT_ERROR',
  },
];

describe('HTTP faults', () => {
  const recorded = recordProcessFaults();
  const host = useHost();
  let server: FaultyServer;
  const device = (s: FaultyServer = server, id = 'faulty'): DeviceSpec => ({ id, ip: '127.0.0.1', portMap: { 80: s.port, 443: s.port } });

  /** The servers of nested describes, for the last test's host.close() check. */
  const others: FaultyServer[] = [];

  beforeAll(async () => {
    server = await startFaultyServer({ fault: faults.ok() });
  });
  afterAll(() => Promise.all([server, ...others].map((s) => s.close())));

  /** Runs one probe and checks what every fault must leave behind. */
  async function faultRun(c: Case, method: 'get' | 'post', s: FaultyServer = server): Promise<Probe> {
    s.fault = c.fault();
    const seen = s.requests.length;
    const options = { url: `/${c.name.replace(/\W+/g, '-')}`, ...c.options, ...(method === 'post' ? { body: POST_BODY } : {}) };
    const p = await probe(host, httpProbe(method, options), device(s), { timeoutMs: RUN_MS, ...c.limits });
    expect(p.code === c.orCode ? c.code : p.code, p.message ?? p.result.message ?? '').toBe(c.code);
    expect(p.result.errorType, p.result.message ?? '').toBe(c.errorType);
    if (p.code) {
      expect(p.shape).toBe('true,null,null');
      expect(p.message).toContain(`${method.toUpperCase()} http`);
      expect(p.result.http.at(-1)!.error).toBe(p.code);
    }
    // Where the server read the request, the POST body arrived whole.
    if (method === 'post' && s.requests.length > seen) expect(s.requests.at(-1)!.body.length).toBe(POST_BODY.length);
    c.check?.(p);
    expect(await s.drained(), 'sockets still open on the device after the run').toBe(0);
    return p;
  }

  for (const c of cases) {
    for (const method of ['get', 'post'] as const) {
      it(`${c.name} (${method.toUpperCase()})`, async () => {
        await faultRun(c, method);
        // The host serves the next run normally.
        server.fault = faults.ok('fine');
        const next = await probe(host, httpProbe('get', { url: '/after' }), device(), { timeoutMs: RUN_MS });
        expect([next.status, next.body]).toEqual(['200', 'fine']);
      });
    }
  }

  it('a POST whose 8 MB body the device never reads ends at the timeout option, and at the deadline without one', async () => {
    // A longer deadline than the other cases: carrying 8 MB out of the sandbox takes a loaded
    // machine most of RUN_MS before the request starts its 300 ms.
    const bigRunMs = 4 * RUN_MS;
    server.fault = faults.blackhole(bigRunMs + 300);
    const big = { url: '/upload', body: 'u'.repeat(8 * 1024 * 1024) };
    const withTimeout = await probe(host, httpProbe('post', { ...big, timeout: REQUEST_MS }), device(), { timeoutMs: bigRunMs });
    expect([withTimeout.code, withTimeout.result.errorType]).toEqual(['ETIMEDOUT', 'TIMEOUT_ERROR']);
    expect(await server.drained(bigRunMs + 2000)).toBe(0); // the device reads (and sees the close) only after its hold
    const atDeadline = await probe(host, httpProbe('post', big), device(), { timeoutMs: bigRunMs });
    expect([atDeadline.code === 'ETIMEDOUT' ? null : atDeadline.code, atDeadline.result.errorType]).toEqual([null, 'TIMEOUT_ERROR']);
    expect(await server.drained(bigRunMs + 2000)).toBe(0); // the device reads (and sees the close) only after its hold
  });

  it('a port with nothing listening (the device never accepts): ECONNREFUSED for GET and POST', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    for (const method of ['get', 'post'] as const) {
      const p = await probe(host, httpProbe(method, { url: '/', body: method === 'post' ? POST_BODY : undefined }), { ip: '127.0.0.1', portMap: { 80: port } }, { timeoutMs: RUN_MS });
      expect([p.code, p.result.errorType, p.shape]).toEqual(['ECONNREFUSED', 'NETWORK_ERROR', 'true,null,null']);
    }
  });

  describe('bodies the driver cannot parse', () => {
    it('invalid JSON with json: true stays text; a driver that checks fails with PARSING_ERROR, one that does not with GENERIC_ERROR', async () => {
      for (const method of ['get', 'post'] as const) {
        server.fault = faults.body('{"temperature": 21.5, "unit": ', 'application/json');
        const p = await probe(host, httpProbe(method, { url: '/json', json: true, ...(method === 'post' ? { body: POST_BODY } : {}) }), device(), { timeoutMs: RUN_MS });
        expect([p.status, p.bodyType, p.body]).toEqual(['200', 'string', '{"temperature": 21.5, "unit": ']);
        expect(await server.drained()).toBe(0);
      }
      const careful = `function get_status() {
        D.device.http.get({ url: '/json', json: true }, function (err, res, body) {
          if (err) return D.failure(D.errorType.NETWORK_ERROR);
          if (typeof body !== 'object') return D.failure(D.errorType.PARSING_ERROR);
          D.success([D.createVariable('t', 'T', body.temperature)]);
        });
      }`;
      const careless = `function get_status() {
        D.device.http.get({ url: '/json' }, function (err, res, body) {
          D.success([D.createVariable('t', 'T', JSON.parse(body).temperature)]);
        });
      }`;
      for (const [source, errorType, message] of [
        [careful, 'PARSING_ERROR', null],
        [careless, 'GENERIC_ERROR', 'SyntaxError'],
      ] as const) {
        server.fault = faults.body('{"temperature": 21.5, "unit": ', 'application/json');
        const result = await runSource(host, source, { device: device(), limits: { timeoutMs: RUN_MS } });
        expect(result.durationMs).toBeLessThanOrEqual(RUN_MS + DEADLINE_MARGIN_MS);
        expect(result.errorType).toBe(errorType);
        if (message) expect(result.message).toContain(message);
        expect(await server.drained()).toBe(0);
      }
    });

    const xmlDriver = `function get_status() {
      D.device.http.get({ url: '/status.xml' }, function (err, res, body) {
        if (err) return D.failure(D.errorType.NETWORK_ERROR);
        var $ = D.htmlParse(body, { xml: true });
        var temperature = $('status > temperature').text();
        console.log('found=' + JSON.stringify(temperature) + ' length=' + body.length);
        if (!temperature) return D.failure(D.errorType.PARSING_ERROR);
        if (temperature.length > 1000) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
        D.success([D.createVariable('t', 'T', temperature)]);
      });
    }`;

    async function xmlRun(body: string) {
      server.fault = faults.body(body, 'application/xml');
      const result = await runSource(host, xmlDriver, { device: device(), limits: { timeoutMs: RUN_MS } });
      expect(result.durationMs).toBeLessThanOrEqual(RUN_MS + DEADLINE_MARGIN_MS);
      expect(await server.drained()).toBe(0);
      return result;
    }

    it('well-formed XML is read (the driver below works)', async () => {
      const result = await xmlRun('<?xml version="1.0"?><status><temperature>21.5</temperature></status>');
      expect(result.variables).toMatchObject([{ uid: 't', value: '21.5' }]);
    });

    it('invalid XML given to D.htmlParse does not throw: the parser is lenient, the driver finds nothing and fails with PARSING_ERROR', async () => {
      for (const body of ['<status><temperature>21.5</temp', '<<<>>> not xml &&& </status>', '\u0000\u0001\ufffd binary']) {
        const result = await xmlRun(body);
        expect(result.errorType, `${JSON.stringify(body)}: ${result.message}`).toBe(body.startsWith('<status>') ? null : 'PARSING_ERROR');
      }
    });

    it('an entity-expansion bomb (billion laughs) is not expanded', async () => {
      const lol = ['<!DOCTYPE lolz [<!ENTITY lol0 "lol">'];
      for (let i = 1; i < 10; i++) lol.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
      lol.push(']><status><temperature>&lol9;</temperature></status>');
      const result = await xmlRun(lol.join(''));
      // Left as the literal reference "&lol9;": short, so not RESOURCE_UNAVAILABLE.
      expect(result.status).toBe('success');
      expect(result.variables[0]!.value).toBe('&lol9;');
    });
  });

  describe('over TLS (protocol: https)', () => {
    let handshakeFaults: FaultyServer;
    let hangingHandshakes: FaultyServer;
    let tlsDevice: FaultyServer;
    beforeAll(async () => {
      const pki = await makeTestPki();
      handshakeFaults = await startFaultyServer({ fault: faults.silent() });
      hangingHandshakes = await startFaultyServer({ fault: faults.blackhole(BLACKHOLE_MS) });
      tlsDevice = await startFaultyServer({ fault: faults.ok(), tls: pki.selfSigned });
      others.push(handshakeFaults, hangingHandshakes, tlsDevice);
    });

    const handshakeCases: Array<Case & { rejectUnauthorized: boolean; hangs?: boolean }> = [];
    for (const rejectUnauthorized of [true, false]) {
      handshakeCases.push(
        { name: 'the device closes the connection on the ClientHello', fault: () => faults.closeOnHello(), code: 'ECONNRESET', errorType: 'NETWORK_ERROR', rejectUnauthorized },
        { name: 'the device speaks plain HTTP on its https port', fault: () => faults.plainHttpOnTlsPort(), code: 'ERR_SSL_WRONG_VERSION_NUMBER', errorType: 'NETWORK_ERROR', rejectUnauthorized },
        { name: 'the device refuses our TLS version (protocol_version alert)', fault: () => faults.refuseTlsVersion(), code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', errorType: 'NETWORK_ERROR', rejectUnauthorized },
        { name: 'the device accepts and never answers the ClientHello', fault: () => faults.blackhole(BLACKHOLE_MS), options: { timeout: REQUEST_MS }, code: 'ETIMEDOUT', errorType: 'TIMEOUT_ERROR', rejectUnauthorized, hangs: true },
        { name: 'the device never answers the ClientHello, no timeout option', fault: () => faults.blackhole(BLACKHOLE_MS), code: null, orCode: 'ETIMEDOUT', errorType: 'TIMEOUT_ERROR', rejectUnauthorized, hangs: true },
      );
    }

    for (const c of handshakeCases) {
      for (const method of ['get', 'post'] as const) {
        it(`${c.name}, rejectUnauthorized: ${c.rejectUnauthorized} (${method.toUpperCase()})`, async () => {
          const https = { ...c, options: { ...c.options, protocol: 'https', rejectUnauthorized: c.rejectUnauthorized } };
          const s = c.hangs ? hangingHandshakes : handshakeFaults;
          const p = await faultRun(https, method, s);
          if (p.code) expect(p.message).toContain('https://127.0.0.1');
          expect(s.requests).toHaveLength(0); // nothing got as far as HTTP
        });
      }
    }

    // After a good handshake the HTTP faults behave as in the clear: a few of them, to show it.
    for (const c of cases.filter((x) => /slow first byte|reset|chunked|never answers \(timeout/.test(x.name))) {
      for (const method of ['get', 'post'] as const) {
        it(`after the handshake: ${c.name} (${method.toUpperCase()})`, async () => {
          await faultRun({ ...c, options: { ...c.options, protocol: 'https', rejectUnauthorized: false } }, method, tlsDevice);
        });
      }
    }
  });

  it('after all of it, host.close() leaves no socket open on any device and nothing was left unhandled', async () => {
    expect(server.stats().opened).toBeGreaterThan(cases.length * 2);
    await host.close();
    // host.close() drops what is left, at once (not after undici's 10 s connect timeout).
    for (const s of [server, ...others]) {
      expect(await s.drained()).toBe(0);
      expect(s.stats().closed).toBe(s.stats().opened);
    }
    expect(recorded).toEqual({ rejections: [], exceptions: [] });
  });
});
