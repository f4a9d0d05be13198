// `driverbox demo` (npm start): serves each example's simulated device on loopback,
// runs the example driver against it, prints what it reported, stores each result in the
// embedded store (under an agent of its own, "driverbox demo", under the Enterprise Plan so
// every operation answers for it, applications included), and reads the variables back
// through the Monitoring API served in this process. No device, no network. In a terminal (or
// with --serve) it then keeps serving the web console over that store until Ctrl-C
// (../demo-serve.ts); without one (CI, a pipe) it ends, as before.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MonitoringClient } from '../../api/monitoring/client/client.js';
import { startMonitoringServer } from '../../api/monitoring/server.js';
import { createAgentRecord, listAgents, setAgentAccess, type AgentRow } from '../../store/fleet/agents.js';
import { resolveStorePath } from '../../store/db/data-dir.js';
import { createDevice, listDevices } from '../../store/fleet/devices.js';
import { listEntryPoints } from '../../driver/entry-points.js';
import { writeRunResult } from '../../store/runs/report-run.js';
import { setAgentVariable } from '../../store/results/variables.js';
import { openStore, type Store } from '../../store/store.js';
import { packagePath } from '../../package-path.js';
import { runDriver } from '../../testing/run-driver.js';
import { formatResult, styleFor } from '../format.js';
import type { CliIo } from '../io.js';
import { parseFlags } from '../flags.js';
import { UsageError } from '../../contract/errors.js';
import { resolveServerConfig } from '../../config/server-config.js';
import { serveDemo, type DemoExample } from '../demo-serve.js';

export function examplesDir(): string {
  const dir = packagePath('drivers-examples');
  if (!dir) throw new Error('drivers-examples/ not found next to the driverbox package');
  return dir;
}

/** An example's external hosts: hosts/<host name>.json beside its device.json. */
function externalHosts(folder: string): Record<string, string> {
  const dir = path.join(folder, 'hosts');
  if (!existsSync(dir)) return {};
  return Object.fromEntries(
    readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file.slice(0, -'.json'.length), path.join(dir, file)]),
  );
}

export const demoHelp = `Usage: driverbox demo [options]

Runs every example driver (drivers-examples/) against its simulated device, prints what each
reported, stores the results in the embedded store under the agent "driverbox demo" (one device
per example, and agent variables counting the examples; the agent is under the Enterprise Plan,
so the application operations answer for it too), and reads the variables back through the
Monitoring API.

Then, in a terminal, it keeps serving the web console over that store (printing its address and
the API key to sign in with) until Ctrl-C: the simulated devices stay up and the example drivers
are in the driver library, so the console's editor can run them against them.

Options:
  --store <file>   the store (env DRIVERBOX_STORE; default: driverbox.db in $DRIVERBOX_DATA_DIR
                   or the user's data folder)
  --serve          keep serving the console after the examples even without a terminal
  --no-serve       end after the examples even in a terminal (the default without one, or with CI set)
  --port <n>       the console's port when serving (default 7420; a free one when it is taken)
  -h, --help       this help

The API key is the one \`driverbox serve\` uses: DRIVERBOX_API_KEYS, or the api-key file of the data
folder (made on first use).

Exit code: 0 every example succeeded, 1 one failed, 2 usage error.`;

const DEMO_AGENT = 'driverbox demo';

/** The demo's agent, under the Enterprise Plan (one an older demo made is moved to it). */
async function demoAgent(store: Store): Promise<AgentRow> {
  const agent = (await listAgents(store, { displayName: DEMO_AGENT })).find((a) => a.displayName === DEMO_AGENT);
  if (!agent) return await createAgentRecord(store, { displayName: DEMO_AGENT, enterprisePlan: true });
  return agent.enterprisePlan ? agent : (await setAgentAccess(store, agent.id, { enterprisePlan: true }))!;
}

/** The example's device under the demo agent, made on first use (the simulator's port changes every run). */
async function demoDevice(store: Store, agentId: number, example: string): Promise<number> {
  const name = `example ${example}`;
  return ((await listDevices(store, agentId)).find((d) => d.displayName === name) ?? await createDevice(store, agentId, { displayName: name, ip: '127.0.0.1' })).id;
}

