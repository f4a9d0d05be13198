// The local Monitoring Public API v1: a Fastify app over the embedded store. One module per
// operation group in routes/; this file wires them with the API-key check, the error body and
// the OpenAPI document.
import Fastify, { type FastifyInstance } from 'fastify';
import { externalHostList } from '../../agent/external-hosts.js';
import type { RunExecutor } from '../../contract/run-executor.js';
import type { Store } from '../../store/store.js';
import { apiKeyCheckExcept } from './auth.js';
import type { ApiContext } from './context.js';
import { checkCorsOrigin, corsHook } from './cors.js';
import { installErrorHandling, noSuchOperation } from './error-handler.js';
import { refuseUnusableNumbers } from './number-guard.js';
import { lenientQueries } from './query-leniency.js';
import { API_PREFIX, buildOpenApiDocument, collectRoutes } from './openapi.js';
import { registerActivityLogRoutes } from './routes/activity-log.js';
import { registerAlertProfileRoutes } from './routes/alert-profiles.js';
import { registerCompanyRoutes } from './routes/company.js';
import { registerInventoryRoutes } from './routes/inventory.js';
import { registerUserRoutes } from './routes/user.js';
import { registerAssetRoutes } from './routes/assets.js';
import { registerAgentRoutes } from './routes/agents.js';
import { registerApplicationRoutes } from './routes/applications.js';
import { registerAssociationReEnableRoutes } from './routes/association-re-enable.js';
import { registerConfigurationRoutes } from './routes/configurations.js';
import { registerDeviceMonitoringRoutes } from './routes/device-monitoring.js';
import { registerDeviceProfileRoutes } from './routes/device-profiles.js';
import { registerOutletRoutes } from './routes/outlets.js';
import { registerConnectionRoutes } from './routes/connections.js';
import { registerCustomDriverRoutes } from './routes/custom-drivers.js';
import { registerDeviceRoutes } from './routes/devices.js';
import { registerHistoryRoutes } from './routes/history.js';
import { registerMetaRoutes } from './routes/meta.js';
import { registerMultimediaRoutes } from './routes/multimedia.js';
import { registerNetworkingRoutes } from './routes/networking.js';
import { registerPowerRoutes } from './routes/power.js';
import { registerRtdSpeedRoutes } from './routes/rtd-speed.js';
import { registerSensorRoutes } from './routes/sensors.js';
import { registerApiUsage, registerMetricUsageRoutes, type ApiUsageLimits } from './routes/usage.js';
import { registerVariableRoutes } from './routes/variables.js';

export interface MonitoringApiOptions {
  store: Store;
  /** Accepted X-Api-Key values; at least one. */
  apiKeys: readonly string[];
  /** Runs drivers for executeCustomDriverAction (the supervised sandbox process, or an in-process Host). */
  host?: RunExecutor;
  /** The user written into activity-log entries made through the API. Default "api". */
  user?: string;
  /**
   * Hosts that custom drivers not made by the agent's inventory (uploaded through the API) may
   * reach with D.createExternalDevice when executed: default none; ["*"]: any host.
   */
  externalHosts?: readonly string[];
  /**
   * Origins of browser pages allowed to call the API (CORS): scheme://host[:port], or "*" for
   * any. Default none: no CORS headers, and a preflight is refused like any request without a key.
   */
  corsOrigins?: readonly string[];
  /** Fastify's logger option (false by default). */
  logger?: boolean | Record<string, unknown>;
  /** The version shown in the OpenAPI document (default: the reference's, 1.14.0). */
  version?: string;
  /** Told of every answered request (the CLI prints one line each). */
  onRequestDone?: (request: { method: string; url: string; status: number; ms: number }) => void;
  /**
   * Told after every successful API request that may have changed the store (any method but GET):
   * the agent re-reads its associations then, so those made through the API are scheduled.
   */
  onStoreChanged?: () => void | Promise<void>;
  /**
   * Routes of the embedding application served beside the API (the agent's /metrics and
   * status), outside the API prefix and its X-Api-Key check, which they handle themselves.
   */
  extraRoutes?: (app: FastifyInstance) => Promise<void>;
  /** The limits apiUsageInfo shows (informative, not enforced); defaults in routes/usage.ts. */
  apiUsageLimits?: ApiUsageLimits;
}

