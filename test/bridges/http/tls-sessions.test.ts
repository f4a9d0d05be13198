// TLS session resumption across a device's runs (host/bridges/http/tls-sessions.ts), against real
// HTTPS servers on 127.0.0.1 with certificates made at test time, which count full and resumed
// handshakes themselves. Each answer closes its connection, so every run dials anew.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startSandboxProcess, type SandboxProcess } from '../../../host/engine/process/index.js';
import { CONNECTION_IDLE_MS, DeviceSessions } from '../../../host/bridges/http/sessions.js';
import { MAX_TLS_ORIGINS, MAX_TLS_SESSION_BYTES } from '../../../host/bridges/http/tls-sessions.js';
import { makeSelfSigned } from '../../../bench/lib/self-signed.js';
import { createTrustStore } from '../../../host/bridges/tls/trust.js';
import { createHost, type Host, type RunRequest, type RunResult } from '../../../host/index.js';
import { makeTestPki } from '../../helpers/certs.js';
import { startCountingHttpsServer, type CountingHttpsServer } from '../../helpers/counting-https-server.js';

const pki = await makeTestPki();

/**
 * One driver for both verification modes (a device's sessions are per driver): it GETs / over
 * HTTPS on port 443 (mapped to the server), verifying unless the parameter says not to.
 */
const DRIVER = `function get_status() {
  var verify = D.getParameter('verify') !== false;
  D.device.http.get({ url: '/', protocol: 'https', port: 443, rejectUnauthorized: verify }, function (error, response) {
    if (error) { console.error(error.code + ': ' + error.message); return D.failure(D.errorType.NETWORK_ERROR); }
    D.success();
  });
}`;

interface Executor {
  run(request: RunRequest): Promise<RunResult>;
}

function runOn(executor: Executor, server: CountingHttpsServer, id: string, rejectUnauthorized = false, extra: Partial<RunRequest> = {}): Promise<RunResult> {
  return executor.run({ source: DRIVER, filename: 'driver.js', parameters: { verify: rejectUnauthorized }, device: { id, host: 'localhost', ip: '127.0.0.1', portMap: { 443: server.port } }, ...extra });
}

async function succeeds(result: Promise<RunResult>): Promise<void> {
  const r = await result;
  expect(r.status, `${r.message ?? ''} ${JSON.stringify(r.logs)}`).toBe('success');
}

