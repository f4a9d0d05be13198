// A run's deadline holds even when its sandbox thread is kept busy by another run past it:
// an answer that reaches the thread after the deadline ends the run with TIMEOUT_ERROR, it
// is not handed to the driver. (Found by bench:soak: with memory bombs and CPU loops sharing
// the thread, runs with a 200 ms deadline succeeded or failed otherwise after 400 ms.)
import { describe, expect, it } from 'vitest';
import { useDeviceServer } from '../helpers/device-server.js';
import { runSource, useHost } from '../helpers/host.js';

describe('the deadline on a busy sandbox thread', () => {
  // One thread and no spare: the busy run and the waiting run share its event loop.
  const host = useHost({ threads: 1, maxIsolates: 4, warmIsolates: 2, spareThreads: 0 });
  const server = useDeviceServer();

  it('an answer that arrives while the thread is busy past the deadline does not reach the driver', async () => {
    // The device answers 300 ms after the request, well inside the 600 ms deadline: only the
    // busy thread can make the run late.
    const waiting = runSource(
      host,
      `function get_status() {
        D.device.http.get({ url: '/slow?ms=300' }, function (err) { D.success([D.createVariable('late', 'Late', err ? err.code : 'answered')]); });
      }`,
      { device: { ip: '127.0.0.1', portMap: { 80: server.port } }, limits: { timeoutMs: 600 } },
    );
    // Once the device has the request (a fixed pause was not enough on a loaded CI machine),
    // a second run holds the thread for 1.5 s of plain JavaScript.
    const sent = Date.now();
    while (!server.seen.some((r) => r.url === '/slow?ms=300')) {
      if (Date.now() - sent > 5_000) throw new Error('the driver never sent its request');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const busy = runSource(host, `function get_status() { var t = Date.now(); while (Date.now() - t < 1500) {} D.success(); }`, {
      limits: { timeoutMs: 5_000 },
    });
    const [late, hog] = await Promise.all([waiting, busy]);
    expect(hog.status).toBe('success');
    expect(late.variables).toEqual([]);
    expect(late.status).toBe('failure');
    expect(late.errorType).toBe('TIMEOUT_ERROR');
    expect(late.limitExceeded).toBe('timeout');
    expect(late.message).toBe('the driver did not call D.success or D.failure within the 600 ms deadline');
    const next = await runSource(host, `function get_status() { D.success(); }`);
    expect(next.status).toBe('success');
  });

  it('a run the thread gets to only after its deadline times out: its request never gets a shortened timeout of its own', async () => {
    const seenBefore = server.seen.length;
    const busy = runSource(host, `function get_status() { var t = Date.now(); while (Date.now() - t < 700) {} D.success(); }`, {
      limits: { timeoutMs: 5_000 },
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
    // Its deadline (300 ms) passes while the thread is still busy with the run above.
    const late = await runSource(
      host,
      `function get_status() {
        D.device.http.get({ url: '/slow?ms=2000' }, function (err) { D.success([D.createVariable('code', 'Code', err ? err.code : 'answered')]); });
      }`,
      { device: { ip: '127.0.0.1', portMap: { 80: server.port } }, limits: { timeoutMs: 300 } },
    );
    expect((await busy).status).toBe('success');
    expect(late.variables).toEqual([]);
    expect(late.errorType).toBe('TIMEOUT_ERROR');
    expect(late.limitExceeded).toBe('timeout');
    expect(late.http).toEqual([]);
    expect(server.seen.length).toBe(seenBefore);
  });
});
