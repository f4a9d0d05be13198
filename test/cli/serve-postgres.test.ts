// Several `driverbox serve` processes answering from one PostgreSQL store (`--store postgres://…`):
// what one writes the other reads, they share one local agent and one secret, and a store that
// cannot be reached or a bad URL is said clearly. Real processes, a throwaway server.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { openStore } from '../../host/store/store.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { runCli } from '../helpers/cli.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';

let postgres: PostgresServer;
let url: string;
const serves: ServeProcess[] = [];
const API_KEY = 'shared-serve-key';
const env = { DRIVERBOX_API_KEYS: API_KEY, DRIVERBOX_SECRET_KEY: 'one secret for the cluster' };

beforeAll(async () => {
  postgres = await startPostgres();
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query('CREATE DATABASE served');
  await admin.end();
  url = postgres.urlOf('served');
}, 60_000);

afterAll(async () => {
  for (const serve of serves) await serve.stop().catch(() => {});
  postgres?.destroy();
});

describe('driverbox serve --store postgres://', () => {
  it('lets two processes answer from one store: one local agent, and what one writes the other reads', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-pg-'));
    // Started together: they migrate the new database and make its local agent once between them.
    const [a, b] = await Promise.all([
      startServe(['--store', url], { ...env, DRIVERBOX_DATA_DIR: path.join(dataDir, 'a') }),
      startServe(['--store', url], { ...env, DRIVERBOX_DATA_DIR: path.join(dataDir, 'b') }),
    ]);
    serves.push(a!, b!);
    expect(a!.output()).toContain(`store        ${url}`);
    const clientA = new MonitoringClient({ baseUrl: a!.url, apiKey: API_KEY });
    const clientB = new MonitoringClient({ baseUrl: b!.url, apiKey: API_KEY });
    const agentsA = await clientA.listAgents();
    expect(agentsA).toHaveLength(1);
    expect((await clientB.listAgents()).map((x) => x.id)).toEqual(agentsA.map((x) => x.id));

    const driver = await clientA.createCustomDriver({ name: 'shared', code: 'function validate() { D.success(); }\nfunction get_status() { D.success(); }' });
    expect((await clientB.listCustomDrivers()).map((d) => d.name)).toContain('shared');

    // A device seeded through the store with credentials sealed by the shared secret.
    const store = await openStore({ path: url, secretKey: env.DRIVERBOX_SECRET_KEY });
    const device = await createDevice(store, agentsA[0]!.id, { displayName: 'nas', ip: '10.0.0.5' });
    await store.close();
    await clientB.editDevice(agentsA[0]!.id, device.id, 'user_data/name', 'renamed by b');
    expect((await clientA.getDevice(agentsA[0]!.id, device.id)).display_name).toBe('renamed by b');
    await clientA.deleteCustomDriver(driver.id);
    expect((await clientB.listCustomDrivers()).map((d) => d.name)).not.toContain('shared');
  }, 90_000);

  it('takes the URL from the config file too, kept as a URL, not made a path', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'driverbox-serve-pg-config-'));
    const config = path.join(dir, 'server.json');
    writeFileSync(config, JSON.stringify({ store: url, apiKeys: ['from-config'], secretKey: env.DRIVERBOX_SECRET_KEY }));
    const served = await startServe(['--config', config], { DRIVERBOX_DATA_DIR: dir });
    serves.push(served);
    expect(served.output()).toContain(`store        ${url}`);
    const client = new MonitoringClient({ baseUrl: served.url, apiKey: 'from-config' });
    expect(await client.listAgents()).toHaveLength(1);
  }, 60_000);

  it('says which server it cannot reach, without the password, and exits 1', async () => {
    const down = `postgres://driverbox:s3cret@127.0.0.1:${postgres.port + 7}/none`;
    const result = await runCli(['serve', '--port', '0', '--store', down], { env: { ...env, DRIVERBOX_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'driverbox-pg-down-')) } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`127.0.0.1:${postgres.port + 7}`);
    expect(result.stderr).not.toContain('s3cret');
  }, 60_000);
});
