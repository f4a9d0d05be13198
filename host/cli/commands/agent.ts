// `driverbox agent`: the long-running collector. Schedules every association of the inventory
// (and those made through the API) in the supervised sandbox process, writes results to the
// store, serves the Monitoring API with /metrics and /backend-api/v1/status, and reacts to
// signals: SIGINT / SIGTERM drain and stop, SIGHUP reloads the inventory.
import { hostname } from 'node:os';
import { isPostgresUrl, redactUrl } from '../../store/db/database.js';
import path from 'node:path';
import type { Agent } from '../../agent/agent.js';
import { DEFAULT_GRACE_MS, type AgentBackoffEvent, type AgentRunFinished } from '../../agent/agent-types.js';
import { createAgent } from '../../server/agent-server.js';
import { InventoryError } from '../../agent/inventory/index.js';
import { parseRedisUrl, ScaleOutError } from '../../scale-out/index.js';
import type { InventorySyncResult } from '../../agent/inventory/index.js';
import { createMonitorProber, DEFAULT_PROBE_INTERVAL_MS } from '../../monitor/index.js';
import { ensureLocalAgent, setAgentAccess } from '../../store/fleet/agents.js';
import { openStore } from '../../store/store.js';
import type { CliIo } from '../io.js';
import { parseIntegerFlag } from '../options.js';
import { isInventoryFile, serverConfigFromFlags, serverFlagOptions, serverFlagsHelp } from '../server-flags.js';
import { UsageError } from '../../contract/errors.js';
import { parseFlags } from '../flags.js';
import { terminalText } from '../../terminal-text.js';
import { firstCause } from '../../agent/first-cause.js';

const DEFAULT_SUMMARY_SECONDS = 60;

export const agentHelp = `Usage: driverbox agent [--inventory inventory.yaml] [options]

Runs every association of the inventory on its sample period (get_status, or the driver's
actions), in a supervised sandbox process, and writes the results to the store. Associations made
through the API are scheduled the same way. Serves the Monitoring API (/public-api/v1), /metrics
(Prometheus) and /backend-api/v1/status from the same process.

Options:
  --inventory <file>        the inventory (YAML or JSON: devices, drivers, associations; see
                            docs/reference/agent/inventory.md). Without it only API-made associations run.
  --config <file.json>      the server config file, as for serve: {store, listen: {host, port}, apiKeys,
                            secretKey | secretKeyFile, marketplace, externalHosts, corsOrigins,
                            localAgent}; flags and environment win over it
                            (env DRIVERBOX_CONFIG)
${serverFlagsHelp}
  --queue <url>             scale-out mode: take runs from this Redis (redis://host:port), shared
                            with the other agents of the cluster, instead of scheduling them here;
                            use with a shared --store postgres://… (env DRIVERBOX_QUEUE;
                            docs/architecture/scale-out.md)
  --run-deadline <s>        scale-out: the longest an association's run may take; a slot starts
                            only while slot + period − this is ahead (default 2 × --run-timeout)
  --name <name>             scale-out: this agent's name in the queue and in its runs' records
                            (default driverbox-<host>-<pid>)
  --max-concurrent <n>      runs in flight at once (default 32)
  --max-per-device <n>      runs in flight at once on one device (default 2; scale-out: per agent)
  --jitter <s>              first runs are spread over min(period, this) seconds (default 30)
  --run-timeout <s>         a run's deadline, seconds (default 60)
  --sandbox-threads <n>     threads of the sandbox process that run drivers (default the larger of
                            2 and cores − 1): a driver spinning to its deadline holds one of them
  --backoff-after <n>       an association whose runs hit a limit (timeout, cpu, memory) this many
                            times in a row has its runs spaced out (2, 4, 8… periods) until one
                            succeeds or it is re-enabled; shown DISABLED in the API (default 3;
                            0: never)
  --backoff-max <s>         the longest wait between two runs of an association backing off
                            (default 3600)
  --grace <s>               on SIGINT / SIGTERM, how long runs in flight may finish (default ${DEFAULT_GRACE_MS / 1000})
  --probe-interval <s>      seconds between TCP sensor probe rounds (default ${DEFAULT_PROBE_INTERVAL_MS / 1000})
  --summary-interval <s>    print a summary line this often (default ${DEFAULT_SUMMARY_SECONDS}; 0: never)
  --verbose                 print every run and every API request (default: failed runs only)
  --quiet                   print only errors
  -h, --help                this help

Deprecated spellings (still read, with a warning): --config <inventory.yaml> for --inventory,
--server-config <file.json> for --config.

Signals: SIGINT / SIGTERM stop scheduling, let runs in flight finish within --grace, close the
store and exit 0 (a second one exits at once, 130). SIGHUP reads the inventory again: changes apply
without dropping runs in flight; a bad inventory is reported and the old one kept.

Exit code: 0 stopped by a signal, 1 the store or the port cannot be used, 2 usage or inventory error.`;

