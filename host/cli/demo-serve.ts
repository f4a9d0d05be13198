// `driverbox demo` kept serving (npm start in a terminal, or --serve): after the examples ran,
// the web console and the APIs are served over the demo's store at a printed address, until
// Ctrl-C. The examples' simulated devices stay up, each demo device pointed at its simulator
// (address, port map, credentials), and each example driver is in the driver library, applied
// to its device with the fixture's parameters as the driver's defaults, so the console's editor
// can edit and run it against the simulated device.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { consoleRoutes } from '../api/console/console-routes.js';
import { driverboxApiRoutes } from '../api/driverbox/runs-routes.js';
import { startMonitoringServer, type RunningMonitoringServer } from '../api/monitoring/server.js';
import { createAssociation, findAssociation } from '../store/drivers/associations.js';
import { setDeviceCredentials } from '../store/fleet/credentials.js';
import { createCustomDriver, listCustomDrivers, updateCustomDriver } from '../store/drivers/custom-drivers.js';
import type { ParameterDefinition } from '../store/drivers/driver-input.js';
import { setDevicePortMap, setSnmpAuthentication } from '../store/fleet/devices.js';
import { startSandboxProcess } from '../engine/process/index.js';
import { startDriverboxServer } from '../server/driverbox-server.js';
import { snmpSettingsToApi } from '../snmp-settings.js';
import type { Store } from '../store/store.js';
import { startRunSimulation, type RunSimulation } from '../simulator/run-simulation.js';
import { untilStopped } from './until-stopped.js';
import type { CliIo } from './io.js';

export interface DemoExample {
  name: string;
  folder: string;
  deviceId: number;
}

export interface DemoServeOptions {
  store: Store;
  agentId: number;
  examples: DemoExample[];
  apiKeys: string[];
  /** Where the key comes from, to say so. */
  apiKeySource: string;
  listen: { host: string; port: number };
}

/** The fixture's parameters as driver parameter definitions whose defaults are the fixture's values. */
function parameterDefinitions(values: Record<string, unknown>): ParameterDefinition[] {
  const out: ParameterDefinition[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'number') out.push({ name, valueType: 'NUMBER', defaultValue: value });
    else if (typeof value === 'string') out.push({ name, valueType: 'STRING', defaultValue: value });
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out.push({ name, valueType: 'LIST', defaultValue: value });
  }
  return out;
}

/** The example in the library (made, or given the example's current code) and applied to its device. */
async function libraryDriver(store: Store, agentId: number, example: DemoExample, sim: RunSimulation): Promise<void> {
  const code = readFileSync(path.join(example.folder, 'driver.js'), 'utf8');
  const parameters = parameterDefinitions(sim.parameters);
  const existing = (await listCustomDrivers(store)).find((d) => d.name === example.name);
  const driver = !existing
    ? await createCustomDriver(store, { name: example.name, description: `The ${example.name} example (drivers-examples/${example.name})`, code, parameters })
    : existing.source === code
      ? existing
      : await updateCustomDriver(store, existing.id, { code, parameters });
  if (!driver.isValid || (await findAssociation(store, driver.id, example.deviceId))) return;
  const credentials = sim.device.username && sim.device.password ? { username: sim.device.username, password: sim.device.password } : undefined;
  try {
    await createAssociation(store, { customDriverId: driver.id, agentId, deviceId: example.deviceId, credentials });
  } catch {
    // The driver stays in the library; the editor still runs it on the device.
  }
}

/** Serves until SIGINT or SIGTERM; answers the exit code. */
export async function serveDemo(io: CliIo, options: DemoServeOptions): Promise<number> {
  const { store } = options;
  const simulations: RunSimulation[] = [];
  try {
    for (const example of options.examples) {
      const sim = await startRunSimulation(path.join(example.folder, 'device.json'), io.cwd, { snmp: null }, undefined, undefined);
      simulations.push(sim);
      await setDevicePortMap(store, example.deviceId, Object.fromEntries(Object.entries(sim.device.portMap ?? {}).map(([k, v]) => [k, v])));
      if (sim.device.username && sim.device.password) {
        await setDeviceCredentials(store, example.deviceId, 'CUSTOM_DRIVER_MANAGEMENT', { username: sim.device.username, password: sim.device.password });
      }
      if (sim.device.snmp) await setSnmpAuthentication(store, example.deviceId, snmpSettingsToApi(sim.device.snmp));
      await libraryDriver(store, options.agentId, example, sim);
    }
    // The editor's runs trust the simulators' self-signed certificates, as `npm start`'s own runs do.
    const host = await startSandboxProcess({ host: { trustedCAs: simulations.flatMap((s) => s.trustedCAs) } });
    let server: RunningMonitoringServer | null = null;
    try {
      const start = (port: number) =>
        // The console and the extension API only: no status, no Marketplace.
        startDriverboxServer({ store, executor: host, apiKeys: options.apiKeys, listen: { host: options.listen.host, port } });
      try {
        server = await start(options.listen.port);
      } catch (error) {
        // Another server has the port (a `driverbox serve`, say): any free port will do.
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
        server = await start(0);
      }
      const stopped = untilStopped(); // before the "Ctrl-C to stop" line
      io.stdout(
        [
          '',
          `Console: ${server.url}/`,
          `  sign in with the API key ${options.apiKeys[0]} (from ${options.apiKeySource}; \`npx driverbox serve\` takes it too)`,
          `  the demo's ${options.examples.length} simulated devices stay up, and their drivers are in the library to edit and run`,
          'Ctrl-C to stop.',
        ].join('\n'),
      );
      const signal = await stopped;
      io.stdout(`Stopped (${signal}).`);
      return 0;
    } finally {
      await server?.close();
      await host.close();
    }
  } finally {
    await Promise.all(simulations.map((s) => s.close()));
  }
}
