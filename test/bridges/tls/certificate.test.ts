// D.device.http.getTLSCertificate against real loopback servers presenting certificates of
// a test PKI made at test time: valid, untrusted, self-signed, expired, for another host;
// and ports that refuse, do not speak TLS, or never answer.
import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceSpec, Host } from '../../../host/index.js';
import { makeTestPki } from '../../helpers/certs.js';
import { runSource, useHost } from '../../helpers/host.js';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server.js';

const pki = await makeTestPki();

interface Reading {
  error: { code: string; message: string } | null;
  certificate: Record<string, unknown> | null;
}

/** Runs a driver that calls getTLSCertificate(options) and logs what its callback got. */
async function readVia(host: Host, device: DeviceSpec, options: Record<string, unknown> = { port: 443 }): Promise<Reading> {
  const source = `function get_status() {
    D.device.http.getTLSCertificate(${JSON.stringify(options)}, function (error, certificate) {
      console.log(JSON.stringify({ error: error ? { code: error.code, message: error.message } : null, certificate: certificate }));
      D.success();
    });
  }`;
  const result = await runSource(host, source, { device });
  expect(result.status, result.message ?? '').toBe('success');
  expect(result.logs).toHaveLength(1);
  return JSON.parse(result.logs[0]!.message) as Reading;
}

const byIp = (port: number): DeviceSpec => ({ ip: '127.0.0.1', portMap: { 443: port } });
const byName = (port: number): DeviceSpec => ({ host: 'localhost', ip: '127.0.0.1', portMap: { 443: port } });

