// Every way a request of D.device.http can fail reaches the driver's callback as an Error
// with a code; the run goes on (the driver reports the code) and the host keeps working.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host, type HostOptions } from '../../../host/index.js';
import type { DeviceSpec } from '../../../host/contract/device.js';
import type { RunLimits } from '../../../host/contract/limits.js';
import type { RunResult } from '../../../host/contract/run-result.js';
import { makeTestPki, type TestPki } from '../../helpers/certs.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource, useHost } from '../../helpers/host.js';

/**
 * A driver sending one request and reporting what its callback got: the error's code,
 * message and whether it is an Error, or the status code; the body's length on success.
 */
function probe(options: Record<string, unknown>, method = 'get'): string {
  return `function get_status() {
    D.device.http.${method}(${JSON.stringify(options)}, function (err, res, body) {
      if (err) {
        return D.success([
          D.createVariable('code', 'Code', err.code),
          D.createVariable('message', 'Message', err.message),
          D.createVariable('isError', 'Is Error', err instanceof Error),
          D.createVariable('args', 'Args', String(res) + ',' + String(body)),
        ]);
      }
      D.success([D.createVariable('code', 'Code', 'OK ' + res.statusCode), D.createVariable('length', 'Length', String(body).length)]);
    });
  }`;
}

interface Outcome {
  code: string | null;
  message: string | null;
  isError: string | null;
  args: string | null;
  length: string | null;
  result: RunResult;
}

async function outcome(host: Host, options: Record<string, unknown>, device: DeviceSpec, limits?: Partial<RunLimits>): Promise<Outcome> {
  const result = await runSource(host, probe(options), { device, limits });
  expect(result.status, result.message ?? '').toBe('success');
  const value = (uid: string) => result.variables.find((v) => v.uid === uid)?.value ?? null;
  return { code: value('code'), message: value('message'), isError: value('isError'), args: value('args'), length: value('length'), result };
}

/** A port nothing listens on: listened on, then closed. */
async function closedPort(): Promise<number> {
  const probeServer = createServer();
  await new Promise<void>((resolve) => probeServer.listen(0, '127.0.0.1', resolve));
  const { port } = probeServer.address() as AddressInfo;
  await new Promise<void>((resolve) => probeServer.close(() => resolve()));
  return port;
}