const servers: CountingHttpsServer[] = [];
async function server(cred = pki.selfSigned): Promise<CountingHttpsServer> {
  const s = await startCountingHttpsServer(cred);
  servers.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('DeviceSessions: a device keeps its TLS sessions past its connections', () => {
  let now = 1_000;
  const clock = () => now;

  async function get(sessions: DeviceSessions, key: string, port: number): Promise<void> {
    const response = await request(`https://127.0.0.1:${port}/`, { dispatcher: sessions.get(key).dispatcher(false) });
    expect(await response.body.text()).toBe('ok');
  }

  it('resumes after the device sat idle past CONNECTION_IDLE_MS (its agents closed), not with tlsSessionReuse false', async () => {
    const on = await server();
    const off = await server();
    const reusing = new DeviceSessions(createTrustStore(), { maxSessions: 10, now: clock });
    const notReusing = new DeviceSessions(createTrustStore(), { maxSessions: 10, now: clock, tlsSessionReuse: false });
    const first = reusing.get('dev-1');
    await get(reusing, 'dev-1', on.port);
    await get(notReusing, 'dev-1', off.port);
    now += CONNECTION_IDLE_MS; // the next run of a device polled less often than every 12 s
    expect(reusing.get('dev-1')).toBe(first); // kept for its TLS session, though its jar is empty
    await get(reusing, 'dev-1', on.port);
    await get(notReusing, 'dev-1', off.port);
    expect(on.handshakes).toEqual(['full', 'resumed']);
    expect(off.handshakes).toEqual(['full', 'full']);
    await Promise.all([reusing.close(), notReusing.close()]);
  });

  it(`keeps no session larger than ${MAX_TLS_SESSION_BYTES} bytes (a session holds the device's certificate)`, async () => {
    // A certificate with enough names to pass the bound (~8.8 KB sessions; Node itself hands out
    // none past 10 KiB): the device's sessions carry it.
    const names = Array.from({ length: 300 }, (_, i) => `name-${i}.devices.example`);
    const big = await startCountingHttpsServer(await makeSelfSigned(names));
    servers.push(big);
    const sessions = new DeviceSessions(createTrustStore(), { maxSessions: 10, now: clock });
    await get(sessions, 'dev-1', big.port);
    expect(sessions.get('dev-1').tlsSessions).toBe(0);
    await get(sessions, 'dev-1', big.port);
    expect(big.handshakes).toEqual(['full', 'full']);
    await sessions.close();
  });

  it(`keeps the sessions of at most ${MAX_TLS_ORIGINS} origins per device, the least recently used going first`, async () => {
    const origins = await Promise.all(Array.from({ length: MAX_TLS_ORIGINS + 1 }, () => server()));
    const sessions = new DeviceSessions(createTrustStore(), { maxSessions: 10, now: clock });
    for (const s of origins) await get(sessions, 'dev-1', s.port);
    expect(sessions.get('dev-1').tlsSessions).toBe(MAX_TLS_ORIGINS);
    // The first origin's session went; the last's is resumed.
    await get(sessions, 'dev-1', origins[0]!.port);
    await get(sessions, 'dev-1', origins.at(-1)!.port);
    expect(origins[0]!.handshakes).toEqual(['full', 'full']);
    expect(origins.at(-1)!.handshakes).toEqual(['full', 'resumed']);
    await sessions.close();
  });
});

describe('host.run: TLS sessions across runs', () => {
  const hosts: Host[] = [];
  const host = (options: Parameters<typeof createHost>[0] = {}) => {
    const h = createHost({ warmIsolates: 1, threads: 1, ...options });
    hosts.push(h);
    return h;
  };
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 1 } });
  });
  afterAll(async () => {
    await Promise.all([...hosts.map((h) => h.close()), sandbox.close()]);
  });

  it('resumes on the next run after the connections closed: embedded, network in threads, sandbox process, kept device state', async () => {
    const embedded = host();
    const threaded = host({ networkInThreads: true });
    const stateful = host();
    const paths: Array<[Executor, CountingHttpsServer, Partial<RunRequest>]> = [
      [embedded, await server(), {}],
      [threaded, await server(), {}],
      [sandbox, await server(), {}],
      // The scale-out workers' path: the run's jars come from its kept state, connections from the host.
      [stateful, await server(), { deviceState: null }],
    ];
    await Promise.all(paths.map(([executor, s, extra]) => succeeds(runOn(executor, s, 'd1', false, extra))));
    // Past the connections' life: the agents are closed at the next use, the sessions stay.
    await new Promise((resolve) => setTimeout(resolve, CONNECTION_IDLE_MS + 500));
    await Promise.all(paths.map(([executor, s, extra]) => succeeds(runOn(executor, s, 'd1', false, extra))));
    expect(paths.map(([, s]) => s.handshakes)).toEqual(paths.map(() => ['full', 'resumed']));
  }, 60_000);

  it('never offers one device the session of another on the same server', async () => {
    const h = host();
    const s = await server();
    await succeeds(runOn(h, s, 'a'));
    await succeeds(runOn(h, s, 'b'));
    await succeeds(runOn(h, s, 'a'));
    await succeeds(runOn(h, s, 'b'));
    expect(s.handshakes).toEqual(['full', 'full', 'resumed', 'resumed']);
  });

  it('keeps the sessions of each verification mode apart', async () => {
    const h = host({ trustedCAs: [pki.ca.cert] });
    const s = await server(pki.valid);
    await succeeds(runOn(h, s, 'a', false));
    await succeeds(runOn(h, s, 'a', true));
    await succeeds(runOn(h, s, 'a', true));
    await succeeds(runOn(h, s, 'a', false));
    expect(s.handshakes).toEqual(['full', 'full', 'resumed', 'resumed']);
  });

  it('gives a run with trustedCAs of its own no session of the host', async () => {
    const h = host();
    const s = await server(pki.valid);
    await succeeds(runOn(h, s, 'a', true, { trustedCAs: [pki.ca.cert] }));
    await succeeds(runOn(h, s, 'a', true, { trustedCAs: [pki.ca.cert] }));
    await succeeds(runOn(h, s, 'a', false));
    expect(s.handshakes).toEqual(['full', 'full', 'full']);
  });

  it("drops the sessions of a device whose certificate changed: the new one is verified, not resumed past", async () => {
    const h = host({ trustedCAs: [pki.ca.cert] });
    const s = await server(pki.valid);
    await succeeds(runOn(h, s, 'a', true)); // a verified session, made with the CA's certificate
    // The device now presents a self-signed certificate, and still takes its old tickets.
    s.setCredential(pki.selfSigned);
    await succeeds(runOn(h, s, 'a', false)); // a full handshake: it shows the new certificate
    const verified = await runOn(h, s, 'a', true);
    expect(verified.status).toBe('failure');
    expect(JSON.stringify(verified.logs)).toMatch(/self-signed certificate/);
    // The third handshake never completes on the server: the host refused the certificate.
    expect(s.handshakes).toEqual(['full', 'full']);
  });

  it("drops the device's sessions of every driver when one driver sees its certificate change", async () => {
    const h = host({ trustedCAs: [pki.ca.cert] });
    const s = await server(pki.valid);
    await succeeds(runOn(h, s, 'a', true)); // this driver's verified session, of the CA's certificate
    s.setCredential(pki.selfSigned);
    // Another driver of the same device: a session of its own, so a full handshake that shows the new certificate.
    await succeeds(runOn(h, s, 'a', false, { source: `${DRIVER}\n// another driver` }));
    const verified = await runOn(h, s, 'a', true);
    expect(verified.status).toBe('failure');
    expect(JSON.stringify(verified.logs)).toMatch(/self-signed certificate/);
    expect(s.handshakes).toEqual(['full', 'full']);
  });

  it('keeps no session past deviceSessionIdleMs, nor past maxDeviceSessions', async () => {
    const idle = host({ deviceSessionIdleMs: 300 });
    const s1 = await server();
    await succeeds(runOn(idle, s1, 'a'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await succeeds(runOn(idle, s1, 'b')); // expiry happens as the host is used
    await succeeds(runOn(idle, s1, 'a'));
    expect(s1.handshakes).toEqual(['full', 'full', 'full']);

    const one = host({ maxDeviceSessions: 1 });
    const s2 = await server();
    await succeeds(runOn(one, s2, 'a'));
    await succeeds(runOn(one, s2, 'b')); // a's session goes to make room
    await succeeds(runOn(one, s2, 'a'));
    expect(s2.handshakes).toEqual(['full', 'full', 'full']);
  });

  it('refuses a tlsSessionReuse that is not a boolean', () => {
    expect(() => createHost({ tlsSessionReuse: 'yes' as unknown as boolean })).toThrow(/tlsSessionReuse must be true or false/);
  });
});