/** A port that was just free: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('D.device.http.getTLSCertificate', () => {
  const trusting = useHost({ trustedCAs: [pki.ca.cert] });
  const untrusting = useHost();
  const servers: Record<'valid' | 'expired' | 'wrongHost' | 'selfSigned', TestHttpsServer> = {} as never;
  let plainHttp: http.Server;
  let plainHttpPort = 0;

  beforeAll(async () => {
    for (const name of ['valid', 'expired', 'wrongHost', 'selfSigned'] as const) servers[name] = await startHttpsServer(pki[name]);
    plainHttp = http.createServer((_request, response) => response.end('not TLS'));
    await new Promise<void>((resolve) => plainHttp.listen(0, '127.0.0.1', resolve));
    plainHttpPort = (plainHttp.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all(Object.values(servers).map((server) => server.close()));
    plainHttp.closeAllConnections();
    await new Promise<void>((resolve) => plainHttp.close(() => resolve()));
  });

  it('describes a valid certificate of a trusted CA, with every field', async () => {
    const { error, certificate } = await readVia(trusting, byName(servers.valid.port));
    expect(error).toBeNull();
    const x509 = new X509Certificate(pki.valid.cert);
    expect(certificate).toMatchObject({
      issuer: 'driverbox', // the issuer's organization (O), as the public collector gives it
      issuerDN: 'CN=driverbox test CA, O=driverbox',
      expiry: x509.validTo, // Node's valid_to form, e.g. "Nov 20 01:09:24 2027 GMT"
      valid: true,
      certError: null,
      subject: 'CN=localhost',
      subjectAltNames: ['DNS:localhost', 'IP:127.0.0.1'],
      validFrom: x509.validFrom,
      fingerprint256: x509.fingerprint256,
      serialNumber: x509.serialNumber,
    });
    expect(certificate!.expiry).toMatch(/^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} GMT$/);
    expect(certificate!.daysToExpiry).toBeGreaterThanOrEqual(362);
    expect(certificate!.daysToExpiry).toBeLessThanOrEqual(364);
  });

  it('checks the IP against the certificate when the device has no host name', async () => {
    const { certificate } = await readVia(trusting, byIp(servers.valid.port));
    expect(certificate).toMatchObject({ valid: true, certError: null });
  });

  it('says the same certificate is not valid when its CA is not trusted', async () => {
    const { error, certificate } = await readVia(untrusting, byName(servers.valid.port));
    expect(error).toBeNull();
    expect(certificate).toMatchObject({ valid: false, certError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', subject: 'CN=localhost' });
  });

  it('reports a self-signed certificate as DEPTH_ZERO_SELF_SIGNED_CERT, with its fields', async () => {
    const { certificate } = await readVia(trusting, byName(servers.selfSigned.port));
    expect(certificate).toMatchObject({
      valid: false,
      certError: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      issuer: 'localhost', // no O in its issuer name: the CN stands in
      issuerDN: 'CN=localhost',
      fingerprint256: new X509Certificate(pki.selfSigned.cert).fingerprint256,
    });
  });

  it('reports an expired certificate as CERT_HAS_EXPIRED, with negative days to expiry', async () => {
    const { certificate } = await readVia(trusting, byName(servers.expired.port));
    expect(certificate).toMatchObject({ valid: false, certError: 'CERT_HAS_EXPIRED', expiry: new X509Certificate(pki.expired.cert).validTo });
    expect(certificate!.daysToExpiry).toBeLessThanOrEqual(-365);
    expect(certificate!.daysToExpiry).toBeGreaterThanOrEqual(-367);
  });

  it('reports a certificate for another host as ERR_TLS_CERT_ALTNAME_INVALID, by name and by IP', async () => {
    for (const device of [byName(servers.wrongHost.port), byIp(servers.wrongHost.port)]) {
      const { certificate } = await readVia(trusting, device);
      expect(certificate).toMatchObject({ valid: false, certError: 'ERR_TLS_CERT_ALTNAME_INVALID', subjectAltNames: ['DNS:other.example'] });
    }
  });

  it('uses port 443 by default, through the device port map', async () => {
    const { error, certificate } = await readVia(trusting, byName(servers.valid.port), {});
    expect(error).toBeNull();
    expect(certificate).toMatchObject({ valid: true, subject: 'CN=localhost' });
  });

  it('passes a port that does not speak TLS to the callback as an error with a code', async () => {
    const { error, certificate } = await readVia(trusting, byIp(plainHttpPort));
    expect(certificate).toBeNull();
    expect(error!.code).toMatch(/^[A-Z_]+$/);
    expect(error!.message).toContain('127.0.0.1:443');
  });

  it('passes a refused connection to the callback as ECONNREFUSED, naming host and port', async () => {
    const { error, certificate } = await readVia(trusting, byIp(await closedPort()));
    expect(certificate).toBeNull();
    expect(error!.code).toBe('ECONNREFUSED');
    expect(error!.message).toContain('127.0.0.1:443');
  });

  it('connects to the host name by default and to the IP with useHostname: false', async () => {
    const port = await closedPort();
    const byHostName = await readVia(trusting, byName(port));
    expect(byHostName.error!.message).toContain('localhost:443');
    const byAddress = await readVia(trusting, byName(port), { port: 443, useHostname: false });
    expect(byAddress.error!.message).toContain('127.0.0.1:443');
    // …and checks the certificate against the IP then (no SNI, IP SAN).
    const { certificate } = await readVia(trusting, byName(servers.valid.port), { useHostname: false });
    expect(certificate).toMatchObject({ valid: true, certError: null });
  });

  it('closes the connection when the run ends before the handshake does', async () => {
    const sockets = new Set<net.Socket>();
    let connections = 0;
    const silent = net.createServer((socket) => {
      connections++;
      sockets.add(socket);
      socket.resume(); // read (and ignore) the ClientHello, so the client's close is seen
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const source = `function get_status() {
        D.device.http.getTLSCertificate({}, function () { D.failure(D.errorType.GENERIC_ERROR); });
        D.q.delay(300).then(function () { D.success(); });
      }`;
      const result = await runSource(trusting, source, { device: byIp((silent.address() as net.AddressInfo).port) });
      expect(result.status).toBe('success');
      expect(connections).toBe(1);
      const closedBy = Date.now() + 2000;
      while (sockets.size > 0 && Date.now() < closedBy) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(sockets.size).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
