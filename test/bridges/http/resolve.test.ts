// RunRequest.resolve: host names pinned to an address (simulated devices and cloud APIs on
// loopback), for the device and for external hosts, with TLS still verifying the name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../host/index.js';
import { makeTestPki, type TestPki } from '../../helpers/certs.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { useHost, runSource } from '../../helpers/host.js';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server.js';

let pki: TestPki;
let plain: DeviceServer;
let tlsServer: TestHttpsServer;
const seenHosts: string[] = [];

beforeAll(async () => {
  pki = await makeTestPki();
  plain = await startDeviceServer();
  // Its certificate names other.example only: a verified request must have asked for that name.
  tlsServer = await startHttpsServer(pki.wrongHost, (req, res) => {
    seenHosts.push(req.headers.host ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
});
afterAll(async () => {
  await plain.close();
  await tlsServer.close();
});

const host = useHost();

const GET_ECHO = `function get_status() {
  D.device.http.get({ url: '/echo?x=1' }, function (error, response) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    D.success([D.createVariable('status', 'Status', response.statusCode)]);
  });
}`;

describe('resolve: the device', () => {
  it('dials a pinned host name at its address, with the port map of the entry', async () => {
    const result = await runSource(host, GET_ECHO, {
      device: { host: 'nas.simulated.test' },
      resolve: { 'NAS.simulated.test': { ip: '127.0.0.1', portMap: { 80: plain.port } } },
    });
    expect(result.status, result.message ?? '').toBe('success');
    expect(result.http[0]?.url).toBe(`http://nas.simulated.test:${plain.port}/echo?x=1`);
    expect(plain.seen.at(-1)).toMatchObject({ url: '/echo?x=1' });
    expect(plain.seen.at(-1)?.headers.host).toBe(`nas.simulated.test:${plain.port}`);
  });

  it('without it, the name goes to DNS and fails there', async () => {
    const result = await runSource(host, GET_ECHO, { device: { host: 'nas.simulated.test', portMap: { 80: plain.port } } });
    expect(result.http[0]?.error).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(result.errorType).toBe('RESOURCE_UNAVAILABLE');
  });
});

describe('resolve: external hosts', () => {
  let verifying: Host;
  beforeAll(() => {
    verifying = createHost({ trustedCAs: [pki.ca.cert] });
  });
  afterAll(() => verifying.close());
  const CLOUD = `function get_status() {
    var api = D.createExternalDevice('other.example');
    api.http.get({ url: '/v1/site', protocol: 'https' }, function (error, response, body) {
      if (error) { console.error(error.code + ' ' + error.message); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
      api.http.getTLSCertificate({}, function (e2, cert) {
        if (e2) { console.error(e2.code); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
        D.success([D.createVariable('path', 'Path', JSON.parse(body).path), D.createVariable('valid', 'Valid', cert.valid)]);
      });
    });
  }`;

  it('reaches a pinned external host over verified TLS: the certificate is checked against the name', async () => {
    const result = await runSource(verifying, CLOUD, {
      device: { ip: '10.255.255.1' },
      resolve: { 'other.example': { ip: '127.0.0.1', portMap: { 443: tlsServer.port } } },
    });
    expect(result.logs).toEqual([]);
    expect(result.status).toBe('success');
    expect(result.variables.map((v) => [v.uid, v.value])).toEqual([
      ['path', '/v1/site'],
      ['valid', 'true'],
    ]);
    expect(seenHosts.at(-1)).toBe(`other.example:${tlsServer.port}`);
  });

  it('a pinned name the certificate does not name fails verification: the pin does not weaken TLS', async () => {
    const source = CLOUD.replace("'other.example'", "'api.cloud.test'");
    const result = await runSource(verifying, source, { device: { ip: '10.255.255.1' }, resolve: { 'api.cloud.test': { ip: '127.0.0.1', portMap: { 443: tlsServer.port } } } });
    expect(result.status).toBe('failure');
    expect(result.logs[0]?.message).toMatch(/^ERR_TLS_CERT_ALTNAME_INVALID /);
  });
});

describe('resolve: bad options', () => {
  it.each([
    [{ 'nas.test': 'not-an-ip' }, /resolve: "nas.test" must map to an IP address or \{ ip, portMap \}/],
    [{ '127.0.0.1': '127.0.0.2' }, /resolve: "127.0.0.1" is not a host name/],
    [{ 'bad name': '127.0.0.1' }, /resolve: "bad name" is not a host name/],
    [{ 'nas.test': { ip: '127.0.0.1', portMap: { 80: 0 } } }, /resolve: "nas.test".portMap\[80\] must be a port from 1 to 65535/],
    [['nas.test'], /resolve: must be an object/],
  ])('%j is refused', async (resolve, message) => {
    await expect(runSource(host, GET_ECHO, { device: { host: 'nas.test' }, resolve: resolve as never })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringMatching(message) });
  });
});
