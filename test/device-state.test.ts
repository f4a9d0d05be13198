// The kept state of a device's runs (its cookie jars) as plain data that moves between agents:
// RunRequest.deviceState in, RunResult.deviceState out, across the sandbox process, through a
// DeviceStateStore with withSharedDeviceState; bounded; per driver; and the embedded mode, which
// keeps jars in the host's memory, unchanged.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHost,
  DEVICE_STATE_VERSION,
  MAX_DEVICE_STATE_BYTES,
  MAX_DEVICE_STATE_SESSIONS,
  MemoryDeviceStateStore,
  mergeDeviceState,
  storeDeviceId,
  withSharedDeviceState,
  type DeviceSessionState,
  type DeviceStateSnapshot,
  type DeviceStateStore,
  type Host,
  type RunRequest,
  type RunResult,
} from '../host/index.js';
import { startSandboxProcess, type SandboxProcess } from '../host/engine/process/index.js';
import { checkReturnedState } from '../host/engine/process/returned-state.js';
import { MAX_COOKIES_PER_DOMAIN } from '../host/bridges/http/cookie-store.js';
import { startDeviceServer, type DeviceServer } from './helpers/device-server.js';

/** GETs the `path` parameter with the jar and reports the status. `tag` makes another driver of the same code. */
const driver = (tag = 'a') => `// driver ${tag}
function get_status() {
  D.device.http.get({ url: D.getParameter('path'), jar: true }, function (err, res) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR, err.message);
    D.success([D.createVariable('status', 'Status', String(res.statusCode))]);
  });
}`;

let server: DeviceServer;
let logins = 0;
/** Answers of /hold, held until the end: a run waiting on one is in flight. */
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = await startDeviceServer({
    route(req, res) {
      const path = new URL(req.url, 'http://device').pathname;
      if (path === '/login') {
        // A new session id on every login: a test can tell which login a cookie came from.
        res.writeHead(200, { 'set-cookie': `session=s${++logins}; Path=/; HttpOnly` });
        res.end('welcome');
        return true;
      }
      if (path === '/hold') {
        held.push(res);
        return true;
      }
      if (path === '/logout') {
        res.writeHead(200, { 'set-cookie': 'session=; Path=/; Max-Age=0' });
        res.end('bye');
        return true;
      }
      return false;
    },
  });
});
afterAll(async () => {
  for (const res of held.splice(0)) if (!res.writableEnded) res.end();
  await server.close();
});

/** The store's device 7 of agent 1, as buildRunRequest names it, at the test server. */
const DEVICE_ID = 7;
const device = () => ({ id: `agent-1-device-${DEVICE_ID}`, ip: '127.0.0.1', portMap: { 80: server.port } });

function request(path: string, extra: Partial<RunRequest> = {}): RunRequest {
  return { source: driver(), filename: 'login.js', parameters: { path }, device: device(), ...extra };
}

let tag = 0;
/** A path no other request used: the test finds its own request among those the server saw. */
const unique = (name: string) => `/data?${name}=${++tag}`;

/** The Cookie header the device got on the request for `url` (exactly one such request). */
function cookieSent(url: string): string | undefined {
  const matches = server.seen.filter((s) => s.url === url);
  expect(matches, `requests for ${url}`).toHaveLength(1);
  return matches[0]!.headers.cookie;
}

/** The device state store with every load and save counted. */
function countingStore(inner: DeviceStateStore = new MemoryDeviceStateStore()) {
  const calls = { loads: 0, saves: 0 };
  const store: DeviceStateStore & { calls: typeof calls } = {
    calls,
    load: (id) => {
      calls.loads++;
      return inner.load(id);
    },
    save: (id, state) => {
      calls.saves++;
      return inner.save(id, state);
    },
  };
  return store;
}

function ok(result: RunResult): RunResult {
  expect(result.status, JSON.stringify({ message: result.message, warnings: result.warnings })).toBe('success');
  return result;
}

