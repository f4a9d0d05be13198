// `driverbox simulate <fixture.json>`: serves a fixture's simulated device on 127.0.0.1 (or --host)
// until Ctrl-C / SIGTERM, prints the `npx driverbox run` line that reaches it, and logs every
// request with the route that answered it. It serves on the ports of its last run for that
// fixture when they are free (simulate-state.ts), and with --watch reloads the fixture when
// the file changes.
import { existsSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadFixture } from '../../simulator/load-fixture.js';
import type { Fixture } from '../../simulator/fixture-types.js';
import { startSimulator, type SimulatedRequest, type Simulator } from '../../simulator/simulator.js';
import { sshEventLine, sshListenLine } from '../../simulator/ssh/cli-lines.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../../contract/errors.js';
import { parseFlags } from '../flags.js';
import { untilStopped } from '../until-stopped.js';
import { snmpRequestLine, snmpServedLine } from '../../simulator/snmp/describe.js';
import { LISTENERS, portIsFree, readSimulateState, writeSimulateState, type Listener, type ListenerPorts } from '../simulate-state.js';
import { terminalText } from '../../terminal-text.js';

export const simulateHelp = `Usage: driverbox simulate <fixture.json> [options]

Serves the simulated device a fixture describes on 127.0.0.1 (or --host) until Ctrl-C, printing
the \`npx driverbox run\` line that reaches it and every request it answers.
The fixture format is described in docs/reference/simulator.md.

Without port flags, it serves on the ports it used last time for this fixture when they
are free (remembered in the data folder), so the printed run line keeps working across
restarts.

Options:
  --port <n>         port of the HTTP listener; 0: free ports for every listener, forgetting
                     the remembered ones (default: last time's, else a free port)
  --https-port <n>   port of the HTTPS listener, for a fixture with "https"
  --snmp-port <n>    UDP port of the SNMP agent, for a fixture with "snmp"
  --host <ip>        the IPv4 address to listen on (default 127.0.0.1; another address
                     exposes the simulated device to that network)
  --watch            reload the fixture when its file changes (a bad edit is reported and
                     the previous fixture keeps serving)
  -h, --help         this help

Exit code: 0 stopped by Ctrl-C or SIGTERM, 1 a port cannot be used, 2 usage error or bad fixture.`;

function parsePort(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError(`--${name} must be a port number 1–65535, or 0 for a free one (got "${value}")`);
  return Number(value);
}

/** Quotes an argument for a POSIX shell only when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The `npx driverbox run` line for this simulator (npx: it works pasted in the repository and in a project that installed driverbox). */
function runLine(sim: Simulator, fixtureFile: string, cwd: string, paramsFile: string | null, caFile: string | null): string {
  const driver = path.join(path.dirname(fixtureFile), 'driver.js');
  const args = ['npx', 'driverbox', 'run', existsSync(driver) ? path.relative(cwd, driver) || driver : '<driver.js>', '--device-ip', sim.device.ip];
  if (sim.device.host) args.push('--device-host', sim.device.host);
  args.push('--port-map', Object.entries(sim.portMap).map(([from, to]) => `${from}=${to}`).join(','));
  if (sim.device.username) args.push('--username', sim.device.username);
  if (sim.device.password) args.push('--password', sim.device.password);
  if (sim.device.snmp?.community && sim.device.snmp.community !== 'public') args.push('--snmp-community', sim.device.snmp.community);
  if (sim.device.snmp?.writeCommunity) args.push('--snmp-write-community', sim.device.snmp.writeCommunity);
  if (paramsFile) args.push('--params', paramsFile);
  // The fixture's host names are pinned here, so a driver that dials them needs no DNS entry.
  for (const [name, pin] of Object.entries(sim.resolve)) {
    const entry = typeof pin === 'string' ? { ip: pin, portMap: {} } : pin;
    args.push('--resolve', [`${name}=${entry.ip}`, ...Object.entries(entry.portMap ?? {}).map(([from, to]) => `${from}=${to}`)].join(','));
  }
  if (caFile) args.push('--ca', caFile);
  return args.map((a, i) => (i === 3 && a === '<driver.js>' ? a : shellWord(a))).join(' ');
}

