// A Monitoring API server over an in-memory store, and a client of it, for one test file.
import { afterAll } from 'vitest';
import type { Host } from '../../host/engine/host.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../../host/api/monitoring/server.js';
import { MonitoringClient } from '../../host/api/monitoring/client/index.js';
import { openStore, type Store } from '../../host/store/index.js';
import { openTestStore } from './store.js';

export const TEST_API_KEY = 'test-key-1';

export interface MonitoringFixture {
  store: Store;
  server: RunningMonitoringServer;
  client: MonitoringClient;
  /** A settable clock: the store and the API read time from it. */
  clock: { now: number };
}

export interface MonitoringFixtureOptions {
  host?: Host;
  /** Start time of the settable clock (ms); default 2026-01-15T12:00:00Z. */
  start?: number;
  secretKey?: string | null;
}

/** Starts the server before the file's tests; stops it and closes the store after them. */
export async function startMonitoringFixture(options: MonitoringFixtureOptions = {}): Promise<MonitoringFixture> {
  const clock = { now: options.start ?? Date.UTC(2026, 0, 15, 12, 0, 0) };
  const store = await openTestStore({ secretKey: options.secretKey === undefined ? 'test-secret' : options.secretKey, clock: () => clock.now });
  const server = await startMonitoringServer({ store, apiKeys: [TEST_API_KEY], host: options.host });
  const client = new MonitoringClient({ baseUrl: server.url, apiKey: TEST_API_KEY });
  afterAll(async () => {
    await client.close();
    await server.close();
    await store.close();
  });
  return { store, server, client, clock };
}
