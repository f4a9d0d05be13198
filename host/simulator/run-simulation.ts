// `driverbox run drv.js --simulate device.json`: the device of one run is a simulator started for
// it (free ports, the port map set from them) and stopped after it. The fixture gives the device,
// its parameters, host names and certificate; flags given on the command line win over it. External
// hosts in hosts/<host name>.json beside the fixture are served too, as `npm start` serves the examples'.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { DeviceSpec, SnmpSettings } from '../contract/device.js';
import type { ResolveOption } from '../contract/run-request.js';
import { FixtureError, UsageError } from '../contract/errors.js';
import { startSimulator, type Simulator } from './simulator.js';
import { containedFile, UntrustedInputError } from '../untrusted-input/files.js';

export interface RunSimulation {
  device: DeviceSpec;
  parameters: Record<string, unknown>;
  resolve: ResolveOption;
  /** The simulators' HTTPS certificates, to trust as a CA would be. */
  trustedCAs: string[];
  /** Stops every simulator of the run. */
  close(): Promise<void>;
}

/** The device flags given on the command line (environment and .env values do not override a fixture). */
export interface DeviceFlags {
  host?: string;
  username?: string;
  password?: string;
  snmp: SnmpSettings | null;
}

/** hosts/<entry> beside the fixture, kept inside the fixture's folder as its body files are. */
function hostFixture(fixture: string, entry: string): string {
  try {
    return containedFile(path.dirname(fixture), `hosts/${entry}`);
  } catch (error) {
    if (!(error instanceof UntrustedInputError)) throw error;
    throw new FixtureError(fixture, [`hosts/${entry}: is refused: it ${error.message}`]);
  }
}

export async function startRunSimulation(fixtureArg: string, cwd: string, flags: DeviceFlags, parameters: Record<string, unknown> | undefined, resolve: ResolveOption | undefined): Promise<RunSimulation> {
  const file = path.resolve(cwd, fixtureArg);
  const started: Simulator[] = [];
  const close = () => Promise.all(started.map((s) => s.close())).then(() => undefined);
  try {
    const sim = await startSimulator(file); // a FixtureError (exit 2) names every problem
    started.push(sim);
    const pins: ResolveOption = { ...sim.resolve };
    const hostsDir = path.join(path.dirname(file), 'hosts');
    if (existsSync(hostsDir)) {
      for (const entry of readdirSync(hostsDir).filter((f) => f.endsWith('.json')).sort()) {
        const host = await startSimulator(hostFixture(file, entry));
        started.push(host);
        Object.assign(pins, host.resolve);
        pins[entry.slice(0, -'.json'.length)] = { ip: host.device.ip, portMap: host.portMap, onlyMappedPorts: true };
      }
    }
    const device: DeviceSpec = { ...sim.device };
    if (flags.host !== undefined) device.host = flags.host;
    if (flags.username !== undefined) device.username = flags.username;
    if (flags.password !== undefined) device.password = flags.password;
    if (flags.snmp) device.snmp = flags.snmp;
    return {
      device,
      parameters: { ...sim.parameters, ...parameters },
      resolve: { ...pins, ...resolve },
      trustedCAs: started.flatMap((s) => (s.certificatePem ? [s.certificatePem] : [])),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