export const demoFlags = {
  store: { type: 'string' },
  serve: { type: 'boolean' },
  'no-serve': { type: 'boolean' },
  port: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Keep serving after the examples: asked for, or a person at a terminal (not CI, not a pipe). */
export function demoServes(values: { serve?: boolean; 'no-serve'?: boolean }, io: CliIo, stdinIsTTY = process.stdin.isTTY === true): boolean {
  if (values.serve && values['no-serve']) throw new UsageError('--serve and --no-serve cannot be used together');
  if (values.serve !== undefined) return values.serve;
  if (values['no-serve'] !== undefined) return !values['no-serve'];
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false' && io.env.CI !== '0';
  return io.stdoutStream.isTTY === true && stdinIsTTY && !ci;
}

export async function demoCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, demoFlags);
  if (values.help) {
    io.stdout(demoHelp);
    return 0;
  }
  if (positionals.length) throw new UsageError(`demo takes no arguments (got ${positionals.join(' ')})`);
  const serve = demoServes(values, io);
  let port: number | undefined;
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) throw new UsageError(`--port takes a port number (0-65535), not ${values.port}`);
    port = Number(values.port);
  }
  // Serving: the store, keys and address `driverbox serve` would use (the secret key seals the simulated devices' credentials).
  const config = serve ? resolveServerConfig({ flags: { store: values.store, port }, env: io.env, cwd: io.cwd }) : null;
  const storePath = config?.storePath ?? resolveStorePath({ flag: values.store, env: io.env, cwd: io.cwd });
  const store = await openStore({ path: storePath, ...(config ? { secretKey: config.secretKey } : {}) });
  try {
    const ran = await runExamples(io, store, storePath);
    if (!config) return ran.code;
    const served = await serveDemo(io, {
      store,
      agentId: ran.agentId,
      examples: ran.examples,
      apiKeys: config.apiKeys,
      apiKeySource: config.sources.apiKeys,
      listen: config.listen,
    });
    return ran.code || served;
  } finally {
    await store.close();
  }
}

async function runExamples(io: CliIo, store: Store, storePath: string): Promise<{ code: number; agentId: number; examples: DemoExample[] }> {
  const agent = await demoAgent(store);
  const root = examplesDir();
  const examples = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(root, d.name, 'driver.js')) && existsSync(path.join(root, d.name, 'device.json')))
    .map((d) => d.name)
    .sort();
  const style = styleFor(io.stdoutStream, io.env);
  let failed = 0;
  const placed: DemoExample[] = [];
  for (const name of examples) {
    const folder = path.join(root, name);
    const hosts = externalHosts(folder);
    const result = await runDriver({ path: path.join(folder, 'driver.js'), simulate: path.join(folder, 'device.json'), simulateHosts: hosts });
    if (result.status !== 'success') failed++;
    await writeRunResult(store, { agentId: agent.id, deviceId: await demoDevice(store, agent.id, name), driverName: name, user: 'driverbox demo' }, result);
    placed.push({ name, folder, deviceId: await demoDevice(store, agent.id, name) });
    const where = ['device.json', ...Object.keys(hosts)].join(' + ');
    io.stdout(`${formatResult(result, `${name} · get_status · simulated: ${where}`, style)}\n`);
    // Configuration-management examples also back their device up (the history the API serves).
    if (listEntryPoints(readFileSync(path.join(folder, 'driver.js'), 'utf8')).some((e) => e.name === 'backup')) {
      const saved = await runDriver({ path: path.join(folder, 'driver.js'), simulate: path.join(folder, 'device.json'), simulateHosts: hosts, action: 'backup' });
      if (saved.status !== 'success' && result.status === 'success') failed++; // an example counts once
      await writeRunResult(store, { agentId: agent.id, deviceId: await demoDevice(store, agent.id, name), driverName: name, user: 'driverbox demo' }, saved);
      io.stdout(`${formatResult(saved, `${name} · backup · simulated: ${where}`, style)}\n`);
    }
  }
  io.stdout(`${examples.length - failed} of ${examples.length} example drivers succeeded`);
  // The agent's own variables, as a real agent has (listAgentVariables).
  await setAgentVariable(store, agent.id, { path: 'demo.examples', label: 'Example drivers', value: String(examples.length), valueType: 'NUMBER' });
  await setAgentVariable(store, agent.id, { path: 'demo.succeeded', label: 'Example drivers that succeeded', value: String(examples.length - failed), valueType: 'NUMBER' });

  // Read the stored results back the way any monitoring client would: through the API.
  const apiKey = randomBytes(16).toString('hex');
  const server = await startMonitoringServer({ store, apiKeys: [apiKey] });
  const client = new MonitoringClient({ baseUrl: server.url, apiKey });
  try {
    const devices = await client.listDevices(agent.id);
    const variables = await client.countAgentDeviceVariables(agent.id);
    const agentVariables = await client.countAgentVariables(agent.id);
    const applications = await client.countAgentDeviceApplications(agent.id);
    io.stdout(
      [
        `Stored in ${storePath}: agent "${DEMO_AGENT}" (id ${agent.id}), ${devices.length} devices, ${variables} variables,`,
        `read back through the Monitoring API (GET /public-api/v1/agent/${agent.id}/device/variable).`,
        `The agent is under the Enterprise Plan: ${agentVariables} agent variables (GET /public-api/v1/agent/${agent.id}/variable), ${applications} applications`,
        `(GET /public-api/v1/agent/${agent.id}/device/application).`,
        'Browse them with `npx driverbox serve`, and in the web console it serves at its address (http://127.0.0.1:7420/ by default);',
        '`npm start` in a terminal keeps serving that console itself (`npx driverbox demo --serve` anywhere).',
      ].join('\n'),
    );
  } finally {
    await client.close();
    await server.close();
  }
  return { code: failed === 0 ? 0 : 1, agentId: agent.id, examples: placed };
}
