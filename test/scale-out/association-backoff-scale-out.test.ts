// Issue 34, cause 6, scale-out mode: the backoff after repeated limit hits applies to the queue's
// slots too, from the shared store: a slot of an association backing off is skipped (reason
// backoff) by whichever agent takes it, and a success restores the association.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../host/agent/agent.js';
import type { AgentBackoffEvent, AgentRunFinished, AgentRunSkipped } from '../../host/agent/agent-types.js';
import { createAgent } from '../../host/server/agent-server.js';
import { readAssociationBackoff } from '../../host/store/drivers/association-backoff.js';
import { openStore, type Store } from '../../host/store/store.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { MODE_DRIVER } from '../helpers/agent-drivers.js';


let postgres: PostgresServer;
let redis: RedisServer;
let device: Server;
let mode = 'spin';
let store: Store;
let agent: Agent;

beforeAll(async () => {
  device = createServer((request, response) => response.end(request.url === '/mode' ? mode : 'ok'));
  await new Promise<void>((resolve) => device.listen(0, '127.0.0.1', resolve));
  [postgres, redis] = await Promise.all([startPostgres(), startRedisServer()]);
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE DATABASE backoff');
  await admin.end();
}, 60_000);

afterAll(async () => {
  await agent?.stop({ graceMs: 0 }).catch(() => {});
  await store?.close().catch(() => {});
  await new Promise<void>((resolve) => device.close(() => resolve()));
  await redis?.stop().catch(() => {});
  postgres?.destroy();
}, 60_000);

async function until(what: string, check: () => boolean, timeoutMs = 40_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the backoff in scale-out mode', () => {
  it('skips the slots of an association backing off and restores it after a success', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'driverbox-backoff-queue-'));
    writeFileSync(join(dir, 'mode.js'), MODE_DRIVER);
    const port = (device.address() as AddressInfo).port;
    writeFileSync(
      join(dir, 'inventory.yaml'),
      ['version: 1', 'devices:', `  - { name: spinner, ip: 127.0.0.1, portMap: { 80: ${port} } }`, 'drivers:', '  - { name: mode, path: mode.js, samplePeriod: 1 }', 'associations:', '  - { driver: mode, device: spinner }', ''].join('\n'),
    );
    store = await openStore({ path: postgres.urlOf('backoff'), secretKey: 'backoff-secret' });
    agent = createAgent({
      store,
      inventory: join(dir, 'inventory.yaml'),
      storeRefreshMs: 0,
      limits: { timeoutMs: 300 },
      backoff: { threshold: 2, maxMs: 60_000 },
      queue: { url: redis.url, name: 'agent-a', deadlineMs: 900, stalledIntervalMs: 1000, prefix: `b${process.pid}` },
    });
    const finished: AgentRunFinished[] = [];
    const skipped: AgentRunSkipped[] = [];
    const backoffs: AgentBackoffEvent[] = [];
    agent.on('runFinished', (run) => finished.push(run));
    agent.on('runSkipped', (event) => skipped.push(event));
    agent.on('backoff', (event) => backoffs.push(event));
    agent.on('error', () => {});
    await agent.start();
    await until('the association to back off', () => backoffs.length >= 1);
    const id = backoffs[0]!.associationId;
    expect(backoffs[0]).toMatchObject({ hits: 2, limit: 'timeout', restoredBy: null });
    expect(await readAssociationBackoff(store, id)).toMatchObject({ hits: 2, lastLimit: 'timeout' });
    const runsThen = finished.length;
    await until('a slot skipped for the backoff', () => skipped.some((s) => s.associationId === id && s.reason === 'backoff'));
    // The skipped slot ran nothing.
    expect(finished.length).toBe(runsThen);
    mode = 'ok';
    await until('the association restored', () => backoffs.some((b) => b.restoredBy === 'success'));
    expect(await readAssociationBackoff(store, id)).toBeNull();
    expect(finished.at(-1)!.result.status).toBe('success');
  }, 90_000);
});
