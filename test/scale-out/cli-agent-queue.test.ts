// `driverbox agent --queue redis://… --store postgres://…` through the real bin/driverbox.js: the
// scale-out mode as a user starts it (banner, runs recorded with the agent's name, a clean stop on
// SIGTERM), and the queue's bad inputs said in one line with the right exit code: a URL that is
// not redis://, a Redis that does not answer, a Redis that may evict BullMQ's keys.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli.js';
import { startDeviceServer, type DeviceServer } from '../helpers/device-server.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { freeTcpPort, startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait-for.js';

const bin = path.resolve('bin/driverbox.js');
const env = { DRIVERBOX_API_KEYS: 'queue-cli-key', DRIVERBOX_SECRET_KEY: 'one secret for the cluster' };

let postgres: PostgresServer;
let redis: RedisServer;
let device: DeviceServer;
let storeUrl: string;
let dir: string;

beforeAll(async () => {
  [postgres, redis, device] = await Promise.all([startPostgres(), startRedisServer(), startDeviceServer()]);
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE DATABASE queued');
  await admin.end();
  storeUrl = postgres.urlOf('queued');
  dir = mkdtempSync(path.join(tmpdir(), 'driverbox-cli-queue-'));
  writeFileSync(
    path.join(dir, 'poll.js'),
    `function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/status?body=up' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.GENERIC_ERROR);
    D.success([D.createVariable('state', 'State', body)]);
  });
}`,
  );
  writeFileSync(
    path.join(dir, 'inventory.yaml'),
    ['version: 1', 'devices:', `  - { name: nas, ip: 127.0.0.1, portMap: { 80: ${device.port} } }`, 'drivers:', '  - { name: poll, path: poll.js, samplePeriod: 2 }', 'associations:', '  - { driver: poll, device: nas }', ''].join('\n'),
  );
}, 60_000);

afterAll(async () => {
  await device?.close();
  await redis?.stop().catch(() => {});
  postgres?.destroy();
});


describe('driverbox agent --queue', () => {
  it('runs the inventory from the queue into the PostgreSQL store and stops cleanly on SIGTERM', async () => {
    const args = ['agent', '--queue', redis.url, '--store', storeUrl, '--inventory', 'inventory.yaml', '--name', 'cli-queue-1', '--port', '0', '--run-timeout', '1', '--run-deadline', '1', '--verbose', '--summary-interval', '0'];
    const proc = spawn(process.execPath, [bin, ...args], { cwd: dir, env: { PATH: process.env.PATH, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', resolve));
    try {
      await waitFor('the banner', () => stdout.includes('Ctrl-C to stop') || proc.exitCode !== null);
      expect(stdout).toContain('scale-out: runs from the queue');
      expect(stdout).toContain('store        postgres://');
      await waitFor('two runs', () => (stdout.match(/run poll@nas get_status: success/g) ?? []).length >= 2, 20_000).catch((e: Error) => {
        throw new Error(`${e.message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
      });
    } finally {
      proc.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/Stopped: \d+ run\(s\) finished/);
    expect(stderr).toBe('');
    const client = new pg.Client({ connectionString: storeUrl });
    await client.connect();
    const { rows } = await client.query<{ runner: string; slot_ms: string; outcome: string }>('SELECT runner, slot_ms, outcome FROM runs WHERE slot_ms IS NOT NULL ORDER BY slot_ms');
    await client.end();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.runner === 'cli-queue-1' && r.outcome === 'success')).toBe(true);
    // One result per slot, slots one period apart.
    expect(Number(rows[1]!.slot_ms) - Number(rows[0]!.slot_ms)).toBe(2000);
  }, 60_000);

  it('refuses a queue URL that is not redis:// as a usage error, before touching the store', async () => {
    const out = await runBin(['agent', '--queue', 'http://queue.example:6379', '--store', 'postgres://nobody@127.0.0.1:1/none'], { cwd: dir, env });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--queue: queue URL http://queue.example:6379/: the scheme must be redis: or rediss: (got http:)');
    expect(out.stderr).not.toContain('cannot open the store');
  }, 30_000);

  it('says in one line that the queue cannot be reached, with the cause, and exits 1', async () => {
    const port = await freeTcpPort();
    const out = await runBin(['agent', '--queue', `redis://:secret-pass@127.0.0.1:${port}`, '--store', storeUrl, '--port', '0'], { cwd: dir, env });
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toBe(`driverbox agent: cannot take runs from the queue: Redis at redis://:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(out.stderr).not.toContain('secret-pass');
  }, 30_000);

  it('refuses a Redis whose maxmemory-policy could evict the queue', async () => {
    const other = await startRedisServer();
    const admin = new Redis(other.port, '127.0.0.1');
    try {
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const out = await runBin(['agent', '--queue', other.url, '--store', storeUrl, '--port', '0'], { cwd: dir, env });
      expect(out.code).toBe(1);
      expect(out.stderr).toContain('driverbox agent: cannot take runs from the queue: Redis at');
      expect(out.stderr).toContain('has maxmemory-policy allkeys-lru; BullMQ needs noeviction');
      expect(out.stderr).not.toMatch(/\n\s+at /);
    } finally {
      admin.disconnect();
      await other.stop();
    }
  }, 30_000);
});
