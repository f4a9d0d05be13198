// A run's network on its own sandbox thread (HostOptions.networkInThreads, host/engine/threads/thread-network.ts): the requests go
// out and their answers reach the driver with the host thread busy, a device's runs always
// find its one session (its thread, threads.ts pinFor), the host's policy and bounds hold
// across threads, and the transcript is the one the host-thread network gave.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ByteBudget } from '../../host/bridges/core/buffer-budget.js';
import { createHost, DriverboxError, type Host, type RunRequest, type RunResult } from '../../host/index.js';
import { useDeviceServer } from '../helpers/device-server.js';
import { runSource } from '../helpers/host.js';

/**
 * GETs the `paths` parameter one after another, then reports each status (or error code) as a
 * variable. The paths come as a parameter, so that every run is of the same driver: sessions are per driver.
 */
const DRIVER = `function get_status() {
  var paths = D.getParameter('paths');
  var out = [];
  function next(i) {
    if (i === paths.length) return D.success(out.map(function (o, k) { return D.createVariable('r' + k, 'R' + k, o); }));
    D.device.http.get({ url: paths[i], jar: true }, function (err, res, body) {
      out.push(err ? 'ERR:' + err.code : res.statusCode + ' ' + body);
      next(i + 1);
    });
  }
  next(0);
}`;

/** A run of DRIVER over `paths`. */
const sequential = (host: Host, paths: string[], request: Omit<RunRequest, 'source'>) => runSource(host, DRIVER, { ...request, parameters: { paths } });

/**
 * An HTTP device on its own thread, so that it answers while the test's thread is busy. It holds its
 * answer to `/a` until `release()`: the test can then block its own thread knowing that the run's
 * later requests cannot have gone out yet (`/b` needs `/a`'s answer).
 */