describe('device state across hosts (two agents)', () => {
  const hosts: Host[] = [];
  const newHost = () => {
    const host = createHost({ threads: 1, warmIsolates: 1 });
    hosts.push(host);
    return host;
  };
  afterAll(() => Promise.all(hosts.map((h) => h.close())));

  it('a login made on one host is sent by another host given the saved state, and not without it', async () => {
    const store = countingStore();
    const agentA = withSharedDeviceState(newHost(), store);
    const hostB = newHost();
    const agentB = withSharedDeviceState(hostB, store);

    const login = ok(await agentA.run(request('/login')));
    const session = `session=s${logins}`;
    // The caller of the wrapper does not get the state: the store has it.
    expect(login).not.toHaveProperty('deviceState');
    const saved = await store.load(DEVICE_ID);
    expect(saved?.sessions).toHaveLength(1);
    expect(saved!.sessions[0]!.key).toContain(`id:agent-1-device-${DEVICE_ID}`);
    expect(saved!.sessions[0]!.cookies).toMatchObject([{ key: 'session', value: `s${logins}`, httpOnly: true }]);

    const withState = unique('other-agent');
    ok(await agentB.run(request(withState)));
    expect(cookieSent(withState)).toBe(session);

    // The same host without the state (its memory jar never saw the login): no cookie.
    const embedded = unique('embedded-b');
    ok(await hostB.run(request(embedded)));
    expect(cookieSent(embedded)).toBeUndefined();
    // Nor with a state that has nothing kept yet.
    const fresh = unique('fresh-state');
    const result = ok(await hostB.run(request(fresh, { deviceState: null })));
    expect(cookieSent(fresh)).toBeUndefined();
    expect(result.deviceState).toEqual({ version: DEVICE_STATE_VERSION, sessions: [] });
  });

  it('the host hands the state in and out without the wrapper: the result carries the sessions the run changed', async () => {
    const hostA = newHost();
    const hostB = newHost();
    const login = ok(await hostA.run(request('/login', { deviceState: null })));
    const value = `s${logins}`;
    expect(login.deviceState?.sessions).toHaveLength(1);
    expect(login.deviceState!.sessions[0]!.cookies).toMatchObject([{ key: 'session', value }]);
    // Plain data: it survives JSON, as a database keeps it.
    const kept = JSON.parse(JSON.stringify(login.deviceState)) as DeviceStateSnapshot;
    const read = unique('state-in');
    const again = ok(await hostB.run(request(read, { deviceState: kept })));
    expect(cookieSent(read)).toBe(`session=${value}`);
    // Reading changed no cookie: nothing to save.
    expect(again.deviceState).toEqual({ version: DEVICE_STATE_VERSION, sessions: [] });
  });

  it("a run given a state neither uses nor changes the host's memory jars", async () => {
    const host = newHost();
    ok(await host.run(request('/login')));
    const inMemory = `session=s${logins}`;
    const shared = unique('shared-no-memory');
    ok(await host.run(request(shared, { deviceState: null })));
    expect(cookieSent(shared)).toBeUndefined();
    // A login in a run given a state lands in its state, not in the host's jar.
    const sharedLogin = ok(await host.run(request('/login', { deviceState: null })));
    expect(sharedLogin.deviceState!.sessions[0]!.cookies[0]).toMatchObject({ value: `s${logins}` });
    const embedded = unique('memory-after');
    ok(await host.run(request(embedded)));
    expect(cookieSent(embedded)).toBe(inMemory);
  });

  it('embedded mode (no deviceState): the jar is kept in the host between runs, and no result carries a state', async () => {
    const host = newHost();
    const login = ok(await host.run(request('/login')));
    const later = unique('embedded');
    const read = ok(await host.run(request(later)));
    expect(cookieSent(later)).toBe(`session=s${logins}`);
    expect(login).not.toHaveProperty('deviceState');
    expect(read).not.toHaveProperty('deviceState');
  });

  it("a jar one driver logged in is never another driver's", async () => {
    const store = new MemoryDeviceStateStore();
    const agentA = withSharedDeviceState(newHost(), store);
    const agentB = withSharedDeviceState(newHost(), store);
    ok(await agentA.run(request('/login', { source: driver('a') })));
    const loginA = `session=s${logins}`;

    const otherDriver = unique('driver-b');
    ok(await agentB.run(request(otherDriver, { source: driver('b') })));
    expect(cookieSent(otherDriver)).toBeUndefined();
    // The same driver on the other agent has it.
    const sameDriver = unique('driver-a');
    ok(await agentB.run(request(sameDriver, { source: driver('a') })));
    expect(cookieSent(sameDriver)).toBe(loginA);

    // Driver b's own login is kept beside a's, under its own key; each still gets its own.
    ok(await agentB.run(request('/login', { source: driver('b') })));
    const loginB = `session=s${logins}`;
    const keys = (await store.load(DEVICE_ID))!.sessions.map((s) => s.key);
    expect(keys).toHaveLength(2);
    expect(new Set(keys.map((k) => k.split('|driver:')[0])).size).toBe(1); // same device and credentials
    const readA = unique('read-a');
    const readB = unique('read-b');
    ok(await agentA.run(request(readA, { source: driver('a') })));
    ok(await agentA.run(request(readB, { source: driver('b') })));
    expect(cookieSent(readA)).toBe(loginA);
    expect(cookieSent(readB)).toBe(loginB);
  });

  it('saves only what a run changed; a logout removes the kept session', async () => {
    const store = countingStore();
    const agent = withSharedDeviceState(newHost(), store);
    ok(await agent.run(request('/login')));
    expect(store.calls).toEqual({ loads: 1, saves: 1 });
    ok(await agent.run(request(unique('unchanged'))));
    expect(store.calls).toEqual({ loads: 2, saves: 1 }); // the jar did not change: no write
    ok(await agent.run(request('/logout')));
    expect(store.calls.saves).toBe(2);
    expect(await store.load(DEVICE_ID)).toBeNull();
    const after = unique('after-logout');
    ok(await agent.run(request(after)));
    expect(cookieSent(after)).toBeUndefined();
  });

  it('two runs of one device at once: per key, the last save wins; other keys stay', async () => {
    const store = new MemoryDeviceStateStore();
    const [hostA, hostB] = [newHost(), newHost()];
    // Driver b's session, already kept.
    const b = ok(await hostA.run(request('/login', { source: driver('b'), deviceState: null })));
    await store.save(DEVICE_ID, b.deviceState!);
    const loginB = `session=s${logins}`;
    // Both agents load the same state, then both log driver a in.
    const start = await store.load(DEVICE_ID);
    const [first, second] = await Promise.all([
      hostA.run(request('/login', { deviceState: start })),
      hostB.run(request('/login', { deviceState: start })),
    ]);
    const valueOf = (r: RunResult) => r.deviceState!.sessions[0]!.cookies[0]!.value;
    expect(valueOf(first)).not.toBe(valueOf(second));
    await store.save(DEVICE_ID, second.deviceState!);
    await store.save(DEVICE_ID, first.deviceState!);
    const readA = unique('last-writer');
    const readB = unique('other-key');
    ok(await hostB.run(request(readA, { deviceState: await store.load(DEVICE_ID) })));
    ok(await hostB.run(request(readB, { source: driver('b'), deviceState: await store.load(DEVICE_ID) })));
    expect(cookieSent(readA)).toBe(`session=${String(valueOf(first))}`);
    expect(cookieSent(readB)).toBe(loginB);
  });
});

