// What `driverbox simulate` remembers between its runs, per fixture: the ports it served on, so a
// restarted simulator serves on the same ones and the `driverbox run` line printed before still
// reaches it. Kept in the data folder (not next to the fixture, which is usually under version
// control): <data dir>/simulate/<hash of the fixture's absolute path>/, which also holds the
// parameters and CA files the run line names, at paths that do not change between runs.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import dgram from 'node:dgram';
import net from 'node:net';
import path from 'node:path';
import { defaultDataDir } from '../store/db/data-dir.js';

/** Every listener a simulator may have; a fixture without the protocol leaves its port out. */
export const LISTENERS = ['http', 'https', 'ssh', 'snmp', 'telnet', 'winrm', 'winrmHttps'] as const;
export type Listener = (typeof LISTENERS)[number];
export type ListenerPorts = Partial<Record<Listener, number>>;

export interface SimulateState {
  /** The folder of this fixture's state (made on first use). */
  dir: string;
  /** The ports of the last run, {} when there was none (or its file is unreadable). */
  ports: ListenerPorts;
}

export function simulateStateDir(fixtureFile: string, env: NodeJS.ProcessEnv): string {
  const key = createHash('sha256').update(path.resolve(fixtureFile)).digest('hex').slice(0, 16);
  return path.join(defaultDataDir(env), 'simulate', key);
}

export function readSimulateState(fixtureFile: string, env: NodeJS.ProcessEnv): SimulateState {
  const dir = simulateStateDir(fixtureFile, env);
  let ports: ListenerPorts = {};
  try {
    const data = JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as { ports?: Record<string, unknown> };
    for (const name of LISTENERS) {
      const port = data.ports?.[name];
      if (Number.isInteger(port) && (port as number) > 0 && (port as number) < 65536) ports[name] = port as number;
    }
  } catch {
    ports = {}; // no earlier run, or a damaged file: free ports, as on a first run
  }
  return { dir, ports };
}

/** Remembers the ports served on; a data folder that cannot be written only loses the memory. */
export function writeSimulateState(state: SimulateState, fixtureFile: string, ports: ListenerPorts): string | null {
  try {
    mkdirSync(state.dir, { recursive: true });
    writeFileSync(path.join(state.dir, 'state.json'), `${JSON.stringify({ fixture: path.resolve(fixtureFile), ports }, null, 2)}\n`);
    return null;
  } catch (error) {
    return `the ports could not be remembered in ${state.dir}: ${(error as Error).message}`;
  }
}

/** Whether a port can be listened on at this address now (UDP for SNMP). */
export async function portIsFree(port: number, udp: boolean, address = '127.0.0.1'): Promise<boolean> {
  if (udp) {
    const socket = dgram.createSocket('udp4');
    return new Promise((resolve) => {
      socket.once('error', () => {
        socket.close();
        resolve(false);
      });
      socket.bind(port, address, () => socket.close(() => resolve(true)));
    });
  }
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, address, () => server.close(() => resolve(true)));
  });
}
