// What a driver author reads when a request goes wrong in the usual ways: the time a request
// cut by the run's deadline really waited, a certificate that does not name the address the
// device was reached at, and HTTP / HTTPS spoken to the other kind of port. Real servers on
// loopback, certificates made at test time; through the host and the CLI's text output.
import { createServer as createHttpServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../host/index.js';
import { makeTestPki, type TestPki } from '../../helpers/certs.js';
import { runCli } from '../../helpers/cli.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource } from '../../helpers/host.js';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server.js';

let pki: TestPki;
let plain: DeviceServer;
let tlsOther: TestHttpsServer; // certificate for other.example only
let tlsLocal: TestHttpsServer; // certificate for localhost / 127.0.0.1
let alerting: net.Server; // a TLS stack that answers anything it cannot read with a TLS alert
let nginxLike: Server; // plain HTTP on its HTTPS port answered with nginx's 400 page
let host: Host;
const work = mkdtempSync(path.join(tmpdir(), 'driverbox-messages-'));
let caFile: string;

const portOf = (server: net.Server) => (server.address() as AddressInfo).port;
const listen = (server: net.Server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

beforeAll(async () => {
  pki = await makeTestPki();
  plain = await startDeviceServer();
  tlsOther = await startHttpsServer(pki.wrongHost);
  tlsLocal = await startHttpsServer(pki.valid);
  alerting = net.createServer((socket) => {
    socket.once('data', () => socket.end(Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46]))); // alert: fatal, protocol_version
    socket.on('error', () => {});
  });
  await listen(alerting);
  nginxLike = createHttpServer((_req, res) => {
    res.writeHead(400, { 'content-type': 'text/html' });
    res.end('<html><head><title>400 The plain HTTP request was sent to HTTPS port</title></head><body>…</body></html>');
  });
  await listen(nginxLike);
  caFile = path.join(work, 'ca.pem');
  writeFileSync(caFile, pki.ca.cert);
  host = createHost({ trustedCAs: [pki.ca.cert] });
});
afterAll(async () => {
  await host.close();
  await plain.close();
  await tlsOther.close();
  await tlsLocal.close();
  alerting.close();
  nginxLike.closeAllConnections();
  nginxLike.close();
  rmSync(work, { recursive: true, force: true });
});

/** One GET; an error is logged as "CODE: message" and fails the run. */
function getDriver(options: string): string {
  return `function get_status() {
    D.device.http.get(${options}, function (err, res) {
      if (err) { console.error(err.code + ': ' + err.message); return D.failure(D.errorType.RESOURCE_UNAVAILABLE); }
      D.success([D.createVariable('status', 'Status', res.statusCode)]);
    });
  }`;
}

function driverFile(name: string, source: string): string {
  const file = path.join(work, name);
  writeFileSync(file, source);
  return file;
}

