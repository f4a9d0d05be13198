// A hostile HTTP (and HTTPS) device against D.device.http and getTLSCertificate: endless, dripping,
// huge, malformed, regex-hostile, cookie-flooding and crashing answers, and certificates built to
// be costly to read. Each scenario asserts the run's result by its deadline, the host loop's stall
// under STALL_BOUND_MS while the host handles it, and a bystander device's runs all successful.
// The peer runs in a worker thread (http-peer.ts): its own work never shows on the host's loop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunLimits } from '../../host/contract/limits.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource, useHost } from '../helpers/host.js';
import { STALL_BOUND_MS, startBystander, watchLoop } from './harness.js';
import { startHttpPeer, type HttpPeer } from './http-peer.js';

/**
 * Reads the device `repeat` times (a GET with `options`, or getTLSCertificate) and reports what
 * it got; the first error ends the run with its code and message ("ERR <code>: <message>").
 */
const DRIVER = `function get_status() {
  var options = D.getParameter('options');
  var repeat = D.getParameter('repeat') || 1;
  var tls = D.getParameter('tls');
  var out = [];
  function report(text) {
    D.success([D.createVariable('out', 'Out', text.slice(0, 400))]);
  }
  function next(i) {
    if (i === repeat) return report(out.join(' '));
    if (tls) {
      return D.device.http.getTLSCertificate(options, function (err, cert) {
        if (err) return report('ERR ' + err.code + ': ' + err.message);
        out.push(cert.subject + ' names=' + cert.subjectAltNames.length);
        next(i + 1);
      });
    }
    D.device.http.get(options, function (err, res, body) {
      if (err) return report('ERR ' + err.code + ': ' + err.message);
      out.push(res.statusCode + ':' + (typeof body === 'string' ? body.length : typeof body));
      next(i + 1);
    });
  }
  next(0);
}`;

const RUN_MS = 8000;

interface Scenario {
  name: string;
  options: Record<string, unknown>;
  tls?: keyof HttpPeer['tls'];
  repeat?: number;
  limits?: Partial<RunLimits>;
  /** What the driver got: its reads' status and body length, or "ERR <code>: <message>". */
  expect: RegExp;
}

const scenarios: Scenario[] = [
  { name: 'endless chunked body', options: { url: '/endless' }, limits: { maxResponseBytes: 4 * 1024 * 1024 }, expect: /^ERR BODY_TOO_LARGE: .*limit of 4194304 bytes/ },
  { name: 'body dripping a byte at a time past the timeout', options: { url: '/drip-body', timeout: 1500 }, expect: /^ERR ETIMEDOUT: .*1500 ms/ },
  { name: 'headers dripping a byte at a time past the timeout', options: { url: '/drip-headers', timeout: 1500 }, expect: /^ERR ETIMEDOUT: .*1500 ms/ },
  { name: 'thousands of headers', options: { url: '/many-headers' }, expect: /^ERR HEADERS_TOO_LARGE: .*larger than the 16384 bytes the host reads$/ },
  { name: 'one header of 1 MiB', options: { url: '/huge-header' }, expect: /^ERR HEADERS_TOO_LARGE: .*larger than the 16384 bytes the host reads$/ },
  { name: 'huge body read whole', options: { url: '/huge-body' }, expect: /^200:12582912$/ },
  {
    name: 'huge body as hex for a run with memoryMb 16',
    options: { url: '/huge-body', encoding: 'hex' },
    limits: { memoryMb: 16 },
    expect: /^ERR BODY_TOO_LARGE: .*limit of 4194304 bytes \(a quarter of the run's memoryMb of 16\)/,
  },
  {
    name: 'control characters within maxResponseBytes, six times larger as JSON, for a run with memoryMb 16',
    options: { url: '/ctl-body' },
    limits: { memoryMb: 16 },
    expect: /^ERR BODY_TOO_LARGE: .*the 3145728-byte body, as utf8 for the driver, takes 18874368 bytes, more than the limit of 4194304 bytes/,
  },
  { name: 'gzip bomb', options: { url: '/gzip-bomb', gzip: true }, expect: /^ERR BODY_TOO_LARGE: .*decompressed body is larger than the limit/ },
  { name: 'malformed chunking', options: { url: '/bad-chunking' }, expect: /^ERR \w+: / },
  { name: 'content-length longer than the body', options: { url: '/lying-length' }, expect: /^ERR ECONNRESET: / },
  { name: 'connection reset mid-body', options: { url: '/reset-mid-body' }, expect: /^ERR ECONNRESET: / },
  { name: 'regex-hostile content-type, www-authenticate and set-cookie', options: { url: '/hostile-values', jar: true }, repeat: 20, expect: /^200:2( 200:2){19}$/ },
  { name: 'regex-hostile location', options: { url: '/hostile-location', jar: true }, expect: /^200:2$/ },
  { name: '150 new cookies on new paths in every answer', options: { url: '/cookies', jar: true }, repeat: 60, expect: /^200:2( 200:2){59}$/ },
  { name: 'JSON of 8 MB (4 million numbers) with json: true', options: { url: '/json-huge', json: true }, expect: /^200:object$/ },
  { name: 'JSON nested two million deep', options: { url: '/json-deep', json: true }, expect: /^ERR JSON_TOO_DEEP: / },
  { name: 'certificate with 2700 subject alt names', tls: 'manyNames', options: {}, repeat: 5, expect: /^CN=many names names=2701/ },
  { name: 'certificate with a huge extension of nested BIT STRINGs', tls: 'hugeExtension', options: {}, repeat: 5, expect: /^CN=huge extension names=1/ },
  { name: 'certificate of 84 KB with an extension nested 20000 deep', tls: 'deepExtension', options: {}, expect: /^ERR CERTIFICATE_TOO_LARGE: .* is 8\d{4} bytes, more than the 65536 bytes/ },
  { name: 'a chain of 60 CAs', tls: 'longChain', options: {}, repeat: 5, expect: /^CN=long chain leaf names=1/ },
];

describe('hostile HTTP peer', () => {
  const host = useHost();
  let peer: HttpPeer;

  beforeAll(async () => {
    peer = await startHttpPeer();
  }, 60_000);
  afterAll(() => peer?.close());

  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      const port = scenario.tls ? peer.tls[scenario.tls] : peer.port;
      const bystander = await startBystander(host);
      const watch = watchLoop();
      let result: RunResult;
      try {
        result = await runSource(host, DRIVER, {
          device: { ip: '127.0.0.1', portMap: scenario.tls ? { 443: port } : { 80: port } },
          parameters: { options: scenario.options, repeat: scenario.repeat ?? 1, tls: scenario.tls !== undefined },
          limits: { timeoutMs: RUN_MS, ...scenario.limits },
        });
      } finally {
        var { maxStallMs } = watch.stop();
        var seen = await bystander.stop();
      }
      expect(result, result.message ?? '').toMatchObject({ status: 'success' });
      expect(result.variables[0]!.value).toMatch(scenario.expect);
      expect(result.durationMs).toBeLessThan(RUN_MS);
      expect(maxStallMs, 'the host loop was held').toBeLessThan(STALL_BOUND_MS);
      expect(seen.failures, 'the bystander failed').toEqual([]);
      expect(seen.runs).toBeGreaterThan(0);
    }, 30_000);
  }
});