function seconds(flag: string, value: string | undefined, min: number): number | undefined {
  const n = parseIntegerFlag(flag, value, min);
  return n === undefined ? undefined : n * 1000;
}

function describeRun(run: AgentRunFinished): string {
  const r = run.result;
  // One line per run whatever the driver's message holds: its names and message escaped.
  const what = terminalText(`${run.name} ${run.action}`, { oneLine: true });
  const ms = `${Math.round(r.durationMs)} ms`;
  if (r.status === 'success') return `run ${what}: success, ${r.variables.length} variable(s) (${ms})`;
  const cause = firstCause(r);
  const because = cause === null ? '' : `; cause: ${terminalText(cause, { oneLine: true })}`;
  return `run ${what}: failure ${r.errorType ?? ''}${r.message ? `: ${terminalText(r.message, { oneLine: true })}` : ''}${because} (${ms})`;
}

function describeStoreWarnings(run: AgentRunFinished): string {
  const what = terminalText(`${run.name} ${run.action}`, { oneLine: true });
  return `driverbox agent: ${what}: the store refused part of the result (said once while it lasts): ${terminalText(run.storeWarnings.join('; '), { oneLine: true })}`;
}

function describeBackoff(event: AgentBackoffEvent): string {
  if (event.restoredBy === 'success') return `${event.name} (association ${event.associationId}) ran without hitting a limit: back to its period, enabled again`;
  if (event.restoredBy === 'operator') return `${event.name} (association ${event.associationId}) was re-enabled: back to its period`;
  const next = event.until === null ? '' : ` until ${new Date(event.until).toISOString()}`;
  return (
    `${event.name} (association ${event.associationId}) hit its ${event.limit} limit ${event.hits} runs in a row: ` +
    `disabled due to failure, its next run in ${Math.round(event.backoffMs / 1000)} s${next} (a run that succeeds, or re-enabling it, restores it)`
  );
}

/** Names shown per kind of change on the reload line; the rest are counted. */
const NAMES_SHOWN = 5;

/** "2 devices (a, b)", or null for none; names escaped, at most NAMES_SHOWN of them. */
function changedNames(kind: string, list: ReadonlyArray<{ name: string }>): string | null {
  if (list.length === 0) return null;
  const shown = list.slice(0, NAMES_SHOWN).map((n) => terminalText(n.name, { oneLine: true })).join(', ');
  const more = list.length > NAMES_SHOWN ? ` and ${list.length - NAMES_SHOWN} more` : '';
  return `${list.length} ${kind}${list.length === 1 ? '' : 's'} (${shown}${more})`;
}

