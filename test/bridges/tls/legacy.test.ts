// Old devices speak TLS 1.0: their certificate can still be read, and a driver that turned
// verification off can still talk to them; with verification on, the old protocol is refused.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestPki } from '../../helpers/certs.js';
import { runSource, useHost } from '../../helpers/host.js';

describe('devices that only speak TLS 1.0', () => {
  const host = useHost();
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const pki = await makeTestPki();
    server = createServer({ ...pki.selfSigned, minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }, (_req, res) => res.end('old but alive'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));

  const run = (call: string) =>
    runSource(
      host,
      `function get_status() {
        ${call}(function (err, res, body) {
          D.success([D.createVariable('r', 'R', err ? err.code : JSON.stringify(body || res))]);
        });
      }`,
      { device: { ip: '127.0.0.1', portMap: { 443: port } } },
    ).then((r) => r.variables[0]!.value!);

  it('getTLSCertificate reads the certificate (and judges it: self-signed)', async () => {
    const answer = JSON.parse(await run(`D.device.http.getTLSCertificate.bind(null, { port: 443 })`));
    expect(answer).toMatchObject({ valid: false, certError: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(answer.subject).toContain('localhost');
  });

  it('an unverified request gets through; a verified one fails with the TLS error', async () => {
    expect(await run(`D.device.http.get.bind(null, { url: '/', protocol: 'https', rejectUnauthorized: false })`)).toBe('"old but alive"');
    expect(await run(`D.device.http.get.bind(null, { url: '/', protocol: 'https' })`)).toMatch(/^ERR_SSL_/);
  });
});