describe('device state bounds', () => {
  let host: Host;
  beforeAll(() => {
    host = createHost({ threads: 1, warmIsolates: 1 });
  });
  afterAll(() => host.close());

  /** The key of the test device's session for driver a, as a real run saves it. */
  async function sessionKey(): Promise<string> {
    const login = ok(await host.run(request('/login', { deviceState: null })));
    return login.deviceState!.sessions[0]!.key;
  }

  const cookie = (key: string, value: string) => ({ key, value, domain: '127.0.0.1', path: '/', hostOnly: true, creation: new Date().toISOString() });

  it('refuses a state past its bytes or sessions, or of another shape, before the run', async () => {
    const big: DeviceStateSnapshot = {
      version: DEVICE_STATE_VERSION,
      sessions: [{ key: 'k', savedAt: 1, cookies: [cookie('big', 'x'.repeat(MAX_DEVICE_STATE_BYTES))] }],
    };
    await expect(host.run(request('/login', { deviceState: big }))).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/bytes of JSON, more than the 262144/) });
    const many: DeviceStateSnapshot = {
      version: DEVICE_STATE_VERSION,
      sessions: Array.from({ length: MAX_DEVICE_STATE_SESSIONS + 1 }, (_, i) => ({ key: `k${i}`, savedAt: i, cookies: [] })),
    };
    await expect(host.run(request('/login', { deviceState: many }))).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/33 sessions/) });
    await expect(host.run(request('/login', { deviceState: { version: 2, sessions: [] } as unknown as DeviceStateSnapshot }))).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    const twice = { version: DEVICE_STATE_VERSION, sessions: [{ key: 'k', savedAt: 1, cookies: [] }, { key: 'k', savedAt: 2, cookies: [] }] } as DeviceStateSnapshot;
    await expect(host.run(request('/login', { deviceState: twice }))).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/key of an earlier session/) });
    await expect(host.run(request('/login', { deviceState: null, replay: { version: 1 } as never }))).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringMatching(/replay/) });
  });

  it("loads a kept jar through the jar's own bounds: per domain the newest cookies, none too large", async () => {
    const key = await sessionKey();
    const cookies = Array.from({ length: MAX_COOKIES_PER_DOMAIN + 10 }, (_, i) => cookie(`c${i}`, String(i)));
    cookies.push(cookie('huge', 'h'.repeat(5000)));
    const read = unique('bounded-load');
    const result = ok(await host.run(request(read, { deviceState: { version: DEVICE_STATE_VERSION, sessions: [{ key, savedAt: Date.now(), cookies }] } })));
    const sent = cookieSent(read)!.split('; ').map((c) => c.split('=')[0]);
    expect(sent).toHaveLength(MAX_COOKIES_PER_DOMAIN);
    expect(new Set(sent)).toEqual(new Set(Array.from({ length: MAX_COOKIES_PER_DOMAIN }, (_, i) => `c${i + 10}`)));
    expect(result.warnings).toContainEqual(expect.stringMatching(/^11 kept cookies were not loaded/));
  });

  it('bounds what a store keeps: the sessions saved longest ago go first', () => {
    const session = (i: number, bytes = 10): DeviceSessionState => ({ key: `k${i}`, savedAt: i, cookies: [cookie('c', 'v'.repeat(bytes))] });
    let kept: DeviceStateSnapshot | null = null;
    for (let i = 0; i < MAX_DEVICE_STATE_SESSIONS + 8; i++) kept = mergeDeviceState(kept, { version: DEVICE_STATE_VERSION, sessions: [session(i)] });
    expect(kept!.sessions).toHaveLength(MAX_DEVICE_STATE_SESSIONS);
    expect(Math.min(...kept!.sessions.map((s) => s.savedAt))).toBe(8);
    // Three sessions of 100 KiB: two fit in 256 KiB, the newest two.
    const large = mergeDeviceState(null, { version: DEVICE_STATE_VERSION, sessions: [session(1, 100_000), session(2, 100_000), session(3, 100_000)] });
    expect(large.sessions.map((s) => s.key).sort()).toEqual(['k2', 'k3']);
    expect(Buffer.byteLength(JSON.stringify(large))).toBeLessThanOrEqual(MAX_DEVICE_STATE_BYTES);
  });

  it('MemoryDeviceStateStore refuses to save a state past the bound', async () => {
    const store = new MemoryDeviceStateStore();
    const big = { version: DEVICE_STATE_VERSION, sessions: [{ key: 'k', savedAt: 1, cookies: [cookie('big', 'x'.repeat(MAX_DEVICE_STATE_BYTES))] }] } as DeviceStateSnapshot;
    await expect(store.save(1, big)).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    expect(store.size).toBe(0);
  });
});