describe('D.device.http failures', () => {
  const host = useHost();
  let server: DeviceServer;
  const device = (): DeviceSpec => ({ id: 'failures', ip: '127.0.0.1', portMap: { 80: server.port } });

  beforeAll(async () => {
    server = await startDeviceServer({
      route: (req, res) => {
        if (req.url.startsWith('/loop')) {
          res.writeHead(302, { location: '/loop' });
          res.end();
          return true;
        }
        return false;
      },
    });
  });
  afterAll(() => server.close());

  /** After a failure the same host still serves a plain request. */
  async function hostStillWorks(h: Host = host): Promise<void> {
    const ok = await outcome(h, { url: '/echo?still-works' }, device());
    expect(ok.code).toBe('OK 200');
  }

  it('ECONNREFUSED: nothing listens on the port', async () => {
    const port = await closedPort();
    const o = await outcome(host, { url: '/x' }, { ip: '127.0.0.1', portMap: { 80: port } });
    expect(o.code).toBe('ECONNREFUSED');
    expect(o.isError).toBe('true');
    expect(o.args).toBe('null,null');
    expect(o.message).toContain(`GET http://127.0.0.1:${port}`);
    expect(o.message).toContain('refused');
    expect(o.result.http).toMatchObject([{ method: 'GET', url: `http://127.0.0.1:${port}/x`, status: null, error: 'ECONNREFUSED' }]);
    await hostStillWorks();
  });

  it('ECONNRESET: the device drops the connection', async () => {
    const o = await outcome(host, { url: '/reset' }, device());
    expect(o.code).toBe('ECONNRESET');
    expect(o.isError).toBe('true');
    expect(o.message).toContain(`GET http://127.0.0.1:${server.port}`);
    expect(server.seen.at(-1)!.url).toBe('/reset');
    await hostStillWorks();
  });

  it('ENOTFOUND: the device host name does not resolve', async () => {
    const o = await outcome(host, { url: '/x' }, { host: 'nonexistent.invalid' });
    expect(o.code).toBe('ENOTFOUND');
    expect(o.isError).toBe('true');
    expect(o.message).toContain('GET http://nonexistent.invalid');
    expect(o.message).toContain('nonexistent.invalid could not be resolved');
    await hostStillWorks();
  });

  it('ETIMEDOUT: no answer within the timeout option', async () => {
    const started = performance.now();
    const o = await outcome(host, { url: '/slow?ms=2000', timeout: 200 }, device());
    expect(performance.now() - started).toBeLessThan(1500);
    expect(o.code).toBe('ETIMEDOUT');
    expect(o.isError).toBe('true');
    expect(o.message).toContain(`GET http://127.0.0.1:${server.port}`);
    expect(o.message).toContain('200 ms');
    expect(o.result.http[0]).toMatchObject({ error: 'ETIMEDOUT', status: null, headersMs: null });
    expect(o.result.http[0]!.durationMs).toBeGreaterThanOrEqual(150);
    expect(o.result.http[0]!.durationMs).toBeLessThan(1500);
    await hostStillWorks();
  });

  it("the run's deadline bounds a request that has no timeout option", async () => {
    const started = performance.now();
    const result = await runSource(
      host,
      // Only a response ends this run: the deadline must end it first.
      `function get_status() { D.device.http.get({ url: '/slow?ms=2000' }, function (err, res) { if (!err) D.success(); }); }`,
      { device: device(), limits: { timeoutMs: 500 } },
    );
    const elapsed = performance.now() - started;
    expect(result.status).toBe('failure');
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    expect(elapsed).toBeLessThan(1500);
    expect(result.durationMs).toBeLessThan(1500);
    await hostStillWorks();
  });

  describe('TLS', () => {
    let pki: TestPki;
    let selfSigned: DeviceServer;
    let valid: DeviceServer;
    let expired: DeviceServer;
    let trusting: Host;

    beforeAll(async () => {
      pki = await makeTestPki();
      [selfSigned, valid, expired] = await Promise.all([
        startDeviceServer({ tls: pki.selfSigned }),
        startDeviceServer({ tls: pki.valid }),
        startDeviceServer({ tls: pki.expired }),
      ]);
      trusting = createHost({ trustedCAs: [pki.ca.cert] } satisfies HostOptions);
    });
    afterAll(async () => {
      await trusting?.close();
      await Promise.all([selfSigned?.close(), valid?.close(), expired?.close()]);
    });

    const tlsDevice = (s: DeviceServer, extra: Partial<DeviceSpec> = {}): DeviceSpec => ({ ip: '127.0.0.1', portMap: { 443: s.port }, ...extra });

    it('refuses a self-signed certificate by default, naming rejectUnauthorized', async () => {
      const o = await outcome(host, { url: '/', protocol: 'https' }, tlsDevice(selfSigned));
      expect(o.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(o.isError).toBe('true');
      expect(o.message).toContain(`GET https://127.0.0.1:${selfSigned.port}`);
      expect(o.message).toContain('rejectUnauthorized');
      expect(selfSigned.seen).toHaveLength(0);
      await hostStillWorks();
    });

    it('accepts it with rejectUnauthorized: false', async () => {
      const o = await outcome(host, { url: '/echo?insecure', protocol: 'https', rejectUnauthorized: false }, tlsDevice(selfSigned));
      expect(o.code).toBe('OK 200');
      expect(selfSigned.seen.at(-1)!.url).toBe('/echo?insecure');
    });

    it("verifies a certificate signed by one of the host's trustedCAs", async () => {
      const o = await outcome(trusting, { url: '/echo?trusted', protocol: 'https' }, tlsDevice(valid, { host: 'localhost' }));
      expect(o.code).toBe('OK 200');
      expect(o.result.http[0]!.url).toBe(`https://localhost:${valid.port}/echo?trusted`);
      // Without that CA the same certificate is not trusted: verification really is on.
      const untrusted = await outcome(host, { url: '/echo?untrusted', protocol: 'https' }, tlsDevice(valid, { host: 'localhost' }));
      expect(untrusted.code).not.toBe('OK 200');
      expect(untrusted.message).toContain('rejectUnauthorized');
    });

    it('refuses an expired certificate with CERT_HAS_EXPIRED', async () => {
      const o = await outcome(trusting, { url: '/', protocol: 'https' }, tlsDevice(expired, { host: 'localhost' }));
      expect(o.code).toBe('CERT_HAS_EXPIRED');
      expect(o.isError).toBe('true');
      expect(o.message).toContain(`GET https://localhost:${expired.port}`);
      await hostStillWorks(trusting);
    });
  });

  it('BODY_TOO_LARGE past limits.maxResponseBytes; the 16 MiB default lets it through', async () => {
    const small = await outcome(host, { url: '/big?bytes=5000' }, device(), { maxResponseBytes: 1000 });
    expect(small.code).toBe('BODY_TOO_LARGE');
    expect(small.isError).toBe('true');
    expect(small.message).toContain(`GET http://127.0.0.1:${server.port}`);
    expect(small.message).toContain('1000 bytes');
    const fits = await outcome(host, { url: '/big?bytes=5000' }, device());
    expect(fits.code).toBe('OK 200');
    expect(fits.length).toBe('5000');
    const exact = await outcome(host, { url: '/big?bytes=1000' }, device(), { maxResponseBytes: 1000 });
    expect(exact.code).toBe('OK 200');
  });

  it("BODY_TOO_LARGE past a quarter of the run's memoryMb, counted as the driver gets the body (hex doubles it)", async () => {
    const quarter = 4 * 1024 * 1024; // of memoryMb 16
    // On the wire: past the share though within maxResponseBytes, refused by its Content-Length.
    const wire = await outcome(host, { url: `/big?bytes=${quarter + 1}` }, device(), { memoryMb: 16 });
    expect(wire.code).toBe('BODY_TOO_LARGE');
    expect(wire.message).toContain(`limit of ${quarter} bytes (a quarter of the run's memoryMb of 16)`);
    // As hex the body takes twice its bytes: half the share is the most it may be.
    const hex = await outcome(host, { url: `/big?bytes=${quarter / 2 + 1}`, encoding: 'hex' }, device(), { memoryMb: 16 });
    expect(hex.code).toBe('BODY_TOO_LARGE');
    expect(hex.message).toContain(`the ${quarter / 2 + 1}-byte body, as hex for the driver, takes ${quarter + 2} bytes, more than the limit of ${quarter} bytes (a quarter of the run's memoryMb of 16)`);
    const hexFits = await outcome(host, { url: `/big?bytes=${quarter / 8}`, encoding: 'hex' }, device(), { memoryMb: 16 });
    expect(hexFits.code).toBe('OK 200');
    expect(hexFits.length).toBe(String(quarter / 4));
    // A smaller maxResponseBytes is the limit, and is named.
    const own = await outcome(host, { url: '/big?bytes=5000' }, device(), { memoryMb: 16, maxResponseBytes: 1000 });
    expect(own.message).toContain('limit of 1000 bytes (maxResponseBytes)');
  });

  it('TOO_MANY_REQUESTS past limits.maxHttpRequests, the driver carrying on', async () => {
    const result = await runSource(
      host,
      `function get_status() {
        var codes = [];
        function next(i) {
          if (i === 3) return D.success([D.createVariable('codes', 'Codes', codes.join(','))]);
          D.device.http.get({ url: '/echo?n=' + i }, function (err, res) {
            codes.push(err ? err.code + (err instanceof Error ? '' : '(not an Error)') : res.statusCode);
            next(i + 1);
          });
        }
        next(0);
      }`,
      { device: device(), limits: { maxHttpRequests: 2 } },
    );
    expect(result.status).toBe('success');
    expect(result.variables[0]!.value).toBe('200,200,TOO_MANY_REQUESTS');
    expect(server.seen.filter((s) => s.url === '/echo?n=2')).toHaveLength(0);
  });

  it('TOO_MANY_REQUESTS counts redirect hops', async () => {
    const before = server.seen.length;
    const o = await outcome(host, { url: '/redirect?to=%2Fredirect%3Fto%3D%252Fecho' }, device(), { maxHttpRequests: 2 });
    expect(o.code).toBe('TOO_MANY_REQUESTS');
    expect(o.isError).toBe('true');
    // Two hops went out; the third (to /echo) was never sent.
    expect(server.seen.slice(before).map((s) => s.url)).toEqual(['/redirect?to=%2Fredirect%3Fto%3D%252Fecho', '/redirect?to=%2Fecho']);
    const allowed = await outcome(host, { url: '/redirect?to=%2Fredirect%3Fto%3D%252Fecho' }, device(), { maxHttpRequests: 3 });
    expect(allowed.code).toBe('OK 200');
  });

  it('TOO_MANY_REDIRECTS past maxRedirects, every hop recorded', async () => {
    const o = await outcome(host, { url: '/loop', maxRedirects: 3 }, device());
    expect(o.code).toBe('TOO_MANY_REDIRECTS');
    expect(o.isError).toBe('true');
    expect(o.message).toContain(`GET http://127.0.0.1:${server.port}`);
    expect(o.message).toContain('maxRedirects (3)');
    expect(o.result.http).toHaveLength(4);
    expect(o.result.http.every((h) => h.status === 302 && h.url === `http://127.0.0.1:${server.port}/loop`)).toBe(true);
    await hostStillWorks();
  });

  it('POST failures name the method too', async () => {
    const port = await closedPort();
    const result = await runSource(host, probe({ url: '/x', body: 'b' }, 'post'), { device: { ip: '127.0.0.1', portMap: { 80: port } } });
    expect(result.variables.find((v) => v.uid === 'code')!.value).toBe('ECONNREFUSED');
    expect(result.variables.find((v) => v.uid === 'message')!.value).toContain(`POST http://127.0.0.1:${port}`);
  });

  it("closes each device's keep-alive connections when the host closes", async () => {
    const own = await startDeviceServer();
    const h = createHost();
    try {
      for (const id of ['keepalive-a', 'keepalive-b']) {
        const o = await outcome(h, { url: '/echo?keepalive' }, { id, ip: '127.0.0.1', portMap: { 80: own.port } });
        expect(o.code).toBe('OK 200');
      }
      // One dispatcher per device: each kept its connection open.
      expect(own.openSockets()).toBe(2);
      await h.close();
      const deadline = performance.now() + 2000;
      while (own.openSockets() > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(own.openSockets()).toBe(0);
    } finally {
      await h.close();
      await own.close();
    }
  });
});