export function requestLine(request: SimulatedRequest, stateBefore: string): string {
  // reset and timeout send no status; close sends one, then cuts the body short.
  const outcome = request.status === null ? `${request.outcome}` : request.outcome === 'close' ? `${request.status} (body cut short)` : String(request.status);
  const route = request.routeIndex !== null ? `routes[${request.routeIndex}] ${request.route}` : 'no route';
  const reason = request.reason ? `: ${request.reason}` : '';
  const state = request.state !== stateBefore ? ` · state "${request.state}"` : '';
  return `#${request.seq} ${request.protocol.padEnd(5)} ${request.method} ${request.url} → ${outcome}  ${route}${reason}${state}`;
}

/** The listeners a fixture has. */
function listenersOf(fixture: Fixture): Set<Listener> {
  const has: Record<Listener, boolean> = {
    http: true,
    https: fixture.https !== null,
    ssh: fixture.ssh !== null,
    snmp: fixture.snmp !== null,
    telnet: fixture.telnet !== null,
    winrm: fixture.winrm !== null,
    winrmHttps: fixture.winrm?.httpsPort != null,
  };
  return new Set(LISTENERS.filter((name) => has[name]));
}

function portsOf(sim: Simulator): ListenerPorts {
  const ports: ListenerPorts = { http: sim.httpPort };
  if (sim.httpsPort !== null) ports.https = sim.httpsPort;
  if (sim.ssh) ports.ssh = sim.ssh.port;
  if (sim.snmpPort !== null) ports.snmp = sim.snmpPort;
  if (sim.telnet) ports.telnet = sim.telnet.port;
  if (sim.winrm) ports.winrm = sim.winrm.port;
  if (sim.winrm?.httpsPort) ports.winrmHttps = sim.winrm.httpsPort;
  return ports;
}

/** What it serves: one line per listener, then the routes and the state. */
function servedLines(sim: Simulator, fixture: Fixture): string[] {
  const lines: string[] = [];
  const devicePorts = (ports: number[]) => `device port${ports.length > 1 ? 's' : ''} ${ports.join(', ')}`;
  lines.push(`  http   http://${sim.device.ip}:${sim.httpPort}   ${devicePorts(fixture.http.ports)}`);
  if (fixture.https && sim.httpsPort !== null) {
    const names = [...new Set(['localhost', '127.0.0.1', sim.device.ip!, ...(fixture.device.host ? [fixture.device.host] : []), ...fixture.https.hosts])];
    lines.push(`  https  https://${sim.device.ip}:${sim.httpsPort}  ${devicePorts(fixture.https.ports)}; self-signed certificate for ${names.join(', ')}`);
  }
  if (fixture.ssh && sim.ssh) lines.push(sshListenLine(fixture.ssh, sim.ssh, sim.device.ip!));
  if (fixture.snmp && sim.snmpPort !== null) lines.push(snmpServedLine(fixture.snmp, sim.snmpPort, sim.device.ip!));
  if (sim.telnet) lines.push(`  telnet ${sim.device.ip}:${sim.telnet.port}  device port ${fixture.telnet!.port}; ${fixture.telnet!.commands.size} commands`);
  if (sim.winrm) lines.push(`  winrm  http://${sim.device.ip}:${sim.winrm.port}/wsman  device port ${fixture.winrm!.port}; ${fixture.winrm!.commands.length} commands, ${fixture.winrm!.auth} auth`);
  lines.push(`  ${fixture.routes.length} route${fixture.routes.length === 1 ? '' : 's'}, state "${sim.state}"`);
  return lines;
}

/** Waits this long after the last change event: editors write a file in several steps. */
const RELOAD_DEBOUNCE_MS = 150;