/** The route registrars, one per operation group. */
const groups = [
  registerAgentRoutes,
  registerDeviceRoutes,
  registerHistoryRoutes,
  registerRtdSpeedRoutes,
  registerVariableRoutes,
  registerActivityLogRoutes,
  registerCustomDriverRoutes,
  registerSensorRoutes,
  registerApplicationRoutes,
  registerConnectionRoutes,
  registerPowerRoutes,
  registerConfigurationRoutes,
  registerDeviceMonitoringRoutes,
  registerOutletRoutes,
  registerDeviceProfileRoutes,
  registerAssociationReEnableRoutes,
  registerInventoryRoutes,
  registerCompanyRoutes,
  registerUserRoutes,
  registerAlertProfileRoutes,
  registerNetworkingRoutes,
  registerMultimediaRoutes,
  registerAssetRoutes,
  registerMetricUsageRoutes,
];

export async function createMonitoringApi(options: MonitoringApiOptions): Promise<FastifyInstance> {
  if (options.apiKeys.length === 0) throw new Error('the Monitoring API needs at least one API key');
  const app = Fastify({
    logger: options.logger ?? false,
    // Count operations are HEAD routes of their own, with their own meaning.
    exposeHeadRoutes: false,
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array', useDefaults: true, removeAdditional: false } },
  });
  const ctx: ApiContext = {
    store: options.store,
    host: options.host,
    user: options.user ?? 'api',
    externalHosts: externalHostList(options.externalHosts ?? [], 'the Monitoring API option externalHosts'),
  };
  installErrorHandling(app);
  const corsOrigins = (options.corsOrigins ?? []).map((origin) => checkCorsOrigin(origin, 'the Monitoring API option corsOrigins'));
  if (corsOrigins.length) app.addHook('onRequest', corsHook(corsOrigins));
  const onDone = options.onRequestDone;
  if (onDone) {
    app.addHook('onResponse', async (request, reply) => {
      onDone({ method: request.method, url: request.url, status: reply.statusCode, ms: reply.elapsedTime });
    });
  }
  const routes = collectRoutes(app);
  // Routes whose schema says `public` (they hold no data), filled as they are registered.
  const publicRoutes = new Set<string>();
  if (options.extraRoutes) await app.register(options.extraRoutes);
  await app.register(
    async (api) => {
      // Booleans and page sizes as real clients send them, for each route from its schema.
      api.addHook('onRoute', lenientQueries);
      api.addHook('onRequest', apiKeyCheckExcept(options.apiKeys, publicRoutes));
      // Unknown paths under the prefix go through the key check first: a 404 only with a key.
      api.setNotFoundHandler(noSuchOperation);
      api.addHook('preHandler', refuseUnusableNumbers);
      const onStoreChanged = options.onStoreChanged;
      if (onStoreChanged) {
        // Before the answer goes out: a client that made an association finds it scheduled.
        api.addHook('onSend', async (request, reply, payload) => {
          if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400) {
            await Promise.resolve(onStoreChanged()).catch(() => undefined);
          }
          return payload;
        });
      }
      registerApiUsage(api, { store: options.store, apiKeys: options.apiKeys, limits: options.apiUsageLimits });
      for (const register of groups) register(api, ctx);
      registerMetaRoutes(api, () => openApi);
    },
    { prefix: API_PREFIX },
  );
  await app.ready();
  for (const route of routes) if (route.schema.public) publicRoutes.add(route.url);
  const openApi = buildOpenApiDocument(routes, options.version);
  return app;
}

export interface RunningMonitoringServer {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> — the base URL clients are given (without /public-api/v1). */
  url: string;
  close(): Promise<void>;
}

export async function startMonitoringServer(
  options: MonitoringApiOptions & { listen?: { host?: string; port?: number } },
): Promise<RunningMonitoringServer> {
  const app = await createMonitoringApi(options);
  const host = options.listen?.host ?? '127.0.0.1';
  await app.listen({ host, port: options.listen?.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return { app, url: `http://${shownHost}:${port}`, close: () => app.close() };
}