/** What a reload really changed in the store, by kind: "added 1 association (slow@b); updated 1 driver (poll) (…)". */
export function describeSync(sync: InventorySyncResult): string {
  const changes: string[] = [];
  for (const [verb, key] of [['added', 'added'], ['updated', 'updated'], ['removed', 'removed']] as const) {
    const parts = [changedNames('association', sync.associations[key]), changedNames('device', sync.devices[key]), changedNames('driver', sync.drivers[key])].filter((p) => p !== null);
    if (parts.length) changes.push(`${verb} ${parts.join(', ')}`);
  }
  return `${changes.length ? changes.join('; ') : 'nothing changed'} (${sync.scheduled.length} association(s) in the inventory)`;
}

export const agentFlags = {
  inventory: { type: 'string' },
  config: { type: 'string' },
  ...serverFlagOptions,
  'server-config': { type: 'string' },
  queue: { type: 'string' },
  'run-deadline': { type: 'string' },
  name: { type: 'string' },
  'max-concurrent': { type: 'string' },
  'max-per-device': { type: 'string' },
  jitter: { type: 'string' },
  'run-timeout': { type: 'string' },
  'sandbox-threads': { type: 'string' },
  'backoff-after': { type: 'string' },
  'backoff-max': { type: 'string' },
  grace: { type: 'string' },
  'probe-interval': { type: 'string' },
  'summary-interval': { type: 'string' },
  verbose: { type: 'boolean', default: false },
  quiet: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The inventory and server config files, from today's flags or their old spellings (with a warning line each). */
function agentFiles(values: { inventory?: string; config?: string; 'server-config'?: string }, io: CliIo): { inventory?: string; serverConfig?: string } {
  let inventory = values.inventory;
  let serverConfig = values.config;
  if (values.config !== undefined && isInventoryFile(path.resolve(io.cwd, values.config))) {
    if (values.inventory !== undefined) {
      throw new UsageError(`--config ${values.config} is an inventory, and --inventory ${values.inventory} is given too: --config is the server config file (as for serve)`);
    }
    io.stderr(`driverbox agent: deprecated: --config ${values.config} names an inventory; write --inventory ${values.config} (--config is the server config file, as for serve)`);
    [inventory, serverConfig] = [values.config, undefined];
  }
  if (values['server-config'] !== undefined) {
    if (serverConfig !== undefined) throw new UsageError('--server-config is the old name of --config: give one of them');
    io.stderr(`driverbox agent: deprecated: --server-config is now --config; write --config ${values['server-config']}`);
    serverConfig = values['server-config'];
  }
  return { inventory, serverConfig };
}

export async function agentCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, agentFlags);
  if (values.help) {
    io.stdout(agentHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`agent takes no arguments (got ${positionals.join(' ')}); the inventory goes after --inventory`);
  const files = agentFiles(values, io);
  if (values.verbose && values.quiet) throw new UsageError('--verbose and --quiet cannot be used together');
  const maxConcurrent = parseIntegerFlag('max-concurrent', values['max-concurrent'], 1);
  const maxPerDevice = parseIntegerFlag('max-per-device', values['max-per-device'], 1);
  const jitterMs = seconds('jitter', values.jitter, 0);
  const timeoutMs = seconds('run-timeout', values['run-timeout'], 1);
  const sandboxThreads = parseIntegerFlag('sandbox-threads', values['sandbox-threads'], 1);
  const backoffAfter = parseIntegerFlag('backoff-after', values['backoff-after'], 0);
  const backoffMaxMs = seconds('backoff-max', values['backoff-max'], 1);
  const graceMs = seconds('grace', values.grace, 0);
  const probeMs = seconds('probe-interval', values['probe-interval'], 1) ?? DEFAULT_PROBE_INTERVAL_MS;
  const summaryMs = seconds('summary-interval', values['summary-interval'], 0) ?? DEFAULT_SUMMARY_SECONDS * 1000;
  const config = serverConfigFromFlags(values, files.serverConfig, io);
  const say = values.quiet ? () => undefined : io.stdout;
  const queueUrl = values.queue ?? (io.env.DRIVERBOX_QUEUE || undefined);
  const deadlineMs = seconds('run-deadline', values['run-deadline'], 1);
  if (!queueUrl && (deadlineMs !== undefined || values.name !== undefined)) throw new UsageError('--run-deadline and --name are for the scale-out mode: give --queue redis://… too');
  if (queueUrl && values.jitter !== undefined) throw new UsageError('--jitter does not apply with --queue: each association keeps a fixed offset in its period');
  if (queueUrl) {
    // A bad URL is a usage error, said before the store is opened.
    try {
      parseRedisUrl(queueUrl);
    } catch (error) {
      throw new UsageError(`--queue: ${(error as Error).message}`);
    }
  }
  if (queueUrl && !isPostgresUrl(config.storePath)) {
    io.stderr(`driverbox agent: --queue with the SQLite store ${config.storePath}: only agents on this machine's file can share it; give every agent the same --store postgres://…`);
  }

  const store = await openStore({ path: config.storePath, secretKey: config.secretKey, bounds: config.storeBounds });
  // The config file's localAgent: the plan and access right of this agent in the API.
  if (config.localAgent) await setAgentAccess(store, (await ensureLocalAgent(store)).id, config.localAgent);
  const agent = createAgent({
    store,
    inventory: files.inventory,
    env: io.env,
    scheduler: { maxConcurrent, maxPerDevice, jitterMs },
    queue: queueUrl ? { url: queueUrl, deadlineMs, name: values.name ?? `driverbox-${hostname()}-${process.pid}` } : undefined,
    limits: timeoutMs ? { timeoutMs } : undefined,
    sandbox: sandboxThreads ? { host: { threads: sandboxThreads } } : undefined,
    backoff: { threshold: backoffAfter, maxMs: backoffMaxMs },
    externalHosts: config.externalHosts,
    graceMs,
    api: {
      apiKeys: config.apiKeys,
      host: config.listen.host,
      port: config.listen.port,
      marketplace: config.marketplace,
      corsOrigins: config.corsOrigins,
      onRequestDone: values.verbose ? (r) => io.stdout(`${terminalText(`${r.method} ${r.url}`, { oneLine: true })} → ${r.status} (${r.ms.toFixed(1)} ms)`) : undefined,
    },
  });
  agent.on('error', (error) => io.stderr(`driverbox agent: ${error.message}`));
  agent.on('backoff', (event) => io.stderr(`driverbox agent: ${describeBackoff(event)}`));
  // A device past the store's bounds (variables, tables) is said when it starts, not every run:
  // a driver naming new variables each run would otherwise repeat it every period.
  const storeRefusing = new Set<number>();
  agent.on('runFinished', (run) => {
    if (values.verbose) io.stdout(describeRun(run));
    else if (run.result.status === 'failure' && !values.quiet) io.stderr(describeRun(run));
    if (run.storeWarnings.length === 0) storeRefusing.delete(run.associationId);
    else if (!storeRefusing.has(run.associationId)) {
      storeRefusing.add(run.associationId);
      if (!values.quiet) io.stderr(describeStoreWarnings(run));
    }
  });
  const prober = createMonitorProber(store, { intervalMs: probeMs, onError: (error) => io.stderr(`driverbox agent: a TCP probe round failed: ${error.message}`) });

  try {
    try {
      await agent.start();
    } catch (error) {
      if (error instanceof InventoryError) {
        io.stderr(`driverbox agent: the inventory cannot be used: ${error.message}`);
        return 2;
      }
      if (error instanceof ScaleOutError) {
        io.stderr(`driverbox agent: cannot take runs from the queue: ${error.message}`);
        return 1;
      }
      const message = (error as Error).message;
      if ((error as { code?: string }).code === 'EADDRINUSE' || /listen/i.test(message)) {
        io.stderr(`driverbox agent: cannot listen on ${config.listen.host}:${config.listen.port}: ${message}`);
        return 1;
      }
      throw error;
    }
    prober.start();
    // Listening before the banner: a SIGTERM or SIGHUP sent as soon as "Ctrl-C to stop" shows
    // must find the handlers (Node's default would kill the process without draining).
    const stopSignal = untilStopSignal(agent, io, say);
    say(banner(agent, config, files.inventory));
    const summary = summaryMs > 0 ? setInterval(() => say(summaryLine(agent)), summaryMs) : null;
    summary?.unref();
    const signal = await stopSignal;
    if (summary) clearInterval(summary);
    say(`Stopping (${signal}): letting runs in flight finish…`);
    await prober.stop();
    const stopped = await agent.stop();
    say(`Stopped: ${stopped.finished} run(s) finished, ${stopped.aborted} ended by the grace, ${stopped.dropped} never started.`);
    return 0;
  } finally {
    await prober.stop();
    await agent.stop({ graceMs: 0 });
    await store.close();
  }
}

