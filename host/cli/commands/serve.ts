// `driverbox serve`: the local Monitoring Public API v1 over the embedded store, on loopback
// by default, until Ctrl-C / SIGTERM. Drivers executed through the API run in the supervised
// sandbox process, as the agent's do, so a driver that crashes or wedges its isolate costs that
// child (killed, restarted) and never the API. Beside it: the Marketplace API emulator
// (/marketplace-api) and the application status.
import { redactUrl } from '../../store/db/database.js';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startSandboxProcess, type SandboxProcess } from '../../engine/process/index.js';
import { consoleRoutes } from '../../api/console/console-routes.js';
import { driverboxApiRoutes } from '../../api/driverbox/runs-routes.js';
import { marketplaceRoutes } from '../../api/marketplace/marketplace-routes.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../../api/monitoring/server.js';
import { ensureLocalAgent, setAgentAccess } from '../../store/fleet/agents.js';
import { startDriverboxServer } from '../../server/driverbox-server.js';
import { createMonitorProber, DEFAULT_PROBE_INTERVAL_MS } from '../../monitor/index.js';
import { openStore } from '../../store/store.js';
import { parseIntegerFlag } from '../options.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../../contract/errors.js';
import { parseFlags } from '../flags.js';
import { isInventoryFile, serverConfigFromFlags, serverFlagOptions, serverFlagsHelp } from '../server-flags.js';
import { untilStopped } from '../until-stopped.js';
import { terminalText } from '../../terminal-text.js';

export const serveHelp = `Usage: driverbox serve [options]

Serves the Monitoring Public API v1 (/public-api/v1) over the embedded store until Ctrl-C, with
the Marketplace API (/marketplace-api/v2, /marketplace-api/v1) and the application status
(/backend-api/v1/status). Every request needs an X-Api-Key header with one of the accepted keys.

Options:
${serverFlagsHelp}
  --config <file.json>      {store, listen: {host, port}, apiKeys, secretKey | secretKeyFile, marketplace,
                            externalHosts, corsOrigins, localAgent: {plan, apiEnabled, access, grantingUser}}; flags and
                            environment win over it (env DRIVERBOX_CONFIG)
  --probe-interval <s>      seconds between TCP sensor probe rounds (default ${DEFAULT_PROBE_INTERVAL_MS / 1000})
  --run-timeout <s>         deadline of a driver run executed through the API, seconds (default 60); a run
                            still going 5 s past it means its sandbox process is wedged: it is killed and
                            restarted, and the run fails with TIMEOUT_ERROR
  --quiet                   do not print a line per request
  -h, --help                this help

The data folder is $DRIVERBOX_DATA_DIR, else the platform's (~/.local/share/driverbox on Linux).

Exit code: 0 stopped by Ctrl-C or SIGTERM, 1 the store or the port cannot be used, 2 usage or config error.`;

/**
 * The status probe of this process's sandbox. It runs drivers in the supervised sandbox process
 * and has no scheduler (that is `driverbox agent`), so the scheduler module is left out of the status.
 */
function sandboxProbe(sandbox: SandboxProcess): () => void {
  return () => {
    const { state, lastKill } = sandbox.stats();
    if (state !== 'ready') throw new Error(`the sandbox process is ${state}${lastKill ? ` (last killed: ${lastKill.reason})` : ''}`);
  };
}

function describeExternalHosts(hosts: readonly string[]): string {
  if (hosts.includes('*')) return 'any host';
  return hosts.length ? hosts.join(', ') : 'no external host';
}

