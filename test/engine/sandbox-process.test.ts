// The supervised sandbox process: runs execute in a forked child; when it dies, exactly the
// runs in flight fail with the reason, it restarts (backing off when it keeps dying), queued
// runs go to the new child, and close() drains what was accepted.
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V8_HEAP_FLAGS } from '../../host/platform/v8-heap-flags.js';
import { RestartBackoff } from '../../host/engine/process/backoff.js';
import { startSandboxProcess, type SandboxEvents, type SandboxExitEvent, type SandboxProcess } from '../../host/engine/process/index.js';
import type { RunRequest } from '../../host/index.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';

// Fetches the `path` parameter from the device and reports the body.
const FETCH = `function get_status() {
  D.device.http.get({ url: D.getParameter('path') }, function (err, res) {
    if (err) return D.failure(D.errorType.NETWORK_ERROR);
    D.success([D.createVariable('body', 'Body', String(res.body).slice(0, 40))]);
  });
}`;

let server: DeviceServer;
/** Responses of /hold requests, answered when the test says so. */
const held: ServerResponse[] = [];
let heldSeen = 0;

beforeAll(async () => {
  server = await startDeviceServer({
    route(req, res) {
      if (req.url.startsWith('/hold')) {
        heldSeen++;
        held.push(res);
        return true;
      }
      if (req.url.startsWith('/later')) {
        setTimeout(() => res.end('finished late'), 300);
        return true;
      }
      return false;
    },
  });
});
afterAll(async () => {
  for (const res of held.splice(0)) if (!res.writableEnded) res.end('released');
  await server.close();
});

function fetch(path: string): RunRequest {
  return { source: FETCH, filename: 'fetch.js', parameters: { path }, device: { ip: '127.0.0.1', portMap: { 80: server.port } } };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function nextEvent<E extends keyof SandboxEvents>(sandbox: SandboxProcess, event: E): Promise<SandboxEvents[E][0]> {
  return new Promise((resolve) => sandbox.once(event, ((payload: SandboxEvents[E][0]) => resolve(payload)) as never));
}

function releaseHeld(): void {
  for (const res of held.splice(0)) if (!res.writableEnded && !res.destroyed) res.end('released');
}

describe('runs in the sandbox process', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 1 } });
  });
  afterAll(() => sandbox.close());

  it('executes a driver against a local HTTP server in a child process', async () => {
    const before = server.seen.length;
    const result = await sandbox.run(fetch('/status?code=200&body=hello-from-device'));
    expect(result.status).toBe('success');
    expect(result.variables[0]).toMatchObject({ uid: 'body', value: 'hello-from-device' });
    expect(result.http).toHaveLength(1);
    expect(server.seen.length).toBe(before + 1);
    const stats = sandbox.stats();
    expect(stats.pid).not.toBe(process.pid);
    expect(alive(stats.pid!)).toBe(true);
    expect(stats).toMatchObject({ state: 'ready', restarts: 0, inFlight: 0, queued: 0, lostRuns: 0 });
    expect(stats.pool!.created).toBeGreaterThanOrEqual(1);
    expect(stats.uptimeMs).toBeGreaterThan(0);
    // A node process with a sandbox thread and a warm isolate: tens of MB, read from /proc.
    expect(stats.rssBytes).toBeGreaterThan(20 * 1024 * 1024);
  });

  it("tells where the child's memory is: its RSS, its main heap, its sandbox threads and isolates", async () => {
    await sandbox.run(fetch('/status?code=200&body=x'));
    const memory = await sandbox.memory();
    expect(memory).not.toBeNull();
    expect(memory!.rss).toBeGreaterThan(20 * 1024 * 1024);
    expect(memory!.mainHeap.used).toBeGreaterThan(0);
    expect(memory!.mainHeap.total).toBeGreaterThanOrEqual(memory!.mainHeap.used);
    expect(memory!.sandbox.threads).toBe(1);
    // Its isolates are what the pool says is alive (the warm one at least).
    expect(memory!.sandbox.isolates).toBe(sandbox.stats().pool!.alive);
    expect(memory!.sandbox.isolateHeap.used).toBeGreaterThan(0);
  });

  it("starts the child with driverbox's heap flags (v8-heap-flags.ts), the caller's flags after them so that they win", async () => {
    const cmdline = (pid: number | null) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    for (const flag of V8_HEAP_FLAGS) expect(cmdline(sandbox.stats().pid)).toContain(flag);
    const own = await startSandboxProcess({ host: { threads: 1, warmIsolates: 0 }, execArgv: ['--heap-growing-percent=80'] });
    try {
      const argv = cmdline(own.stats().pid);
      const growth = argv.findIndex((a) => a.startsWith('--heap-growing-percent=') && a !== '--heap-growing-percent=80');
      expect(growth).toBeGreaterThan(0);
      expect(argv.indexOf('--heap-growing-percent=80')).toBeGreaterThan(growth);
      const result = await own.run(fetch('/status?code=200&body=own-flags'));
      expect(result.variables[0]).toMatchObject({ uid: 'body', value: 'own-flags' });
      // A young generation larger than isolated-vm's own is no way past a driver's memory limit.
      const bomb = await own.run({ source: `function get_status() { var a = []; while (true) a.push({ x: 'y'.repeat(1000) + a.length }); }`, filename: 'bomb.js', limits: { memoryMb: 32 } });
      expect(bomb).toMatchObject({ status: 'failure', limitExceeded: 'memory' });
      expect((await own.run(fetch('/status?code=200&body=after'))).variables[0]).toMatchObject({ value: 'after' });
    } finally {
      await own.close();
    }
  });

  it("passes the host's errors back with their code", async () => {
    await expect(sandbox.run({ ...fetch('/'), action: 'reboot' })).rejects.toMatchObject({ code: 'UNKNOWN_ACTION', message: expect.stringContaining('reboot') });
    await expect(sandbox.run({ path: '/nonexistent/driver.js' })).rejects.toMatchObject({ code: 'DRIVER_NOT_FOUND' });
  });

  it('refuses a request that is not plain data, naming the field', async () => {
    await expect(sandbox.run({ ...fetch('/'), externalHosts: () => true })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('request.externalHosts is a function'),
    });
    await expect(sandbox.run({ ...fetch('/'), parameters: { path: '/', hooks: [1, () => 2] } })).rejects.toMatchObject({
      message: expect.stringContaining('request.parameters.hooks[1] is a function'),
    });
    // The child is unharmed.
    expect((await sandbox.run(fetch('/status?body=still-fine'))).variables[0]!.value).toBe('still-fine');
  });
});

