// Fault injection: D.device.http.getTLSCertificate against a device whose TLS handshake goes wrong.
// Same checks as http-faults.test.ts: the run ends within its deadline, the callback gets the
// documented code (docs/reference/driver-api.md, TLS) as an Error with a null certificate, the run ends with
// the errorType of test/faults/README.md, nothing unhandled reached the process, and no socket is
// left open on the device after the run: a certificate read keeps no connection (tls/index.ts
// destroys its socket however the read ends), so here "after the run" holds for every case.
// Covered elsewhere: a port that speaks plain HTTP with a real server, ECONNREFUSED, the run ending
// mid-handshake (tls-certificate.test.ts), TLS 1.0 devices (tls-legacy.test.ts).
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestPki } from '../helpers/certs.js';
import { faults, startFaultyServer, type Fault, type FaultyServer } from '../helpers/faulty-server.js';
import { useHost } from '../helpers/host.js';
import { probe, recordProcessFaults, tlsProbe } from './harness.js';

const RUN_MS = 1200;

interface TlsCase {
  name: string;
  fault: () => Fault;
  code: string | null;
  /** Past the deadline the read's own bound (deadline + 250 ms slack) may fire first: see http-faults.test.ts. */
  orCode?: string;
  errorType: string | null;
}

const cases: TlsCase[] = [
  { name: 'the device closes the connection (FIN) on the ClientHello', fault: () => faults.closeOnHello(), code: 'ECONNRESET', errorType: 'NETWORK_ERROR' },
  { name: 'the device resets the connection (RST) on the ClientHello', fault: () => faults.resetOnHello(), code: 'ECONNRESET', errorType: 'NETWORK_ERROR' },
  { name: 'the device answers the ClientHello with plain HTTP', fault: () => faults.plainHttpOnTlsPort(), code: 'ERR_SSL_WRONG_VERSION_NUMBER', errorType: 'NETWORK_ERROR' },
  { name: 'the device refuses our TLS version (protocol_version alert)', fault: () => faults.refuseTlsVersion(), code: 'ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', errorType: 'NETWORK_ERROR' },
  { name: 'the device accepts and never answers the ClientHello', fault: () => faults.blackhole(RUN_MS + 300), code: null, orCode: 'ETIMEDOUT', errorType: 'TIMEOUT_ERROR' },
];

describe('getTLSCertificate faults', () => {
  const recorded = recordProcessFaults();
  const host = useHost();
  let server: FaultyServer;
  let good: FaultyServer;

  beforeAll(async () => {
    server = await startFaultyServer({ fault: faults.silent() });
    good = await startFaultyServer({ fault: faults.ok(), tls: (await makeTestPki()).selfSigned });
  });
  afterAll(() => Promise.all([server?.close(), good?.close()]));

  for (const c of cases) {
    it(c.name, async () => {
      server.fault = c.fault();
      const p = await probe(host, tlsProbe(443), { ip: '127.0.0.1', portMap: { 443: server.port } }, { timeoutMs: RUN_MS });
      expect(p.code === c.orCode ? c.code : p.code, p.message ?? p.result.message ?? '').toBe(c.code);
      expect(p.result.errorType, p.result.message ?? '').toBe(c.errorType);
      if (p.code) {
        expect(p.shape).toBe('true,null');
        expect(p.message).toContain(`127.0.0.1:443 (dialled as port ${server.port})`);
      }
      expect(p.result.http).toMatchObject([{ method: 'TLS', error: p.code ?? 'ABORTED' }]);
      expect(await server.drained(), 'sockets still open on the device after the run').toBe(0);
      // The host reads the next certificate normally.
      const next = await probe(host, tlsProbe(443), { ip: '127.0.0.1', portMap: { 443: good.port } }, { timeoutMs: RUN_MS });
      expect(next.status).toBe('false DEPTH_ZERO_SELF_SIGNED_CERT');
    });
  }

  it('a port with nothing listening: ECONNREFUSED', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const p = await probe(host, tlsProbe(443), { ip: '127.0.0.1', portMap: { 443: port } }, { timeoutMs: RUN_MS });
    expect([p.code, p.result.errorType, p.shape]).toEqual(['ECONNREFUSED', 'NETWORK_ERROR', 'true,null']);
  });

  it('after all of it, host.close() leaves no socket open and nothing was left unhandled', async () => {
    await host.close();
    for (const s of [server, good]) {
      expect(await s.drained()).toBe(0);
      expect(s.stats().closed).toBe(s.stats().opened);
    }
    expect(recorded).toEqual({ rejections: [], exceptions: [] });
  });
});
