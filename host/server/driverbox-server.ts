// The one HTTP server of driverbox, as `driverbox agent`, `driverbox serve` and `driverbox demo`
// serve it: the Monitoring Public API v1 over the store, and beside it, each a plugin of its own
// (so each keeps its own error bodies), the application status with /metrics, the Marketplace
// API emulator, the driverbox extension API (runs, trial runs, schedule, tables) and the web
// console. What differs between the three is said by the options: the demo has no status and
// no Marketplace, only the agent has metrics and a schedule.
import { consoleRoutes } from '../api/console/console-routes.js';
import { agentRoutes } from '../api/driverbox/agent-routes.js';
import { driverboxApiRoutes } from '../api/driverbox/runs-routes.js';
import type { ScheduleSource } from '../api/driverbox/schedule-routes.js';
import { createStatusSource, type HealthProbe } from '../api/driverbox/status.js';
import { marketplaceRoutes, type MarketplaceSettings } from '../api/marketplace/marketplace-routes.js';
import { startMonitoringServer, type MonitoringApiOptions, type RunningMonitoringServer } from '../api/monitoring/server.js';
import type { AgentMetrics } from '../agent/metrics.js';
import type { RunExecutor } from '../contract/run-executor.js';
import type { Store } from '../store/store.js';

export interface DriverboxServerOptions {
  store: Store;
  /** Runs the drivers executed through the API and the console's trial runs. */
  executor: RunExecutor;
  /** Accepted X-Api-Key values (at least one). */
  apiKeys: readonly string[];
  listen: { host: string; port: number };
  /** Hosts that drivers uploaded through the API may reach (default none; ["*"]: any). */
  externalHosts?: readonly string[];
  /** Browser origins allowed to call the API (CORS); default none. */
  corsOrigins?: readonly string[];
  /** The user written into activity-log entries made through the API (default "api"). */
  user?: string;
  onRequestDone?: MonitoringApiOptions['onRequestDone'];
  /** Told after an API request that may have changed the store (the agent re-reads its associations). */
  onStoreChanged?: MonitoringApiOptions['onStoreChanged'];
  /**
   * GET /backend-api/v1/status, its modules probed: the sandbox's and the scheduler's given here
   * (null: this process has none), the store's and the server's added. With `metrics`, GET /metrics
   * too (no key asked unless metricsNeedKey). None: neither is served.
   */
  status?: { sandbox: HealthProbe; scheduler: HealthProbe | null; metrics?: AgentMetrics; metricsNeedKey?: boolean };
  /** The Marketplace API emulator's settings; none: it is not served. */
  marketplace?: MarketplaceSettings;
  /** The agent's schedule for the extension API (without it the schedule says there is none). */
  schedule?: ScheduleSource;
}

/** Builds the server and listens; a port in use rejects. */
export async function startDriverboxServer(options: DriverboxServerOptions): Promise<RunningMonitoringServer> {
  const { store, apiKeys, status } = options;
  let server: RunningMonitoringServer | null = null;
  const statusSource = status
    ? createStatusSource({
        probes: {
          sandbox: status.sandbox,
          store: async () => {
            await store.statement('SELECT 1').get();
          },
          scheduler: status.scheduler,
          http: () => {
            if (!server?.app.server.listening) throw new Error('the API server is not listening');
          },
        },
      })
    : null;
  server = await startMonitoringServer({
    store,
    host: options.executor,
    externalHosts: options.externalHosts,
    corsOrigins: options.corsOrigins,
    apiKeys,
    listen: options.listen,
    user: options.user,
    onRequestDone: options.onRequestDone,
    onStoreChanged: options.onStoreChanged,
    // Each its own plugin, so each keeps its own error bodies.
    extraRoutes: async (app) => {
      if (status && statusSource) {
        await app.register(agentRoutes, { metrics: status.metrics, status: statusSource, apiKeys, requireApiKey: { metrics: status.metricsNeedKey ?? false } });
      }
      if (options.marketplace) await app.register(marketplaceRoutes, { ...options.marketplace, store, apiKeys });
      await app.register(driverboxApiRoutes, { store, apiKeys, host: options.executor, externalHosts: options.externalHosts, schedule: options.schedule });
      await app.register(consoleRoutes);
    },
  });
  return server;
}
