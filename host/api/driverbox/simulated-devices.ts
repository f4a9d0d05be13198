// The driverbox extension API's simulated devices: the fixtures driverbox ships with its examples
// (drivers-examples/<name>/device.json), offered to the console's editor as trial targets beside
// the store's devices. A trial against one starts the fixture's simulators for that run only (free
// loopback ports; the hosts/ beside it served too, as `driverbox run --simulate` does), runs the
// code as sent, answers as a trial against a stored device does, and stops them. Nothing is stored.
// The run trusts the certificates those simulators made at their start (RunRequest.trustedCAs),
// and nothing else beyond the server's trust.
//
//   GET  /driverbox-api/v1/simulated-device                    the fixtures, by name
//   POST /driverbox-api/v1/simulated-device/{name}/trial-run   edited code, run against one
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startRunSimulation } from '../../simulator/run-simulation.js';
import { loadFixture } from '../../simulator/load-fixture.js';
import { credentialSecrets, maskFor } from '../../store/runs/run-secrets.js';
import { ANY_EXTERNAL_HOST } from '../../agent/external-hosts.js';
import { ApiError } from '../monitoring/api-error.js';
import type { SimulatedDeviceInfo, TrialRunAnswer, TrialRunRequest } from './run-records.js';
import { driverDefaults, requireHost, runTrial, trialBodySchema, trialDriver, trialExternalHosts, type TrialRunOptions } from './trial-run-routes.js';

const NAME = '^[a-z0-9][a-z0-9._-]{0,63}$';

export interface SimulatedDeviceOptions extends TrialRunOptions {
  /** The folder whose <name>/device.json are the simulated devices; null: none. */
  simulatedDevices: string | null;
}

function fixtureFile(dir: string | null, name: string): string | null {
  if (!dir || !new RegExp(NAME).test(name)) return null;
  const file = path.join(dir, name, 'device.json');
  return existsSync(file) ? file : null;
}

/** Every readable fixture of the folder, by name; one that does not parse is left out. */
export function listSimulatedDevices(dir: string | null): SimulatedDeviceInfo[] {
  if (!dir || !existsSync(dir)) return [];
  const out: SimulatedDeviceInfo[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = fixtureFile(dir, name);
    if (!file) continue;
    try {
      const fixture = loadFixture(file);
      const protocols = [
        ...(fixture.routes.length ? ['http'] : []),
        ...(fixture.https ? ['https'] : []),
        ...(fixture.ssh ? ['ssh'] : []),
        ...(fixture.snmp ? ['snmp'] : []),
        ...(fixture.telnet ? ['telnet'] : []),
        ...(fixture.winrm ? ['winrm'] : []),
      ];
      out.push({ name, description: fixture.description, protocols, parameters: fixture.parameters });
    } catch {
      // A broken fixture is not offered; `driverbox simulate` on it says what is wrong.
    }
  }
  return out;
}

/** Registers the routes on an app already behind the key check (runs-routes.ts). */
export function registerSimulatedDevices(api: FastifyInstance, options: SimulatedDeviceOptions): void {
  const { store } = options;
  api.get('/simulated-device', async (): Promise<{ devices: SimulatedDeviceInfo[] }> => ({ devices: listSimulatedDevices(options.simulatedDevices) }));

  api.post<{ Params: { name: string }; Body: TrialRunRequest }>('/simulated-device/:name/trial-run', {
    schema: { params: { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: NAME } } }, body: trialBodySchema },
    handler: async (request): Promise<TrialRunAnswer> => {
      const { name } = request.params;
      const file = fixtureFile(options.simulatedDevices, name);
      if (!file) throw new ApiError(404, 'NOT_FOUND', `no simulated device ${JSON.stringify(name)} (GET /simulated-device lists them)`);
      const body = request.body;
      const driver = await trialDriver(store, body);
      const host = requireHost(options.host);
      const sim = await startRunSimulation(file, path.dirname(file), { snmp: null }, undefined, undefined).catch((error: Error) => {
        throw new ApiError(500, 'SIMULATOR_FAILED', `the simulated device ${name} could not be started: ${error.message}`);
      });
      try {
        // The driver's defaults, the fixture's values over them (they fit this device), the body's over both.
        const parameters = { ...(driver ? driverDefaults(driver) : {}), ...sim.parameters, ...body.parameters };
        // The simulation's own host names (its hosts/ servers, on loopback) are reachable too.
        const allowed = await trialExternalHosts(store, driver, body.code, options.externalHosts);
        const pinned = Object.keys(sim.resolve);
        const externalHosts = allowed && !allowed.includes(ANY_EXTERNAL_HOST) ? [...allowed, ...pinned] : allowed;
        const mask = maskFor(credentialSecrets(sim.device.username, sim.device.password));
        // This run alone trusts the certificates of the simulators started just above for it (the
        // fixture's HTTPS, its hosts/' HTTPS): from the server's own simulation, never the body,
        // whose schema has no such field.
        const trustedCAs = sim.trustedCAs.length > 0 ? { trustedCAs: sim.trustedCAs } : {};
        return await runTrial(host, body, { device: sim.device, parameters, resolve: sim.resolve, ...trustedCAs, ...(externalHosts ? { externalHosts } : {}) }, mask);
      } finally {
        await sim.close();
      }
    },
  });
}
