// A server with the Marketplace API over an in-memory store with a settable clock, and a
// client of it, for one test file. Mounted the way serve and the agent mount it: through
// startMonitoringServer's extraRoutes.
import { afterAll } from 'vitest';
import { marketplaceRoutes, type MarketplaceRoutesOptions } from '../../host/api/marketplace/marketplace-routes.js';
import { MarketplaceClient } from '../../host/api/marketplace/client/index.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../../host/api/monitoring/server.js';
import { openStore, type Store } from '../../host/store/index.js';
import { openTestStore } from './store.js';

export const MARKET_KEY = 'market-key-1';

export interface MarketplaceFixture {
  store: Store;
  server: RunningMonitoringServer;
  client: MarketplaceClient;
  /** The store's clock (ms); set it to move time. */
  clock: { now: number };
}

export async function startMarketplaceFixture(
  options: { start?: number; routes?: Omit<MarketplaceRoutesOptions, 'store' | 'apiKeys'> } = {},
): Promise<MarketplaceFixture> {
  const clock = { now: options.start ?? Date.UTC(2026, 0, 15, 12, 0, 0) };
  const store = await openTestStore({ clock: () => clock.now });
  const server = await startMonitoringServer({
    store,
    apiKeys: [MARKET_KEY],
    extraRoutes: async (app) => {
      await app.register(marketplaceRoutes, { store, apiKeys: [MARKET_KEY], ...options.routes });
    },
  });
  const client = new MarketplaceClient({ baseUrl: server.url, apiKey: MARKET_KEY });
  afterAll(async () => {
    await client.close();
    await server.close();
    await store.close();
  });
  return { store, server, client, clock };
}

/** A valid version 2 create body; fields overridden by `extra`. */
export function deviceAccount(email: string, extra: Record<string, unknown> = {}) {
  return {
    email,
    country: 'IT',
    account_status: 'ACTIVE' as const,
    privacy_policy: '1.0',
    terms_and_conditions: '1.0',
    products: { TEAM_MEMBERS: { quantity: 3 }, MANAGED_DEVICES: { quantity: 50 } },
    ...extra,
  };
}

/** A valid version 1 create body (LOCATION); fields overridden by `extra`. */
export function locationAccount(email: string, extra: Record<string, unknown> = {}) {
  return {
    email,
    country: 'DE',
    account_status: 'TRIAL' as const,
    privacy_policy: '1.0',
    terms_and_conditions: '1.0',
    products: { TEAM_MEMBERS: { quantity: 2 }, AGENTS: { quantity: 4 }, MSP_INTEGRATIONS: { quantity: 1 } },
    ...extra,
  };
}