describe('a crash of the sandbox process', () => {
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 1, maxIsolates: 2 } });
  });
  afterAll(() => sandbox.close());

  it('fails exactly the runs in flight with the reason; queued runs go to the restarted child', async () => {
    const exits: SandboxExitEvent[] = [];
    sandbox.on('exit', (e) => exits.push(e));
    heldSeen = 0;
    const first = sandbox.run(fetch('/hold?n=1'));
    const second = sandbox.run(fetch('/hold?n=2'));
    await until(() => heldSeen === 2, 'both runs to reach the device');
    // maxInFlight follows maxIsolates (2): this one waits in the agent, not in the child.
    const queued = sandbox.run(fetch('/status?body=after-restart'));
    expect(sandbox.stats()).toMatchObject({ inFlight: 2, queued: 1 });

    const pid = sandbox.stats().pid!;
    const restarted = nextEvent(sandbox, 'restart');
    process.kill(pid, 'SIGKILL');

    for (const result of [await first, await second]) {
      expect(result.status).toBe('failure');
      expect(result.errorType).toBe('GENERIC_ERROR');
      expect(result.message).toContain(`the sandbox process (pid ${pid}) was killed by SIGKILL while this run was in flight`);
      expect(result.message).toContain('restarted');
      expect(result.action).toBe('get_status');
    }
    const restart = await restarted;
    expect(restart).toMatchObject({ previousPid: pid, restarts: 1, delayMs: 0 });
    expect(restart.pid).not.toBe(pid);
    expect(exits).toEqual([{ pid, code: null, signal: 'SIGKILL', expected: false, lostRuns: 2, killedBecause: null, overstay: false }]);

    const after = await queued;
    expect(after.status).toBe('success');
    expect(after.variables[0]!.value).toBe('after-restart');
    expect(await sandbox.run(fetch('/status?body=next'))).toMatchObject({ status: 'success' });
    expect(sandbox.stats()).toMatchObject({ pid: restart.pid, state: 'ready', restarts: 1, lostRuns: 2, inFlight: 0, queued: 0 });
    releaseHeld();
  });
});