describe('a request the run\'s deadline cut short', () => {
  it('shows the time it waited, up to the run\'s end, not 0 ms', async () => {
    const result = await runSource(host, getDriver(`{ url: '/slow?ms=5000' }`), { device: { ip: '127.0.0.1', portMap: { 80: plain.port } }, limits: { timeoutMs: 400 } });
    expect(result.errorType).toBe('TIMEOUT_ERROR');
    const [cut] = result.http;
    expect(cut).toMatchObject({ error: 'ABORTED', status: null });
    // It was in flight until the deadline: it ended no earlier than 400 ms after the run began.
    expect(cut!.startedMs + cut!.durationMs).toBeGreaterThanOrEqual(400);

    const file = driverFile('slow.js', getDriver(`{ url: '/slow?ms=5000' }`));
    const cli = await runCli(['run', file, '--device-ip', '127.0.0.1', '--port-map', `80=${plain.port}`, '--timeout', '400'], { cwd: work });
    expect(cli.code).toBe(1);
    const shown = /GET http:\/\/127\.0\.0\.1:\d+\/slow\?ms=5000 → ABORTED \((\d+\.\d) ms/.exec(cli.stdout);
    expect(shown, cli.stdout).not.toBeNull();
    expect(Number(shown![1])).toBeGreaterThan(0);
  });
});

describe('a certificate that does not name the address the device was reached at', () => {
  it('with --ca and the device by IP: the hint names the certificate\'s names and the flags that reach it by one', async () => {
    const file = driverFile('tls.js', getDriver(`{ url: '/', protocol: 'https' }`));
    const byIp = await runCli(['run', file, '--device-ip', '127.0.0.1', '--port-map', `443=${tlsOther.port}`, '--ca', caFile], { cwd: work });
    expect(byIp.code).toBe(1);
    expect(byIp.stdout).toContain(
      `ERR_TLS_CERT_ALTNAME_INVALID: GET https://127.0.0.1:${tlsOther.port}: TLS failure: the certificate is for other.example, not 127.0.0.1: reach the device by a name it has, e.g. driverbox run --device-host other.example --resolve other.example=127.0.0.1 (in code: the device's host and the run's resolve option)`,
    );
    // The certificate is trusted (--ca): turning verification off is not the advice.
    expect(byIp.stdout).not.toContain('rejectUnauthorized');

    // Doing what it says works.
    const byName = await runCli(['run', file, '--device-host', 'other.example', '--resolve', `other.example=127.0.0.1,443=${tlsOther.port}`, '--ca', caFile], { cwd: work });
    expect(byName.code, byName.stdout).toBe(0);
  });

  it('reached by another name pinned with resolve: the hint dials the certificate\'s name at the pin', async () => {
    const result = await runSource(host, getDriver(`{ url: '/', protocol: 'https' }`), {
      device: { host: 'nas.lab' },
      resolve: { 'nas.lab': { ip: '127.0.0.1', portMap: { 443: tlsOther.port } } },
    });
    expect(result.logs[0]!.message).toContain('the certificate is for other.example, not nas.lab: reach the device by a name it has, e.g. driverbox run --device-host other.example --resolve other.example=127.0.0.1 (');
  });

  it('a certificate of an unknown CA still points at --ca and rejectUnauthorized', async () => {
    const untrusted = createHost();
    try {
      const result = await runSource(untrusted, getDriver(`{ url: '/', protocol: 'https' }`), { device: { ip: '127.0.0.1', portMap: { 443: tlsLocal.port } } });
      expect(result.logs[0]!.message).toMatch(/^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN): .*TLS failure: .*\(trust the CA that signed it with --ca <ca\.pem> or the trustedCAs option; a driver may pass rejectUnauthorized: false/);
    } finally {
      await untrusted.close();
    }
  });
});

describe('HTTP and HTTPS spoken to the other kind of port', () => {
  const device = (port: number, from = 80) => ({ ip: '127.0.0.1', portMap: { [from]: port } });

  it('plain HTTP to a TLS server that closes without a word (node, OpenSSL): the device answered with TLS', async () => {
    const result = await runSource(host, getDriver(`{ url: '/' }`), { device: device(tlsLocal.port) });
    expect(result.logs[0]!.message).toBe(`ECONNRESET: GET http://127.0.0.1:${tlsLocal.port}: the device answered with TLS on port ${tlsLocal.port}: use https (protocol: 'https')`);
    expect(result.http[0]).toMatchObject({ error: 'ECONNRESET', errorMessage: expect.stringContaining('answered with TLS') });
  });

  it('plain HTTP to a TLS server that answers with a TLS alert: the same, from the bytes it sent', async () => {
    const result = await runSource(host, getDriver(`{ url: '/' }`), { device: device(portOf(alerting)) });
    expect(result.logs[0]!.message).toMatch(new RegExp(`^NETWORK_ERROR: GET http://127\\.0\\.0\\.1:${portOf(alerting)}: the device answered with TLS on port ${portOf(alerting)}: use https \\(protocol: 'https'\\)$`));
  });

  it('a device that only closes the connection is not taken for TLS', async () => {
    const result = await runSource(host, getDriver(`{ url: '/reset' }`), { device: device(plain.port) });
    expect(result.logs[0]!.message).toMatch(/^ECONNRESET: .*the device closed the connection/);
  });

  it('plain HTTP answered with nginx\'s 400 page: a response, with a hint in the transcript and the text output', async () => {
    const result = await runSource(host, getDriver(`{ url: '/' }`), { device: device(portOf(nginxLike)) });
    expect(result.variables[0]!.value).toBe('400');
    expect(result.http[0]!.hint).toBe(`GET http://127.0.0.1:${portOf(nginxLike)}: the device answered 400: port ${portOf(nginxLike)} is its HTTPS port: use https (protocol: 'https')`);
    const cli = await runCli(['run', driverFile('nginx.js', getDriver(`{ url: '/' }`)), '--device-ip', '127.0.0.1', '--port-map', `80=${portOf(nginxLike)}`], { cwd: work });
    expect(cli.stdout).toContain(`→ 400`);
    expect(cli.stdout).toContain(`is its HTTPS port: use https (protocol: 'https')`);
  });

  it('HTTPS to a plain HTTP port: the device answered plain HTTP, in the CLI\'s output too', async () => {
    const result = await runSource(host, getDriver(`{ url: '/', protocol: 'https' }`), { device: device(plain.port, 443) });
    expect(result.logs[0]!.message).toMatch(
      new RegExp(`^ERR_SSL_[A-Z_]+: GET https://127\\.0\\.0\\.1:${plain.port}: the device answered plain HTTP on port ${plain.port}, not TLS: use http \\(protocol: 'http'\\), or the port of its HTTPS server$`),
    );
    const cli = await runCli(['run', driverFile('https.js', getDriver(`{ url: '/', protocol: 'https' }`)), '--device-ip', '127.0.0.1', '--port-map', `443=${plain.port}`], { cwd: work });
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(`the device answered plain HTTP on port ${plain.port}, not TLS`);
    expect(cli.stdout).not.toContain('rejectUnauthorized');
  });
});