describe('withSharedDeviceState', () => {
  let host: Host;
  beforeAll(() => {
    host = createHost({ threads: 1, warmIsolates: 1 });
  });
  afterAll(() => host.close());

  it("reads the store's device id from the run's device, and passes other runs through untouched", async () => {
    expect(storeDeviceId(request('/x'))).toBe(DEVICE_ID);
    expect(storeDeviceId({ device: { id: 'router-1' } })).toBeNull();
    expect(storeDeviceId({ device: { ip: '10.0.0.1' } })).toBeNull();
    const store = countingStore();
    const agent = withSharedDeviceState(host, store);
    const result = ok(await agent.run(request('/login', { device: { ip: '127.0.0.1', portMap: { 80: server.port } } })));
    expect(store.calls).toEqual({ loads: 0, saves: 0 });
    expect(result).not.toHaveProperty('deviceState');
  });

  it('a store that fails or holds something else does not stop the run: it starts without kept state and says so', async () => {
    const failing: DeviceStateStore = {
      load: () => Promise.reject(new Error('connection refused')),
      save: () => Promise.reject(new Error('read-only')),
    };
    const result = ok(await withSharedDeviceState(host, failing).run(request('/login')));
    expect(result.warnings).toEqual([
      expect.stringMatching(/kept state of device 7 .* could not be loaded, so the run started without it: connection refused/),
      expect.stringMatching(/could not be saved: read-only/),
    ]);
    const garbage: DeviceStateStore = { load: async () => ({ version: 9 }) as unknown as DeviceStateSnapshot, save: async () => {} };
    const read = unique('garbage');
    const again = ok(await withSharedDeviceState(host, garbage).run(request(read)));
    expect(cookieSent(read)).toBeUndefined();
    expect(again.warnings).toEqual([expect.stringMatching(/could not be loaded.*version must be 1/)]);
  });
});