async function threadDevice(): Promise<{ port: number; seen: (path: string) => Promise<void>; release: () => void; close: () => Promise<number> }> {
  const worker = new Worker(
    `const http = require('node:http');
     const { parentPort } = require('node:worker_threads');
     const held = [];
     let released = false;
     parentPort.on('message', (m) => { if (m === 'release') { released = true; held.splice(0).forEach((res) => res.end('ok')); } });
     const server = http.createServer((req, res) => {
       parentPort.postMessage(req.url);
       if (req.url === '/a' && !released) held.push(res); else res.end('ok');
     });
     server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
    { eval: true },
  );
  const port = await new Promise<number>((resolve) => worker.once('message', resolve));
  const paths: string[] = [];
  worker.on('message', (path: string) => paths.push(path));
  const seen = async (path: string) => {
    for (let i = 0; i < 2500 && !paths.includes(path); i++) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(paths).toContain(path);
  };
  return { port, seen, release: () => worker.postMessage('release'), close: () => worker.terminate() };
}

/**
 * Once the device holds `/a`, lets it answer and blocks the host thread for `ms`: the run's other
 * requests come during the block (network on the sandbox thread) or only after it (on the host thread).
 */
async function blockAfterFirst(device: Awaited<ReturnType<typeof threadDevice>>, ms: number): Promise<void> {
  await device.seen('/a');
  device.release();
  const until = performance.now() + ms;
  while (performance.now() < until); // the host thread answers nothing meanwhile
}

const values = (result: RunResult) => result.variables.map((v) => v.value);

describe('network on the sandbox thread', () => {
  const server = useDeviceServer();

  /** A run of /a, /b, /c whose host thread is blocked for 800 ms once /a reached the device. */
  async function blockedRun(networkInThreads: boolean): Promise<RunResult> {
    const device = await threadDevice();
    const host = createHost({ threads: 1, warmIsolates: 1, networkInThreads });
    try {
      const request = { device: { ip: '127.0.0.1', portMap: { 80: device.port } } };
      expect((await sequential(host, ['/warm'], request)).status).toBe('success');
      const pending = sequential(host, ['/a', '/b', '/c'], request);
      await blockAfterFirst(device, 800);
      const result = await pending;
      expect(result.status, result.message ?? '').toBe('success');
      expect(values(result)).toEqual(['200 ok', '200 ok', '200 ok']);
      expect(result.http.map((x) => x.status)).toEqual([200, 200, 200]);
      return result;
    } finally {
      await host.close();
      await device.close();
    }
  }

  it("a run's requests go out and are answered while the host thread is busy", async () => {
    // /b and /c went and came back on its thread well before the host thread was free again.
    expect((await blockedRun(true)).durationMs).toBeLessThan(600);
  });

  it('with networkInThreads false (the default) the same run waits for the host thread', async () => {
    expect((await blockedRun(false)).durationMs).toBeGreaterThan(750); // /b waited for the host thread
  });

  it("a device's runs all find its one cookie jar, with several threads and runs at once", async () => {
    const host = createHost({ threads: 2, maxIsolates: 8, warmIsolates: 4, networkInThreads: true });
    try {
      const device = { id: 'pinned-device', ip: '127.0.0.1', portMap: { 80: server.port } };
      const login = await sequential(host, ['/set-cookie?cookie=session%3Dpinned'], { device });
      expect(values(login)).toEqual(['200 set']);
      // Eight at once: spread over both threads, half of them would find an empty jar.
      const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => sequential(host, [`/echo?pinned=${i}`], { device })));
      for (const run of runs) expect(run.status, run.message ?? '').toBe('success');
      for (let i = 0; i < 8; i++) {
        const seen = server.seen.find((r) => r.url === `/echo?pinned=${i}`);
        expect(seen?.headers.cookie).toBe('session=pinned');
      }
      // Another device gets none of it.
      const other = await sequential(host, ['/echo?pinned=other'], { device: { ...device, id: 'other-device' } });
      expect(other.status).toBe('success');
      expect(server.seen.find((r) => r.url === '/echo?pinned=other')?.headers.cookie).toBeUndefined();
    } finally {
      await host.close();
    }
  });

  it("the host's policy is asked from the thread: a predicate decides D.createExternalDevice", async () => {
    const asked: string[] = [];
    const host = createHost({ threads: 1, warmIsolates: 1, networkInThreads: true, externalHosts: (name) => (asked.push(name), name === 'localhost') });
    try {
      const driver = (name: string) => `function get_status() {
        var ext;
        try { ext = D.createExternalDevice('${name}'); } catch (e) { return D.success([D.createVariable('s', 'S', 'refused: ' + e.message)]); }
        ext.http.get({ url: '/echo?ext=${name}', port: ${server.port} }, function (err, res) {
          D.success([D.createVariable('s', 'S', err ? err.code : String(res.statusCode))]);
        });
      }`;
      const allowed = await runSource(host, driver('localhost'), { device: { ip: '127.0.0.1' } });
      expect(values(allowed), allowed.message ?? '').toEqual(['200']);
      const refused = await runSource(host, driver('elsewhere.example'), { device: { ip: '127.0.0.1' } });
      expect(values(refused)).toEqual(['refused: D.createExternalDevice: the host application does not allow "elsewhere.example"']);
      expect(asked).toEqual(['localhost', 'elsewhere.example']);
    } finally {
      await host.close();
    }
  });

  it('gives the same result and transcript as the host-thread network, secrets masked alike', async () => {
    const source = `function get_status() {
      D.device.http.get({ url: '/redirect?to=/echo%3Ftoken%3Dsecret-param', headers: { 'x-api-key': 'learnt-key' } }, function (err, res, body) {
        console.log('answer ' + body);
        D.success([D.createVariable('s', 'S', err ? err.code : String(res.statusCode))]);
      });
    }`;
    const request = {
      device: { ip: '127.0.0.1', portMap: { 80: server.port }, username: 'admin', password: 'device-pass' },
      parameters: { token: 'secret-param' },
      transcript: 'full' as const,
    };
    const results: RunResult[] = [];
    for (const networkInThreads of [true, false]) {
      const host = createHost({ threads: 1, warmIsolates: 1, networkInThreads });
      try {
        results.push(await runSource(host, source, request));
      } finally {
        await host.close();
      }
    }
    const shape = (r: RunResult) => ({
      ...r,
      durationMs: 0,
      http: r.http.map((x) => ({ ...x, startedMs: 0, headersMs: 0, durationMs: 0, request: { ...x.request, headers: { ...x.request?.headers, host: '' } }, response: { ...x.response, headers: { ...x.response?.headers, date: '' } } })),
    });
    expect(results[0]!.status, results[0]!.message ?? '').toBe('success');
    expect(results[0]!.http).toHaveLength(2);
    expect(JSON.stringify(results[0])).not.toContain('learnt-key');
    expect(shape(results[0]!)).toEqual(shape(results[1]!));
  });

  it('the answer-bytes bound is one over every thread (shared memory)', () => {
    const host = new ByteBudget(100);
    const thread = new ByteBudget(100, host.shared);
    expect(host.take(60)).toBe(true);
    expect(thread.take(50)).toBe(false);
    expect(thread.take(40)).toBe(true);
    expect(host.used).toBe(100);
    host.give(60);
    expect(thread.used).toBe(40);
    thread.give(1000);
    expect(host.used).toBe(0);
  });

  it('networkInThreads is checked: true or false', () => {
    expect(() => createHost({ networkInThreads: 'yes' as unknown as boolean })).toThrow(DriverboxError);
    expect(() => createHost({ networkInThreads: 1 as unknown as boolean })).toThrow('networkInThreads must be true or false (got 1)');
  });
});
