// What a driver does after its run is over, and floods of requests within a run: nothing it
// starts after the end reaches the device or changes the outcome, and a late answer of one
// run never reaches the next run on the same isolate.
import { describe, expect, it } from 'vitest';
import { startDeviceServer, useDeviceServer } from '../helpers/device-server.js';
import { useHost } from '../helpers/host.js';
import { attack, logged, reported } from './harness.js';

describe('security: lifecycle', () => {
  // One isolate, so a late answer would have the next run's context to land in.
  const host = useHost({ threads: 1, maxIsolates: 1, warmIsolates: 1 });
  const server = useDeviceServer();
  const device = server.target;

  it('L1 a request started after D.success is never sent, and its callback cannot change the outcome', async () => {
    const before = server.seen.length;
    const r = await attack(
      host,
      `function get_status() {
        D.success([D.createVariable('found', 'Found', 'first')]);
        D.device.http.get('/after-end', function () { D.failure(D.errorType.GENERIC_ERROR); });
      }`,
      { device: device() },
    );
    expect(r.status).toBe('success');
    expect(reported(r)).toBe('first');
    expect(server.seen.slice(before).map((s) => s.url)).not.toContain('/after-end');
  });

  it('L2 q timers and promise jobs after the end: D.failure, errors and logs from them change nothing', async () => {
    const r = await attack(
      host,
      `function get_status() {
        D.q.delay(30).then(function () { D.failure(D.errorType.AUTHENTICATION_ERROR); throw new Error('late'); });
        Promise.resolve().then(function () { D.success([D.createVariable('found', 'Found', 'from a promise job')]); });
      }`,
    );
    expect(r.status).toBe('success');
    expect(reported(r)).toBe('from a promise job');
    expect(r.errorType).toBeNull();
  });

  it('L3 a run cut by its deadline with a request in flight: the late answer never reaches the next run on the same isolate', async () => {
    const slow = await attack(host, `function get_status() { D.device.http.get('/slow?ms=1200', function (e, r, body) { D.success([D.createVariable('found', 'Found', 'late ' + body)]); }); }`, {
      device: device(),
      limits: { timeoutMs: 300 },
    });
    expect(slow.errorType).toBe('TIMEOUT_ERROR');
    expect(slow.http[0]).toMatchObject({ error: 'ABORTED' });
    // Same isolate, and its request ids start at 1 again: the next run only ever sees its own answer.
    const next = await attack(host, `function get_status() { D.device.http.get('/status?body=mine', function (e, r, body) { D.success([D.createVariable('found', 'Found', body)]); }); }`, {
      device: device(),
    });
    expect(reported(next)).toBe('mine');
  });

  it('L4 an error thrown from a callback after the run ended is not reported as the outcome', async () => {
    const r = await attack(
      host,
      `function get_status() {
        D.device.http.get('/echo', function () { throw new Error('thrown after the end'); });
        D.success([D.createVariable('found', 'Found', 'ok')]);
      }`,
      { device: device() },
    );
    expect(r.status).toBe('success');
    expect(r.message).toBeNull();
  });

  it('L5 thousands of requests fired at once: the device sees exactly maxHttpRequests, never more than maxConcurrentRequests at a time', async () => {
    let inFlight = 0;
    let peak = 0;
    const counting = await startDeviceServer({
      route(_req, res) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        setTimeout(() => {
          inFlight--;
          res.end('ok');
        }, 2);
        return true;
      },
    });
    try {
      const r = await attack(
        host,
        `function get_status() {
          var left = 3000, codes = {};
          for (var i = 0; i < 3000; i++) D.device.http.get('/n' + i, function (err) {
            var k = err ? err.code : 'ok'; codes[k] = (codes[k] || 0) + 1;
            if (--left === 0) { console.log(JSON.stringify(codes)); D.success(); }
          });
        }`,
        { device: { ip: '127.0.0.1', portMap: { 80: counting.port } }, limits: { maxHttpRequests: 150, maxConcurrentRequests: 4, timeoutMs: 20_000 } },
      );
      expect(logged(r)).toEqual({ ok: 150, TOO_MANY_REQUESTS: 2850 });
      expect(counting.seen).toHaveLength(150);
      expect(peak).toBeLessThanOrEqual(4);
    } finally {
      await counting.close();
    }
  });

  it('L6 a chain of requests, each from the last one\'s callback, stops at the same bound; TLS reads count too', async () => {
    const before = server.seen.length;
    const r = await attack(
      host,
      `function get_status() {
        var n = 0;
        (function next() {
          D.device.http.get('/chain', function (err) {
            if (!err) { n++; return next(); }
            D.device.http.getTLSCertificate({ port: 443 }, function (tlsErr) {
              D.success([D.createVariable('found', 'Found', n + ',' + err.code + ',' + (tlsErr && tlsErr.code))]);
            });
          });
        })();
      }`,
      { device: device(), limits: { maxHttpRequests: 40 } },
    );
    expect(reported(r)).toBe('40,TOO_MANY_REQUESTS,TOO_MANY_REQUESTS');
    expect(server.seen.length - before).toBe(40);
  });
});