describe('device state across the sandbox process', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 1 } });
  });
  afterAll(() => sandbox.close());

  it('carries the state to the child and back', async () => {
    const store = new MemoryDeviceStateStore();
    const agent = withSharedDeviceState(sandbox, store);
    ok(await agent.run(request('/login')));
    const login = `session=s${logins}`;
    expect((await store.load(DEVICE_ID))!.sessions[0]!.cookies).toMatchObject([{ key: 'session', value: `s${logins}` }]);
    // The child's own memory jar never got it: a run without the state sends nothing.
    const plain = unique('child-memory');
    ok(await sandbox.run(request(plain)));
    expect(cookieSent(plain)).toBeUndefined();
    const shared = unique('child-state');
    ok(await agent.run(request(shared)));
    expect(cookieSent(shared)).toBe(login);
    // Directly: the state goes in the request and comes back in the result.
    const direct = ok(await sandbox.run(request('/login', { deviceState: await store.load(DEVICE_ID) })));
    expect(direct.deviceState!.sessions[0]!.cookies).toMatchObject([{ key: 'session', value: `s${logins}` }]);
    expect(ok(await sandbox.run(request(unique('no-state'))))).not.toHaveProperty('deviceState');
  });

  it('a run lost with its child saves nothing: the device keeps what it had', async () => {
    const store = countingStore();
    const agent = withSharedDeviceState(sandbox, store);
    ok(await agent.run(request('/login')));
    const before = await store.load(DEVICE_ID);
    expect(store.calls.saves).toBe(1);
    // A run that logs in again, then waits on the device: its child is killed under it.
    const source = `function get_status() {
      D.device.http.get({ url: '/login', jar: true }, function () {
        D.device.http.get({ url: '/hold', jar: true }, function () { D.success([]); });
      });
    }`;
    const holds = held.length;
    const pending = agent.run(request('/unused', { source }));
    for (let i = 0; held.length === holds; i++) {
      if (i > 400) throw new Error('the run never reached /hold');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    process.kill(sandbox.stats().pid!, 'SIGKILL');
    const lost = await pending;
    expect(lost.status).toBe('failure');
    expect(lost.message).toMatch(/was killed by SIGKILL while this run was in flight/);
    expect(store.calls.saves).toBe(1);
    expect(await store.load(DEVICE_ID)).toEqual(before);
  });

  it("checks the child's state on the way back: kept only when asked for, refused past its bounds", () => {
    const result = { status: 'success', errorType: null, message: null, variables: [], tables: [], logs: [], warnings: [], http: [], action: 'get_status', limitExceeded: null, durationMs: 1 } as RunResult;
    const state: DeviceStateSnapshot = { version: DEVICE_STATE_VERSION, sessions: [{ key: 'k', savedAt: 1, cookies: [{ key: 'a', value: '1', domain: 'd', path: '/' }] }] };
    expect(checkReturnedState({}, { ...result, deviceState: state })).not.toHaveProperty('deviceState');
    expect(checkReturnedState({ deviceState: null }, { ...result, deviceState: state }).deviceState).toEqual(state);
    const big = { version: DEVICE_STATE_VERSION, sessions: [{ key: 'k', savedAt: 1, cookies: [{ key: 'a', value: 'x'.repeat(MAX_DEVICE_STATE_BYTES) }] }] } as DeviceStateSnapshot;
    const refused = checkReturnedState({ deviceState: null }, { ...result, deviceState: big });
    expect(refused).not.toHaveProperty('deviceState');
    expect(refused.warnings).toEqual([expect.stringMatching(/device state the sandbox process returned: \d+ bytes of JSON, more than .*refused/)]);
    const odd = checkReturnedState({ deviceState: null }, { ...result, deviceState: { version: 1, sessions: 'all' } as unknown as DeviceStateSnapshot });
    expect(odd).not.toHaveProperty('deviceState');
  });
});
