// RunRequest.trustedCAs: CAs one run trusts on top of the host's (the API's trial run against a
// simulated device it started). The run verifies a certificate they sign; the next run on the same
// host, to the same server, does not (its connections were the run's own); bad values are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../host/index.js';
import type { DeviceSpec } from '../../../host/contract/device.js';
import { makeTestPki, type TestPki } from '../../helpers/certs.js';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource } from '../../helpers/host.js';

const PROBE = `function get_status() {
  D.device.http.get({ url: '/echo', protocol: 'https' }, function (err, res) {
    D.success([D.createVariable('code', 'Code', err ? err.code : 'OK ' + res.statusCode)]);
  });
}`;

let pki: TestPki;
let server: DeviceServer;
const hosts: Host[] = [];

beforeAll(async () => {
  pki = await makeTestPki();
  server = await startDeviceServer({ tls: pki.valid });
  // On the host thread (the default) and with the network in the sandbox threads.
  hosts.push(createHost({ threads: 1, warmIsolates: 0 }), createHost({ threads: 1, warmIsolates: 0, networkInThreads: true }));
});
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
  await server?.close();
});

const device = (): DeviceSpec => ({ ip: '127.0.0.1', host: 'localhost', portMap: { 443: server.port } });
const code = async (host: Host, trustedCAs?: string[]) => {
  const result = await runSource(host, PROBE, { device: device(), ...(trustedCAs ? { trustedCAs } : {}) });
  expect(result.status, result.message ?? '').toBe('success');
  return result.variables[0]!.value;
};

describe('a run trusting CAs of its own', () => {
  it.each([0, 1])('verifies with them, and the runs before and after it do not (host %i)', async (i) => {
    const host = hosts[i]!;
    expect(await code(host)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(await code(host, [pki.ca.cert])).toBe('OK 200');
    // Same host, same device and server right after: the trusted connection was not kept for it.
    expect(await code(host)).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    // Another CA than the one that signed it does not help.
    expect(await code(host, [pki.selfSigned.cert])).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  });

  it('refuses what is not a list of PEM certificates', async () => {
    const host = hosts[0]!;
    for (const bad of ['-----BEGIN CERTIFICATE-----', ['not a certificate'], [42], ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n']]) {
      await expect(runSource(host, PROBE, { device: device(), trustedCAs: bad as string[] })).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('trustedCAs') });
    }
  });
});
