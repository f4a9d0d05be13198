// What every hostile-peer test shares (docs/architecture/security.md, "Device data off the shared loop"):
// a watch on the host's event loop (the loop every device's network work shares), and a
// bystander — a healthy device whose runs go on beside the hostile one and must not notice it.
// A hostile peer itself runs off this loop (a worker thread or a child process), so what the
// watch sees is the host's own work on the peer's data, not the peer's work making it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { Host } from '../../host/index.js';
import type { RunResult } from '../../host/contract/run-result.js';
import { runSource } from '../helpers/host.js';

/**
 * The longest the host's loop may be held by work on one hostile peer's data. The faults
 * seen before the fixes held it for seconds (10-27 s); a busy 2-core CI machine delays a 5 ms
 * timer by up to ~150 ms on its own (GC, the other forks), so the bound sits above that jitter
 * and far below the faults.
 */
export const STALL_BOUND_MS = 400;

export interface LoopWatch {
  /** Stops watching; the longest gap between two ticks beyond the tick itself, ms. */
  stop(): { maxStallMs: number };
}

/** Watches the host's event loop: a 5 ms timer, and the longest it came late. */
export function watchLoop(): LoopWatch {
  const tick = 5;
  let last = performance.now();
  let max = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last - tick);
    last = now;
  }, tick);
  return {
    stop() {
      clearInterval(timer);
      max = Math.max(max, performance.now() - last - tick);
      return { maxStallMs: Math.round(max) };
    },
  };
}

export interface Bystander {
  /** Stops the runs and waits for the one in flight; what they came to. */
  stop(): Promise<{ runs: number; failures: RunResult[]; maxDurationMs: number }>;
}

const BYSTANDER_DRIVER = `function get_status() {
  D.device.http.get('/ok', function (err, res, body) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR);
    D.success([D.createVariable('body', 'Body', body)]);
  });
}`;

/**
 * A healthy HTTP device (its own server on this loop: a few bytes an answer) polled in a
 * loop by a trivial driver on `host` while the hostile run goes on. Each of its runs has
 * `timeoutMs` to finish; a failure or a slow run is what a shared loop held by another
 * device's data looks like.
 */
export async function startBystander(host: Host, timeoutMs = 3000): Promise<Bystander> {
  const server: Server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  let stopped = false;
  let runs = 0;
  let maxDurationMs = 0;
  const failures: RunResult[] = [];
  const loop = (async () => {
    while (!stopped) {
      const result = await runSource(host, BYSTANDER_DRIVER, {
        device: { id: `bystander-${port}`, ip: '127.0.0.1', portMap: { 80: port } },
        limits: { timeoutMs },
      });
      runs++;
      maxDurationMs = Math.max(maxDurationMs, result.durationMs);
      if (result.status !== 'success') failures.push(result);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return { runs, failures, maxDurationMs };
    },
  };
}

/** How far past its timeoutMs a hostile run may end: the host ends it at its deadline, then tears it down. */
export const DEADLINE_MARGIN_MS = 1_000;

/**
 * Stops `watch` and `bystander` and asserts what every hostile-peer scenario promises of the
 * others: the bystander ran and never failed, the host loop was never held past STALL_BOUND_MS,
 * and the hostile run itself ended by its deadline. Answers the longest stall seen.
 */
export async function expectOthersUnharmed(watch: LoopWatch, bystander: Bystander, result: RunResult, timeoutMs: number): Promise<{ maxStallMs: number }> {
  const { maxStallMs } = watch.stop();
  const seen = await bystander.stop();
  expect(seen.runs, 'the bystander ran').toBeGreaterThan(0);
  expect(seen.failures.map((f) => `${f.status} ${f.errorType} ${f.message}`), 'the bystander failed').toEqual([]);
  expect(maxStallMs, 'the host loop was held').toBeLessThan(STALL_BOUND_MS);
  expect(result.durationMs, 'the hostile run ended by its deadline').toBeLessThanOrEqual(timeoutMs + DEADLINE_MARGIN_MS);
  return { maxStallMs };
}
