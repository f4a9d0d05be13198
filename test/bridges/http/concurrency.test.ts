// A run's requests in flight at once are bounded (maxConcurrentRequests); the rest wait
// their turn, and their timeout starts when they are sent, not while they wait.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeviceServer, type DeviceServer } from '../../helpers/device-server.js';
import { runSource, useHost } from '../../helpers/host.js';

describe('requests in flight per run', () => {
  const host = useHost();
  let server: DeviceServer;
  let inFlight = 0;
  let peak = 0;

  beforeAll(async () => {
    server = await startDeviceServer({
      route(req, res: ServerResponse) {
        if (!req.url.startsWith('/hold')) return false;
        inFlight++;
        peak = Math.max(peak, inFlight);
        setTimeout(() => {
          inFlight--;
          res.end('done');
        }, 60);
        return true;
      },
    });
  });
  afterAll(() => server.close());

  const fireAll = (count: number, timeout?: number) =>
    `function get_status() {
      var codes = [];
      for (var i = 0; i < ${count}; i++) {
        D.device.http.get({ url: '/hold?i=' + i${timeout ? `, timeout: ${timeout}` : ''} }, function (err, res) {
          codes.push(err ? err.code : res.statusCode);
          if (codes.length === ${count}) D.success([D.createVariable('codes', 'Codes', codes.join(','))]);
        });
      }
    }`;

  it('never has more than maxConcurrentRequests in flight, and every request is answered', async () => {
    peak = 0;
    const result = await runSource(host, fireAll(12), { device: { ip: '127.0.0.1', portMap: { 80: server.port } }, limits: { maxConcurrentRequests: 3 } });
    expect(result.variables[0]!.value).toBe(Array(12).fill('200').join(','));
    expect(peak).toBe(3);
  });

  it('defaults to 6 at once', async () => {
    peak = 0;
    await runSource(host, fireAll(12), { device: { ip: '127.0.0.1', portMap: { 80: server.port } } });
    expect(peak).toBe(6);
  });

  it('time spent waiting for a turn does not count against a request\'s timeout', async () => {
    // 8 requests, one at a time, 60 ms each: the last waits ~420 ms, far past its 200 ms timeout.
    const result = await runSource(host, fireAll(8, 200), { device: { ip: '127.0.0.1', portMap: { 80: server.port } }, limits: { maxConcurrentRequests: 1 } });
    expect(result.variables[0]!.value).toBe(Array(8).fill('200').join(','));
  });
});
