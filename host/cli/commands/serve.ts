// `driverbox serve`: the local Monitoring Public API v1 over the embedded store, on loopback
// by default, until Ctrl-C / SIGTERM. Drivers executed through the API run in this process.
// Beside it: the Marketplace API emulator (/marketplace-api) and the application status.
import { parseArgs } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { agentRoutes } from '../../agent/agent-routes.js';
import { createStatusSource, type HealthProbe, type ModuleName } from '../../agent/status.js';
import { createHost, type Host } from '../../host.js';
import { marketplaceRoutes } from '../../api/marketplace/marketplace-routes.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../../api/monitoring/server.js';
import { ensureLocalAgent } from '../../store/agents.js';
import { createMonitorProber, DEFAULT_PROBE_INTERVAL_MS } from '../../monitor/index.js';
import { openStore, type Store } from '../../store/store.js';
import { parseIntegerFlag } from '../options.js';
import type { CliIo } from '../main.js';
import { UsageError } from '../usage-error.js';
import { serverConfigFromFlags, serverFlagOptions, serverFlagsHelp } from '../server-flags.js';
import { untilStopped } from '../until-stopped.js';

export const serveHelp = `Usage: driverbox serve [options]

Serves the Monitoring Public API v1 (/public-api/v1) over the embedded store until Ctrl-C, with
the Marketplace API (/marketplace-api/v2, /marketplace-api/v1) and the application status
(/backend-api/v1/status). Every request needs an X-Api-Key header with one of the accepted keys.

Options:
${serverFlagsHelp}
  --config <file.json>      {store, listen: {host, port}, apiKeys, secretKey | secretKeyFile, marketplace}; flags and
                            environment win over it (env DRIVERBOX_CONFIG)
  --probe-interval <s>      seconds between TCP sensor probe rounds (default ${DEFAULT_PROBE_INTERVAL_MS / 1000})
  --quiet                   do not print a line per request
  -h, --help                this help

The data folder is $DRIVERBOX_DATA_DIR, else the platform's (~/.local/share/driverbox on Linux).
Exit code: 0 stopped by Ctrl-C or SIGTERM, 1 the store or the port cannot be used, 2 usage or config error.`;

/**
 * The status probes of this process. It runs drivers in an in-process host and has no
 * scheduler (that is `driverbox agent`), so the scheduler module is left out of the status.
 */
function serveProbes(store: Store, host: Host, server: () => RunningMonitoringServer | null): Record<ModuleName, HealthProbe | null> {
  return {
    sandbox: () => {
      host.stats();
    },
    store: () => {
      store.db.prepare('SELECT 1').get();
    },
    scheduler: null,
    http: () => {
      if (!server()?.app.server.listening) throw new Error('the API server is not listening');
    },
  };
}

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      ...serverFlagOptions,
      config: { type: 'string' },
      'probe-interval': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout(serveHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`serve takes no arguments (got ${positionals.join(' ')})`);
  const probeSeconds = parseIntegerFlag('probe-interval', values['probe-interval'], 1);
  const config = serverConfigFromFlags(values, values.config, io);

  const store = openStore({ path: config.storePath, secretKey: config.secretKey });
  const host = createHost();
  // TCP sensors are really probed: each round writes UP / DOWN and the round trips as RTD samples.
  const prober = createMonitorProber(store, {
    intervalMs: (probeSeconds ?? DEFAULT_PROBE_INTERVAL_MS / 1000) * 1000,
    onError: (error) => io.stderr(`driverbox serve: a TCP probe round failed: ${error.message}`),
  });
  try {
    ensureLocalAgent(store);
    let server: RunningMonitoringServer | null = null;
    const status = createStatusSource({ probes: serveProbes(store, host, () => server) });
    const apiKeys = config.apiKeys;
    try {
      server = await startMonitoringServer({
        store,
        host,
        apiKeys,
        listen: config.listen,
        onRequestDone: values.quiet ? undefined : (r) => io.stdout(`${r.method} ${r.url} → ${r.status} (${r.ms.toFixed(1)} ms)`),
        // Each its own plugin, so each keeps its own error bodies.
        extraRoutes: async (app: FastifyInstance) => {
          await app.register(agentRoutes, { status, apiKeys });
          await app.register(marketplaceRoutes, { ...config.marketplace, store, apiKeys });
        },
      });
    } catch (error) {
      io.stderr(`driverbox serve: cannot listen on ${config.listen.host}:${config.listen.port}: ${(error as Error).message}`);
      return 1;
    }
    io.stdout(
      [
        `driverbox Monitoring API on ${server.url}/public-api/v1`,
        `  store        ${config.storePath}`,
        `  API keys     ${config.apiKeys.length} accepted, from ${config.sources.apiKeys}`,
        `  credentials  encrypted with the secret from ${config.sources.secretKey}`,
        `  OpenAPI      ${server.url}/public-api/v1/meta/open-api-definition`,
        `  Marketplace  ${server.url}/marketplace-api/v2 (and the deprecated /marketplace-api/v1)`,
        `  status       ${server.url}/backend-api/v1/status`,
        `  TCP sensors  probed every ${prober.intervalMs / 1000} s`,
        '',
        `Try: curl -H "X-Api-Key: <key>" ${server.url}/public-api/v1/agent`,
        'Ctrl-C to stop.',
      ].join('\n'),
    );
    prober.start();
    const signal = await untilStopped();
    await prober.stop();
    await server.close();
    io.stdout(`Stopped (${signal}).`);
    return 0;
  } finally {
    await prober.stop();
    await host.close();
    store.close();
  }
}