export const simulateFlags = {
  port: { type: 'string' },
  'https-port': { type: 'string' },
  'snmp-port': { type: 'string' },
  host: { type: 'string' },
  watch: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function simulateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, simulateFlags);
  if (values.help) {
    io.stdout(simulateHelp);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length ? `simulate takes one fixture file, got ${positionals.length}: ${positionals.join(' ')}` : 'simulate needs a fixture file: driverbox simulate <fixture.json>');
  }
  const given: ListenerPorts = {};
  const port = parsePort('port', values.port);
  const httpsPort = parsePort('https-port', values['https-port']);
  const snmpPort = parsePort('snmp-port', values['snmp-port']);
  if (port !== undefined) given.http = port;
  if (httpsPort !== undefined) given.https = httpsPort;
  if (snmpPort !== undefined) given.snmp = snmpPort;
  if (values.host !== undefined && isIP(values.host) !== 4) throw new UsageError(`--host must be an IPv4 address to listen on, such as 127.0.0.1 (got "${values.host}")`);
  const file = path.resolve(io.cwd, positionals[0]!);
  const shown = path.relative(io.cwd, file) || file;
  let fixture = loadFixture(file); // a FixtureError: exit 2 with every problem listed
  if (snmpPort !== undefined && !fixture.snmp) throw new UsageError(`--snmp-port: the fixture does not serve snmp (it has no "snmp" field)`);
  if (httpsPort !== undefined && !fixture.https) throw new UsageError(`--https-port: the fixture does not serve https (it has no "https" field)`);

  // Last run's ports, unless --port 0 asks for fresh ones; one now taken by something else is given up.
  const state = readSimulateState(file, io.env);
  const remembered: ListenerPorts = port === 0 ? {} : { ...state.ports };
  const taken: string[] = [];
  async function portsFor(next: Fixture, keep: ListenerPorts): Promise<ListenerPorts> {
    const wanted: ListenerPorts = {};
    for (const name of listenersOf(next)) {
      const want = keep[name] ?? remembered[name];
      if (want === undefined) continue;
      if (keep[name] === undefined && !(await portIsFree(want, name === 'snmp', values.host))) {
        taken.push(`${name} ${want}`);
        delete remembered[name];
        continue;
      }
      wanted[name] = want;
    }
    return wanted;
  }

  let stateBefore = fixture.initialState;
  let served = 0; // HTTP requests, across reloads
  const start = (source: Fixture, ports: ListenerPorts) =>
    startSimulator(source, {
      host: values.host,
      port: ports.http,
      httpsPort: ports.https,
      sshPort: ports.ssh,
      snmpPort: ports.snmp,
      telnetPort: ports.telnet,
      winrmPort: ports.winrm,
      winrmHttpsPort: ports.winrmHttps,
      // Each line tells what a driver sent: its text escaped, one line per request.
      onSnmpRequest: (request) => io.stdout(terminalText(snmpRequestLine(request), { oneLine: true })),
      onRequest: (request) => {
        served++; // numbered across reloads: a reloaded simulator starts its own count again
        io.stdout(terminalText(requestLine({ ...request, seq: served }, stateBefore), { oneLine: true }));
        stateBefore = request.state;
      },
      onSsh: (event) => io.stdout(terminalText(sshEventLine(event), { oneLine: true })),
    });

  let sim: Simulator;
  try {
    sim = await start(fixture, { ...(await portsFor(fixture, {})), ...given });
  } catch (error) {
    io.stderr(`driverbox simulate: ${(error as Error).message}`);
    return 1;
  }
  const remember = (): boolean => {
    Object.assign(remembered, portsOf(sim));
    const problem = writeSimulateState(state, file, remembered);
    if (problem) io.stderr(`driverbox simulate: ${problem}`);
    return problem === null;
  };
  const stateWritable = remember();

  // The run line's files sit in the fixture's state folder, at the same paths every run; a
  // simulator that could not have its remembered ports (another one serves this fixture) keeps
  // its own in a temporary folder instead, so the two do not overwrite each other's; so does one
  // whose data folder cannot be written.
  const ownFolder = taken.length > 0 || !stateWritable;
  const filesDir = ownFolder ? mkdtempSync(path.join(tmpdir(), 'driverbox-simulate-')) : state.dir;
  const paramsFile = path.join(filesDir, 'params.json');
  const caFile = path.join(filesDir, 'simulator-ca.pem');
  /** Writes the files the run line names (and removes those this fixture does not need); returns the line. */
  const prepareRunLine = (): string => {
    const hasParameters = Object.keys(sim.parameters).length > 0;
    if (hasParameters) writeFileSync(paramsFile, `${JSON.stringify(sim.parameters, null, 2)}\n`);
    else rmSync(paramsFile, { force: true });
    // Trusting the simulator's certificate (--ca) lets drivers keep verifying TLS, as they would with a real device.
    if (sim.certificatePem) writeFileSync(caFile, sim.certificatePem);
    else rmSync(caFile, { force: true });
    return runLine(sim, file, io.cwd, hasParameters ? paramsFile : null, sim.certificatePem ? caFile : null);
  };

  let watcher: FSWatcher | null = null;
  let stopWatching = async () => {};
  try {
    let line = prepareRunLine();
    const lines = [`Simulating ${shown}${fixture.description ? ` — ${terminalText(fixture.description, { oneLine: true })}` : ''}`, ...servedLines(sim, fixture)];
    if (taken.length) lines.push(`  (the port${taken.length > 1 ? 's' : ''} of the last run, ${taken.join(', ')}, ${taken.length > 1 ? 'are' : 'is'} in use: served on ${taken.length > 1 ? 'free ones' : 'a free one'} instead, so the run line changed)`);
    lines.push('', 'Run a driver against it:', `  ${line}`, '', `Requests (${values.watch ? `reloaded when ${shown} changes; ` : ''}Ctrl-C to stop):`);
    // Listening before saying "Ctrl-C to stop": a Ctrl-C right after the line must stop cleanly.
    const stopped = untilStopped();
    io.stdout(lines.join('\n'));

    if (values.watch) {
      let lastText = fixtureText(file);
      let timer: NodeJS.Timeout | null = null;
      let reloading = Promise.resolve();
      const reload = async () => {
        const text = fixtureText(file);
        if (text !== null && text === lastText) return; // touched, or written again unchanged
        let next: Fixture;
        try {
          next = loadFixture(file);
        } catch (error) {
          io.stderr(`${shown} not reloaded, the previous fixture keeps serving: ${(error as Error).message}`);
          return;
        }
        lastText = text;
        const before = sim;
        const ports = await portsFor(next, portsOf(before));
        await before.close();
        try {
          sim = await start(next, ports);
        } catch (error) {
          io.stderr(`${shown} not reloaded, the previous fixture keeps serving: ${(error as Error).message}`);
          sim = await start(fixture, portsOf(before));
          stateBefore = fixture.initialState;
          return;
        }
        fixture = next;
        stateBefore = fixture.initialState;
        remember();
        const changed = prepareRunLine();
        const out = [`Reloaded ${shown}${fixture.description ? ` — ${terminalText(fixture.description, { oneLine: true })}` : ''}`, ...servedLines(sim, fixture)];
        if (changed !== line) out.push('  The run line changed:', `  ${changed}`);
        line = changed;
        io.stdout(out.join('\n'));
      };
      // The folder is watched, not the file: editors often save by writing a new file and renaming it over the old one.
      watcher = watch(path.dirname(file), (_event, name) => {
        if (name !== null && name !== path.basename(file)) return;
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = null;
          reloading = reloading.then(reload).catch((error: unknown) => io.stderr(`driverbox simulate: reloading ${shown} failed: ${(error as Error).message}`));
        }, RELOAD_DEBOUNCE_MS);
      });
      watcher.on('error', (error) => io.stderr(`driverbox simulate: cannot watch ${shown} any more: ${error.message}`));
      stopWatching = async () => {
        if (timer) clearTimeout(timer);
        watcher?.close();
        await reloading;
      };
    }
    const signal = await stopped;
    await stopWatching();
    io.stdout(`Stopped (${signal}) after ${served} request${served === 1 ? '' : 's'}.`);
    return 0;
  } finally {
    watcher?.close();
    await sim.close();
    if (ownFolder) rmSync(filesDir, { recursive: true, force: true });
    else for (const made of [paramsFile, caFile]) rmSync(made, { force: true });
  }
}

function fixtureText(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
