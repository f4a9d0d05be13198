// What a host keeps of an idle device is bounded: the idle-expiring map under DeviceSessions,
// the sessions' two tiers (connections closed after CONNECTION_IDLE_MS, a jar without cookies
// dropped with them, a jar with cookies kept for sessionIdleMs), and through host.run: a device's
// cookies survive between runs close together and are gone once it has been idle longer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { IdleExpiringMap, type EvictReason } from '../../../host/bridges/http/idle-expiring-map.js';
import { CONNECTION_IDLE_MS, DeviceSessions } from '../../../host/bridges/http/sessions.js';
import { createTrustStore } from '../../../host/bridges/tls/trust.js';
import { createHost, type Host } from '../../../host/index.js';

function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('IdleExpiringMap', () => {
  it('lets entries unused for idleMs leave at the next call, and keeps those read since', () => {
    const c = clock();
    const evicted: Array<[string, EvictReason]> = [];
    const map = new IdleExpiringMap<string, number>({ idleMs: 100, maxEntries: 10, now: c.now, onEvict: (k, _v, why) => evicted.push([k, why]) });
    map.set('a', 1);
    map.set('b', 2);
    c.advance(60);
    expect(map.get('a')).toBe(1); // a used again at 60
    c.advance(60); // b idle 120, a idle 60
    map.expire();
    expect(evicted).toEqual([['b', 'idle']]);
    expect(map.has('a')).toBe(true);
    expect(map.has('b')).toBe(false);
    c.advance(100);
    expect(map.get('a')).toBeUndefined();
    expect(evicted).toEqual([['b', 'idle'], ['a', 'idle']]);
    expect(map.size).toBe(0);
  });

  it('holds at most maxEntries, the least recently used leaving first', () => {
    const c = clock();
    const evicted: string[] = [];
    const map = new IdleExpiringMap<string, number>({ idleMs: 1_000, maxEntries: 2, now: c.now, onEvict: (k, _v, why) => evicted.push(`${k}:${why}`) });
    map.set('a', 1);
    map.set('b', 2);
    map.get('a');
    map.set('c', 3);
    expect(evicted).toEqual(['b:full']);
    expect(map.values().sort()).toEqual([1, 3]);
  });

  it('never expires an entry in use: it counts as used when found so', () => {
    const c = clock();
    let busy = true;
    const map = new IdleExpiringMap<string, { n: number }>({ idleMs: 100, maxEntries: 10, now: c.now, inUse: () => busy });
    map.set('a', { n: 1 });
    c.advance(500);
    map.expire();
    expect(map.has('a')).toBe(true);
    busy = false;
    c.advance(99); // last counted as used at the expire() above
    map.expire();
    expect(map.has('a')).toBe(true);
    c.advance(1);
    map.expire();
    expect(map.has('a')).toBe(false);
  });

  it('refuses a bound that is not one', () => {
    expect(() => new IdleExpiringMap({ idleMs: 0, maxEntries: 1 })).toThrow(/idleMs must be a positive number/);
    expect(() => new IdleExpiringMap({ idleMs: 10, maxEntries: 0 })).toThrow(/maxEntries must be a positive integer/);
  });
});

describe('DeviceSessions: what is kept of an idle device', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('closes the connections of a device idle past CONNECTION_IDLE_MS and drops its session when its jar is empty', async () => {
    const c = clock();
    const sessions = new DeviceSessions(createTrustStore(), { maxSessions: 100, sessionIdleMs: 10 * CONNECTION_IDLE_MS, now: c.now });
    const session = sessions.get('dev-1');
    const agent = session.dispatcher(false);
    expect((await (await request(base, { dispatcher: agent })).body.text())).toBe('ok');
    c.advance(CONNECTION_IDLE_MS - 1);
    sessions.get('other');
    expect(agent.closed).toBe(false);
    expect(sessions.size).toBe(2);
    c.advance(1);
    sessions.get('other');
    expect(agent.closed).toBe(true);
    expect(sessions.size).toBe(1); // only 'other' is left
    expect(sessions.get('dev-1')).not.toBe(session);
    await sessions.close();
  });

  it("keeps a device's cookies across gaps shorter than sessionIdleMs, not longer ones", async () => {
    const c = clock();
    const idle = 4 * CONNECTION_IDLE_MS;
    const sessions = new DeviceSessions(createTrustStore(), { maxSessions: 100, sessionIdleMs: idle, now: c.now });
    const first = sessions.get('dev-1');
    await first.jar.setCookie('sid=abc; Path=/', `${base}/`);
    const agent = first.dispatcher(false);
    c.advance(idle - 1); // a long gap between two runs: connections closed, the jar kept
    sessions.get('other');
    expect(agent.closed).toBe(true);
    const second = sessions.get('dev-1');
    expect(second).toBe(first);
    expect(await second.jar.getCookieString(`${base}/`)).toBe('sid=abc');
    c.advance(idle);
    sessions.get('other');
    expect(sessions.get('dev-1')).not.toBe(first);
    await sessions.close();
  });

  it('never drops a session whose request is still going', async () => {
    const c = clock();
    const sessions = new DeviceSessions(createTrustStore(), { maxSessions: 100, sessionIdleMs: CONNECTION_IDLE_MS, now: c.now });
    const session = sessions.get('dev-1');
    const end = session.begin();
    c.advance(5 * CONNECTION_IDLE_MS);
    sessions.get('other');
    expect(sessions.get('dev-1')).toBe(session);
    end();
    c.advance(2 * CONNECTION_IDLE_MS);
    sessions.get('other');
    expect(sessions.get('dev-1')).not.toBe(session);
    await sessions.close();
  });
});

describe('host.run: deviceSessionIdleMs', () => {
  let server: http.Server;
  let port: number;
  const cookiesSeen: string[] = [];
  let host: Host;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      cookiesSeen.push(req.headers.cookie ?? '');
      if (!req.headers.cookie) res.setHeader('set-cookie', `sid=${cookiesSeen.length}; Path=/`);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    host = createHost({ deviceSessionIdleMs: 400, warmIsolates: 1 });
  });
  afterAll(async () => {
    await host.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const run = (id: string) =>
    host.run({
      source: "function get_status() { D.device.http.get({ url: '/', jar: true }, function (e) { if (e) return D.failure(D.errorType.NETWORK_ERROR); D.success(); }); }",
      device: { id, ip: '127.0.0.1', portMap: { 80: port } },
    });

  it("sends a device's cookie on its next run when it comes soon, not after the device sat idle past the bound", async () => {
    expect((await run('d1')).status).toBe('success');
    expect((await run('d1')).status).toBe('success');
    expect(cookiesSeen).toEqual(['', 'sid=1']);
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Another device's run lets the idle session go (expiry happens as the host is used).
    expect((await run('d2')).status).toBe('success');
    expect((await run('d1')).status).toBe('success');
    expect(cookiesSeen).toEqual(['', 'sid=1', '', '']);
  });

  it('refuses a deviceSessionIdleMs that is not a positive integer', () => {
    expect(() => createHost({ deviceSessionIdleMs: 0 })).toThrow(/deviceSessionIdleMs must be an integer >= 1/);
  });
});
