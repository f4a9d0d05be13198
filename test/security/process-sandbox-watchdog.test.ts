// P1–P3: the supervised sandbox process against a child that dies or wedges under its runs.
// A wedged child is real: SIGSTOP from the test (a stopped process answers nothing, as a thread
// spinning in a getter does not; SIGKILL still ends it). The run that overstays its deadline
// plus the margin ends with TIMEOUT_ERROR, runs beside it with the crash result, the child is
// replaced, its stats say why, and the next run is healthy.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess, type SandboxExitEvent, type SandboxProcess } from '../../host/engine/process/index.js';
import type { RunRequest } from '../../host/index.js';
import { alive, until } from './process-tree.js';

/** Ends once the device answers, `wait` ms later (its parameter), so it is in flight when the test signals the child. */
const SLOW = `function get_status() {
  D.device.http.get({ url: '/slow?ms=' + D.getParameter('wait') }, function (err) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR);
    D.success([D.createVariable('ok', 'OK', 'yes')]);
  });
}`;
const QUICK = `function get_status() { D.success([D.createVariable('ok', 'OK', 'yes')]); }`;

let device: Server;
let devicePort = 0;
/** Requests the device got (a run is in flight once its request arrived). */
let requests = 0;

function slow(wait: number, timeoutMs: number): RunRequest {
  return { source: SLOW, filename: 'slow.js', parameters: { wait }, limits: { timeoutMs }, device: { ip: '127.0.0.1', portMap: { 80: devicePort } } };
}

beforeAll(async () => {
  device = createServer((req, res) => {
    requests++;
    const ms = Number(new URL(req.url ?? '/', 'http://d').searchParams.get('ms') ?? 0);
    const timer = setTimeout(() => res.end('late'), ms);
    res.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.1', resolve));
  devicePort = (device.address() as AddressInfo).port;
});
afterAll(async () => {
  device.closeAllConnections();
  await new Promise<void>((resolve) => device.close(() => resolve()));
});

/** Resolves once the device has seen `count` more requests than `since`. */
function requested(since: number, count: number): Promise<boolean> {
  return until(() => requests >= since + count, `${count} request(s) at the device`);
}

async function expectHealthy(sandbox: SandboxProcess): Promise<void> {
  const next = await sandbox.run({ source: QUICK, filename: 'quick.js', limits: { timeoutMs: 10_000 } });
  expect(next.status, next.message ?? '').toBe('success');
  expect(next.variables.map((v) => v.value)).toEqual(['yes']);
}

const MARGIN_MS = 600;

describe('P1-P3 the sandbox process supervisor', () => {
  let sandbox: SandboxProcess;
  const exits: SandboxExitEvent[] = [];
  beforeAll(async () => {
    sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 1 }, overstayMarginMs: MARGIN_MS, restart: { initialDelayMs: 0 } });
    sandbox.on('exit', (e) => exits.push(e));
  });
  afterAll(() => sandbox.close());

  it('P1 a stopped (wedged) child: the overstaying run ends with TIMEOUT_ERROR within deadline + margin, the other with the crash result; the child is replaced and its stats say why', async () => {
    await expectHealthy(sandbox);
    const wedged = sandbox.stats().pid!;
    const started = performance.now();
    const seen = requests;
    const overstays = sandbox.run(slow(5_000, 1_000));
    const beside = sandbox.run(slow(5_000, 20_000));
    await requested(seen, 2);
    process.kill(wedged, 'SIGSTOP');
    const [timedOut, lost] = await Promise.all([overstays, beside]);
    const tookMs = performance.now() - started;

    expect(timedOut).toMatchObject({ status: 'failure', errorType: 'TIMEOUT_ERROR', limitExceeded: 'timeout' });
    expect(timedOut.message).toContain(`did not end within its deadline of 1000 ms plus ${MARGIN_MS} ms`);
    expect(timedOut.message).toContain(`the sandbox process (pid ${wedged}) was wedged and was killed`);
    expect(tookMs).toBeLessThan(1_000 + MARGIN_MS + 1_500);
    expect(tookMs).toBeGreaterThanOrEqual(1_000 + MARGIN_MS - 50);
    // Its own deadline (20 s) was far off: it ends as a run lost with its process, not as a timeout.
    expect(lost).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR', limitExceeded: null });
    expect(lost.message).toContain(`the sandbox process (pid ${wedged}) was killed because a run of slow.js overstayed its deadline of 1000 ms`);

    await until(() => !alive(wedged), 'the wedged child to be gone');
    await until(() => sandbox.stats().state === 'ready' && sandbox.stats().pid !== wedged, 'a new child');
    const stats = sandbox.stats();
    expect(stats.overstayKills).toBe(1);
    expect(stats.lastKill?.reason).toMatch(new RegExp(`^pid ${wedged}: a run of slow.js overstayed its deadline of 1000 ms by more than ${MARGIN_MS} ms`));
    expect(Date.parse(stats.lastKill!.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(exits.at(-1)).toMatchObject({ pid: wedged, expected: false, overstay: true, lostRuns: 2, signal: 'SIGKILL' });
    await expectHealthy(sandbox);
  }, 30_000);

  it('P2 a child stopped between runs: the next run overstays, the child is replaced, and a run after it is healthy', async () => {
    const wedged = sandbox.stats().pid!;
    process.kill(wedged, 'SIGSTOP');
    const before = sandbox.stats().overstayKills;
    const result = await sandbox.run({ source: QUICK, filename: 'quick.js', limits: { timeoutMs: 500 } });
    expect(result).toMatchObject({ status: 'failure', errorType: 'TIMEOUT_ERROR' });
    expect(sandbox.stats().overstayKills).toBe(before + 1);
    await until(() => !alive(wedged), 'the wedged child to be gone');
    await expectHealthy(sandbox);
  }, 30_000);

  it('P2 a deadline plus margin past what a timer holds (2^31 ms) is not taken for an overstay', async () => {
    const kills = sandbox.stats().overstayKills;
    const seen = requests;
    const result = await sandbox.run(slow(300, 2 ** 31 - 100));
    expect(requests).toBe(seen + 1);
    expect(result.status, result.message ?? '').toBe('success');
    expect(sandbox.stats().overstayKills).toBe(kills);
  });

  it.each(['SIGKILL', 'SIGSEGV', 'SIGABRT'] as const)('P3 a child that dies by %s under a run: the run fails with the crash result, the next is healthy, no overstay is counted', async (signal) => {
    const child = sandbox.stats().pid!;
    const kills = sandbox.stats().overstayKills;
    const seen = requests;
    const run = sandbox.run(slow(3_000, 10_000));
    await requested(seen, 1);
    process.kill(child, signal);
    const result = await run;
    expect(result).toMatchObject({ status: 'failure', errorType: 'GENERIC_ERROR' });
    expect(result.message).toContain(`the sandbox process (pid ${child}) was killed by ${signal} while this run was in flight`);
    expect(sandbox.stats().overstayKills).toBe(kills);
    expect(exits.at(-1)).toMatchObject({ pid: child, overstay: false, killedBecause: null });
    await expectHealthy(sandbox);
  }, 30_000);
});
