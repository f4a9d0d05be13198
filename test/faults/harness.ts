// What every fault test shares: the probe drivers, the run with its deadline check, and the
// recorders of unhandled rejections / uncaught exceptions of this (the host's) process.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Host } from '../../host/index.js';
import type { DeviceSpec } from '../../host/contract/device.js';
import type { RunLimits } from '../../host/contract/limits.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource } from '../helpers/host.js';

/**
 * How far past its timeoutMs a run's durationMs may be: the request bridge's slack (250 ms,
 * host/bridges/run-network.ts) and the time a busy 2-core machine takes to tear the run down.
 * A fault that hangs the run goes past it by the fault's own delay (seconds), never by this.
 */
export const DEADLINE_MARGIN_MS = 1000;

/** The probe driver's callback: the error (code, message, whether it is an Error, the other args) or the answer. */
export interface Probe {
  result: RunResult;
  code: string | null;
  message: string | null;
  /** `true,null,null` when the callback got an Error and null response and body, as documented. */
  shape: string | null;
  status: string | null;
  body: string | null;
  length: string | null;
  bodyType: string | null;
}

/**
 * A driver as a careful author writes it: on an error it logs the code and fails the run
 * with TIMEOUT_ERROR for ETIMEDOUT, NETWORK_ERROR for anything else; on an answer it reports
 * status, body (first 200 characters) and body length.
 */
export function httpProbe(method: 'get' | 'post', options: Record<string, unknown>): string {
  return `function get_status() {
    D.device.http.${method}(${JSON.stringify(options)}, function (err, res, body) {
      if (err) {
        console.log('code=' + err.code);
        console.log('message=' + err.message);
        console.log('shape=' + (err instanceof Error) + ',' + res + ',' + body);
        return D.failure(err.code === 'ETIMEDOUT' ? D.errorType.TIMEOUT_ERROR : D.errorType.NETWORK_ERROR);
      }
      var text = typeof body === 'string' ? body : JSON.stringify(body);
      D.success([
        D.createVariable('status', 'Status', res.statusCode),
        D.createVariable('body', 'Body', text.slice(0, 200)),
        D.createVariable('length', 'Length', text.length),
        D.createVariable('bodyType', 'Body type', typeof body),
      ]);
    });
  }`;
}

/** The same for getTLSCertificate: on an answer it reports valid / certError as `status`. */
export function tlsProbe(port = 443): string {
  return `function get_status() {
    D.device.http.getTLSCertificate({ port: ${port} }, function (err, cert) {
      if (err) {
        console.log('code=' + err.code);
        console.log('message=' + err.message);
        console.log('shape=' + (err instanceof Error) + ',' + cert);
        return D.failure(err.code === 'ETIMEDOUT' ? D.errorType.TIMEOUT_ERROR : D.errorType.NETWORK_ERROR);
      }
      D.success([D.createVariable('status', 'Status', cert.valid + ' ' + cert.certError)]);
    });
  }`;
}

/** Runs a probe, checks the run ended within its deadline, and reads back what the callback got. */
export async function probe(host: Host, source: string, device: DeviceSpec, limits: Partial<RunLimits> & { timeoutMs: number }): Promise<Probe> {
  const result = await runSource(host, source, { device, limits });
  expect(result.durationMs, `run took ${result.durationMs} ms against a deadline of ${limits.timeoutMs} ms`).toBeLessThanOrEqual(limits.timeoutMs + DEADLINE_MARGIN_MS);
  const log = (key: string) => {
    const line = result.logs.find((l) => l.message.startsWith(`${key}=`));
    return line ? line.message.slice(key.length + 1) : null;
  };
  const variable = (uid: string) => result.variables.find((v) => v.uid === uid)?.value ?? null;
  return {
    result,
    code: log('code'),
    message: log('message'),
    shape: log('shape'),
    status: variable('status'),
    body: variable('body'),
    length: variable('length'),
    bodyType: variable('bodyType'),
  };
}

/**
 * Records unhandledRejection / uncaughtException in this process for the file's duration and
 * checks after every test that there were none. The host's network side (undici, node:tls)
 * runs in this process, so a promise it forgets to handle lands here.
 */
export function recordProcessFaults(): { rejections: unknown[]; exceptions: unknown[] } {
  const seen = { rejections: [] as unknown[], exceptions: [] as unknown[] };
  const onRejection = (reason: unknown) => seen.rejections.push(reason);
  const onException = (error: unknown) => seen.exceptions.push(error);
  beforeAll(() => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
  });
  afterEach(async () => {
    // A rejection is reported after the microtask queue drains: give it a turn of the loop.
    await new Promise((r) => setImmediate(r));
    expect(seen.rejections.map(String)).toEqual([]);
    expect(seen.exceptions.map(String)).toEqual([]);
  });
  afterAll(() => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  });
  return seen;
}