describe('repeated crashes', () => {
  it('back off: no wait after the first, then doubling up to the ceiling', async () => {
    const sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 0 }, restart: { initialDelayMs: 150, maxDelayMs: 300 } });
    try {
      const delays: number[] = [];
      for (let i = 0; i < 4; i++) {
        const restarted = nextEvent(sandbox, 'restart');
        const pid = sandbox.stats().pid!;
        process.kill(pid, 'SIGKILL');
        await until(() => sandbox.stats().pid !== pid, 'the child to go');
        const event = await restarted;
        delays.push(event.delayMs);
      }
      expect(delays).toEqual([0, 150, 300, 300]);
      expect(sandbox.stats().restarts).toBe(4);
      expect(await sandbox.run(fetch('/status?body=survived'))).toMatchObject({ status: 'success' });
      // A memory question asked as the child dies is answered null, not left waiting. The child is
      // stopped first, so that it cannot answer between the question and the kill.
      const last = sandbox.stats().pid!;
      process.kill(last, 'SIGSTOP');
      const asked = sandbox.memory();
      process.kill(last, 'SIGKILL');
      expect(await asked).toBeNull();
    } finally {
      await sandbox.close();
    }
    expect(await sandbox.memory()).toBeNull(); // closed: no child
  });

  it('a run accepted while the child is down waits for the new one', async () => {
    const sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 0 }, restart: { initialDelayMs: 200 } });
    try {
      for (let i = 0; i < 2; i++) {
        const restarted = nextEvent(sandbox, 'restart');
        process.kill(sandbox.stats().pid!, 'SIGKILL');
        if (i === 1) {
          await until(() => sandbox.stats().state === 'restarting', 'the restart to be pending');
          const pending = sandbox.run(fetch('/status?body=waited'));
          expect(sandbox.stats()).toMatchObject({ pid: null, queued: 1 });
          expect((await pending).variables[0]!.value).toBe('waited');
        }
        await restarted;
      }
      expect(sandbox.stats().lostRuns).toBe(0);
    } finally {
      await sandbox.close();
    }
  });

  it('the delay resets once a child stays up', () => {
    const backoff = new RestartBackoff({ initialDelayMs: 100, maxDelayMs: 1000, stableAfterMs: 5000 });
    expect([10, 10, 10, 10, 10, 10].map((up) => backoff.next(up))).toEqual([0, 100, 200, 400, 800, 1000]);
    expect(backoff.next(6000)).toBe(0);
    expect(backoff.next(10)).toBe(100);
  });
});

describe('close()', () => {
  it('lets runs in flight finish, then stops the child', async () => {
    const sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 1 } });
    const exits: SandboxExitEvent[] = [];
    sandbox.on('exit', (e) => exits.push(e));
    const pid = sandbox.stats().pid!;
    const running = sandbox.run(fetch('/later'));
    await until(() => sandbox.stats().inFlight === 1 && server.seen.some((r) => r.url === '/later'), 'the run to start');
    const closed = sandbox.close();
    await expect(sandbox.run(fetch('/'))).rejects.toMatchObject({ code: 'HOST_CLOSED' });
    const result = await running;
    expect(result.status).toBe('success');
    expect(result.variables[0]!.value).toBe('finished late');
    await closed;
    expect(alive(pid)).toBe(false);
    expect(exits).toHaveLength(1);
    expect(exits[0]).toMatchObject({ pid, expected: true, lostRuns: 0 });
    expect(sandbox.stats()).toMatchObject({ state: 'closed', pid: null, restarts: 0 });
  });

  it('kills the child when the grace runs out, failing what was still running', async () => {
    const sandbox = await startSandboxProcess({ host: { threads: 1, warmIsolates: 1 }, closeGraceMs: 200 });
    heldSeen = 0;
    const stuck = sandbox.run(fetch('/hold?n=forever'));
    await until(() => heldSeen === 1, 'the run to reach the device');
    await sandbox.close();
    const result = await stuck;
    expect(result.status).toBe('failure');
    expect(result.message).toContain('close() stopped it after its grace of 200 ms');
    expect(result.message).toContain('not restarted');
    expect(sandbox.stats().state).toBe('closed');
    releaseHeld();
  });
});

describe('starting', () => {
  it("rejects with the child's own error when its host cannot be created", async () => {
    await expect(startSandboxProcess({ host: { maxIsolates: 0 } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('maxIsolates'),
    });
  });

  it('refuses options that cannot reach the child, naming them', async () => {
    await expect(startSandboxProcess({ host: { externalHosts: (() => true) as unknown as string[] } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringContaining('host.externalHosts is a function'),
    });
    await expect(startSandboxProcess({ closeGraceMs: -1 })).rejects.toMatchObject({ message: expect.stringContaining('closeGraceMs') });
  });
});