export const serveFlags = {
  ...serverFlagOptions,
  config: { type: 'string' },
  'probe-interval': { type: 'string' },
  'run-timeout': { type: 'string' },
  quiet: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function serveCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, serveFlags);
  if (values.help) {
    io.stdout(serveHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`serve takes no arguments (got ${positionals.join(' ')})`);
  const probeSeconds = parseIntegerFlag('probe-interval', values['probe-interval'], 1);
  const runTimeoutSeconds = parseIntegerFlag('run-timeout', values['run-timeout'], 1);
  if (values.config !== undefined && isInventoryFile(path.resolve(io.cwd, values.config))) {
    throw new UsageError(`--config ${values.config} is an agent inventory, not a server config file: run it with driverbox agent --inventory ${values.config}`);
  }
  const config = serverConfigFromFlags(values, values.config, io);

  const store = await openStore({ path: config.storePath, secretKey: config.secretKey, bounds: config.storeBounds });
  let host: SandboxProcess;
  try {
    host = await startSandboxProcess({ host: runTimeoutSeconds ? { limits: { timeoutMs: runTimeoutSeconds * 1000 } } : {} });
  } catch (error) {
    await store.close();
    io.stderr(`driverbox serve: the sandbox process cannot be started: ${(error as Error).message}`);
    return 1;
  }
  host.on('exit', (event) => {
    if (event.expected) return;
    const how = event.killedBecause ? `was killed because ${event.killedBecause}` : event.signal ? `died (signal ${event.signal})` : `died (exit code ${event.code})`;
    io.stderr(`driverbox serve: the sandbox process (pid ${event.pid}) ${how}; ${event.lostRuns} run(s) in flight ended as failed; it is being restarted`);
  });
  // TCP sensors are really probed: each round writes UP / DOWN and the round trips as RTD samples.
  const prober = createMonitorProber(store, {
    intervalMs: (probeSeconds ?? DEFAULT_PROBE_INTERVAL_MS / 1000) * 1000,
    onError: (error) => io.stderr(`driverbox serve: a TCP probe round failed: ${error.message}`),
  });
  try {
    const local = await ensureLocalAgent(store);
    // The config file's localAgent: the plan and access right of this server's own agent.
    if (config.localAgent) await setAgentAccess(store, local.id, config.localAgent);
    let server: RunningMonitoringServer;
    try {
      server = await startDriverboxServer({
        store,
        executor: host,
        externalHosts: config.externalHosts,
        corsOrigins: config.corsOrigins,
        apiKeys: config.apiKeys,
        listen: config.listen,
        onRequestDone: values.quiet ? undefined : (r) => io.stdout(`${terminalText(`${r.method} ${r.url}`, { oneLine: true })} → ${r.status} (${r.ms.toFixed(1)} ms)`),
        status: { sandbox: sandboxProbe(host), scheduler: null },
        marketplace: config.marketplace,
      });
    } catch (error) {
      io.stderr(`driverbox serve: cannot listen on ${config.listen.host}:${config.listen.port}: ${(error as Error).message}`);
      return 1;
    }
    const stopped = untilStopped(); // before the "Ctrl-C to stop" line
    io.stdout(
      [
        `driverbox Monitoring API on ${server.url}/public-api/v1`,
        `  console      ${server.url}/ (sign in with an API key)`,
        `  store        ${redactUrl(config.storePath)}`,
        `  API keys     ${config.apiKeys.length} accepted, from ${config.sources.apiKeys}`,
        `  credentials  encrypted with the secret from ${config.sources.secretKey}`,
        `  OpenAPI      ${server.url}/public-api/v1/meta/open-api-definition (no key needed)`,
        `  CORS         ${config.corsOrigins.length ? `browser pages of ${config.corsOrigins.join(', ')}` : 'off (--cors-origin to allow browser pages)'}`,
        `  Marketplace  ${server.url}/marketplace-api/v2 (and the deprecated /marketplace-api/v1)`,
        `  status       ${server.url}/backend-api/v1/status`,
        `  TCP sensors  probed every ${prober.intervalMs / 1000} s`,
        `  drivers      run in sandbox process ${host.stats().pid ?? '?'}; API drivers may reach ${describeExternalHosts(config.externalHosts)} with D.createExternalDevice`,
        '',
        `Try: curl -H "X-Api-Key: <key>" ${server.url}/public-api/v1/agent`,
        'Ctrl-C to stop.',
      ].join('\n'),
    );
    prober.start();
    const signal = await stopped;
    await prober.stop();
    await server.close();
    io.stdout(`Stopped (${signal}).`);
    return 0;
  } finally {
    await prober.stop();
    await host.close();
    await store.close();
  }
}