function banner(agent: Agent, config: ReturnType<typeof serverConfigFromFlags>, inventory: string | undefined): string {
  const stats = agent.stats();
  return [
    `driverbox agent: ${stats.associations} association(s) scheduled${inventory ? ` from ${inventory}` : ''}${stats.mode === 'queue' ? ' (scale-out: runs from the queue, shared with the other agents)' : ''}`,
    `  API          ${agent.url}/public-api/v1 (${config.apiKeys.length} key(s), from ${config.sources.apiKeys})`,
    `  console      ${agent.url}/ (sign in with an API key)`,
    `  metrics      ${agent.url}/metrics`,
    `  status       ${agent.url}/backend-api/v1/status`,
    `  store        ${redactUrl(config.storePath)}`,
    `  sandbox      process ${stats.sandbox?.pid ?? '?'}`,
    'Ctrl-C to stop, SIGHUP to reload the inventory.',
  ].join('\n');
}

function summaryLine(agent: Agent): string {
  const s = agent.stats();
  const c = s.scheduler;
  const q = s.queue;
  if (!c && !q) return 'agent: not running';
  const share = q
    ? `${q.skippedLate} skipped late, ${q.refusedDuplicate} refused as duplicates, ${q.stalledRequeues} stalled re-queued`
    : `${c!.skipped} skipped; lateness p99 ${Math.round(c!.lateness.p99)} ms`;
  return (
    `agent: ${s.associations} association(s)${q ? ' (queue)' : ''}; runs ${s.results.success} succeeded, ${s.results.failure} failed, ` +
    `${share}; sandbox pid ${s.sandbox?.pid ?? '?'}, ${s.sandbox?.restarts ?? 0} restart(s)` +
    (s.sandbox?.rssBytes ? `, RSS ${Math.round(s.sandbox.rssBytes / (1024 * 1024))} MB` : '') +
    (s.sandbox?.overstayKills ? `, ${s.sandbox.overstayKills} killed for a run past its deadline` : '')
  );
}

/** Resolves with the first SIGINT / SIGTERM; SIGHUP reloads meanwhile; a second stop signal exits at once. */
function untilStopSignal(agent: Agent, io: CliIo, say: (text: string) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let stopping = false;
    const onStop = (signal: NodeJS.Signals) => {
      if (stopping) {
        io.stderr(`driverbox agent: ${signal} again: exiting without waiting for runs in flight`);
        process.exit(130);
      }
      stopping = true;
      process.off('SIGHUP', onReload);
      resolve(signal);
    };
    const onReload = () => {
      agent.reload().then(
        (sync) => say(`Reloaded: ${describeSync(sync)}; ${agent.stats().associations} scheduled.`),
        (error: unknown) => io.stderr(`driverbox agent: reload refused, the previous inventory stays in use: ${(error as Error).message}`),
      );
    };
    process.on('SIGINT', onStop);
    process.on('SIGTERM', onStop);
    process.on('SIGHUP', onReload);
  });
}
