// Issue 34, cause 6: a driver spinning until its deadline holds its sandbox thread for the whole
// call; a run placed on that thread waits behind it. New runs go to a thread that is not held
// (waiting for room there), or to a spare thread when every thread is held.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunResult } from '../../host/index.js';
import { runSource, useHost } from '../helpers/host.js';
import { waitFor } from '../helpers/wait-for.js';

const SPIN = `function get_status() { for (;;) {} }`;
const QUICK = `function get_status() { D.success([D.createVariable('ok', 'OK', 'yes')]); }`;
/** Waits on the gate server until the test opens the gate. */
const GATED = `function get_status() {
  D.device.http.get({ url: '/gate' }, function (err) { D.success([D.createVariable('gate', 'Gate', err ? err.code : 'open')]); });
}`;
const SPIN_TIMEOUT_MS = 10_000;

/** An HTTP device that answers /gate only once open() is called: runs waiting on it stay in flight as long as the test wants. */
function useGateServer() {
  const held: ServerResponse[] = [];
  let server: Server;
  const gate = {
    port: 0,
    get waiting() {
      return held.length;
    },
    open() {
      for (const response of held.splice(0)) response.end('open');
    },
  };
  beforeAll(async () => {
    server = createServer((_request: IncomingMessage, response: ServerResponse) => void held.push(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    gate.port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    gate.open();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return gate;
}

/** Settles to the order in which the runs ended. */
function finishOrder(runs: Record<string, Promise<RunResult>>): { order: string[]; results: Promise<Record<string, RunResult>> } {
  const order: string[] = [];
  const results = Promise.all(Object.entries(runs).map(([name, run]) => run.then((result) => (order.push(name), [name, result] as const)))).then(Object.fromEntries);
  return { order, results };
}

describe('a spinning driver holds only its own sandbox thread', () => {
  // 2 threads, 2 isolates each; no spare, so that only the placement rule is at work.
  const host = useHost({ threads: 2, maxIsolates: 4, warmIsolates: 0, spareThreads: 0 });
  const gate = useGateServer();

  it('a run does not go behind a spinning call on a thread with more room: it waits for room on the other thread', async () => {
    const spinner = runSource(host, SPIN, { limits: { timeoutMs: SPIN_TIMEOUT_MS } });
    await waitFor('the spinning driver to hold its thread', () => host.stats().threadsHeld === 1);
    // The other thread takes two runs waiting on the device: it is full, the spinner's has room.
    const device = { ip: '127.0.0.1', portMap: { 80: gate.port } };
    const gated = [runSource(host, GATED, { device }), runSource(host, GATED, { device })];
    await waitFor('both gated runs to reach the device', () => gate.waiting === 2);
    const quick = runSource(host, QUICK);
    // Not behind the spinner (its thread has room): it waits for room on the other thread.
    await waitFor('the quick run to wait for room', () => host.stats().waiting === 1);
    gate.open();
    const { order, results } = finishOrder({ spinner, quick, gated0: gated[0]!, gated1: gated[1]! });
    const all = await results;
    expect(all.quick!.status).toBe('success');
    expect(all.gated0!.variables[0]?.value).toBe('open');
    expect(all.gated1!.variables[0]?.value).toBe('open');
    expect(all.spinner!.limitExceeded).toBe('timeout');
    // Behind the spinner, the quick run could only end after it: placed on the free thread, long before.
    expect(order.indexOf('quick')).toBeLessThan(order.indexOf('spinner'));
    expect(order[order.length - 1]).toBe('spinner');
  }, 30_000);
});

describe('when every thread is held, a spare thread takes the next run', () => {
  const host = useHost({ threads: 2, maxIsolates: 6, warmIsolates: 0 });

  it('two spinners hold both threads; a healthy run ends on a spare long before either', async () => {
    const spinners = [runSource(host, SPIN, { limits: { timeoutMs: SPIN_TIMEOUT_MS } })];
    await waitFor('the first spinner to hold its thread', () => host.stats().threadsHeld === 1);
    spinners.push(runSource(host, SPIN, { limits: { timeoutMs: SPIN_TIMEOUT_MS } }));
    await waitFor('both spinners to hold their threads', () => host.stats().threadsHeld === 2);
    const { order, results } = finishOrder({ quick: runSource(host, QUICK), spin0: spinners[0]!, spin1: spinners[1]! });
    const all = await results;
    expect(all.quick!.status).toBe('success');
    expect(order[0]).toBe('quick');
    expect(host.stats().spareThreadsMade).toBe(1);
    await waitFor('no thread to be held', () => host.stats().threadsHeld === 0);
    const after = await runSource(host, QUICK);
    expect(after.status).toBe('success');
  }, 40_000);
});
