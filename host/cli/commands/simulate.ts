// `driverbox simulate <fixture.json>`: serves a fixture's simulated device on 127.0.0.1
// until Ctrl-C / SIGTERM, prints the `driverbox run` line that reaches it, and logs every
// request with the route that answered it.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadFixture } from '../../simulator/load-fixture.js';
import { startSimulator, type SimulatedRequest, type Simulator } from '../../simulator/simulator.js';
import { sshEventLine, sshListenLine } from '../../simulator/ssh/cli-lines.js';
import type { CliIo } from '../main.js';
import { UsageError } from '../usage-error.js';
import { parseFlags } from '../flags.js';
import { untilStopped } from '../until-stopped.js';
import { snmpRequestLine, snmpServedLine } from '../../simulator/snmp/describe.js';

export const simulateHelp = `Usage: driverbox simulate <fixture.json> [options]

Serves the simulated device a fixture describes on 127.0.0.1 until Ctrl-C, printing
the \`driverbox run\` line that reaches it and every request it answers.
The fixture format is described in docs/SIMULATOR.md.

Options:
  --port <n>         port of the HTTP listener (default: a free port)
  --https-port <n>   port of the HTTPS listener, for a fixture with "https" (default: a free port)
  --snmp-port <n>    UDP port of the SNMP agent, for a fixture with "snmp" (default: a free port)
  -h, --help         this help

Exit code: 0 stopped by Ctrl-C or SIGTERM, 1 a port cannot be used, 2 usage error or bad fixture.`;

function parsePort(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 65535) throw new UsageError(`--${name} must be a port number 1–65535 (got "${value}")`);
  return Number(value);
}

/** Quotes an argument for a POSIX shell only when it needs it. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The `driverbox run` line for this simulator; the parameters go to a file the caller removes. */
function runLine(sim: Simulator, fixtureFile: string, cwd: string, paramsFile: string | null, caFile: string | null): string {
  const driver = path.join(path.dirname(fixtureFile), 'driver.js');
  const args = ['driverbox', 'run', existsSync(driver) ? path.relative(cwd, driver) || driver : '<driver.js>', '--device-ip', sim.device.ip];
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
  return args.map((a, i) => (i === 2 && a === '<driver.js>' ? a : shellWord(a))).join(' ');
}

export function requestLine(request: SimulatedRequest, stateBefore: string): string {
  // reset and timeout send no status; close sends one, then cuts the body short.
  const outcome = request.status === null ? `${request.outcome}` : request.outcome === 'close' ? `${request.status} (body cut short)` : String(request.status);
  const route = request.routeIndex !== null ? `routes[${request.routeIndex}] ${request.route}` : 'no route';
  const reason = request.reason ? `: ${request.reason}` : '';
  const state = request.state !== stateBefore ? ` · state "${request.state}"` : '';
  return `#${request.seq} ${request.protocol.padEnd(5)} ${request.method} ${request.url} → ${outcome}  ${route}${reason}${state}`;
}

export const simulateFlags = {
  port: { type: 'string' },
  'https-port': { type: 'string' },
  'snmp-port': { type: 'string' },
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
  const port = parsePort('port', values.port);
  const httpsPort = parsePort('https-port', values['https-port']);
  const snmpPort = parsePort('snmp-port', values['snmp-port']);
  const file = path.resolve(io.cwd, positionals[0]!);
  const fixture = loadFixture(file); // a FixtureError: exit 2 with every problem listed
  if (snmpPort !== undefined && !fixture.snmp) throw new UsageError(`--snmp-port: the fixture does not serve snmp (it has no "snmp" field)`);
  if (httpsPort !== undefined && !fixture.https) throw new UsageError(`--https-port: the fixture does not serve https (it has no "https" field)`);

  let stateBefore = fixture.initialState;
  let sim: Simulator;
  try {
    sim = await startSimulator(fixture, {
      port,
      httpsPort,
      snmpPort,
      onSnmpRequest: (request) => io.stdout(snmpRequestLine(request)),
      onRequest: (request) => {
        io.stdout(requestLine(request, stateBefore));
        stateBefore = request.state;
      },
      onSsh: (event) => io.stdout(sshEventLine(event)),
    });
  } catch (error) {
    io.stderr(`driverbox simulate: ${(error as Error).message}`);
    return 1;
  }

  const hasParameters = Object.keys(sim.parameters).length > 0;
  const paramsDir = hasParameters || sim.certificatePem ? mkdtempSync(path.join(tmpdir(), 'driverbox-simulate-')) : null;
  try {
    const paramsFile = paramsDir && hasParameters ? path.join(paramsDir, 'params.json') : null;
    if (paramsFile) writeFileSync(paramsFile, `${JSON.stringify(sim.parameters, null, 2)}\n`);
    // Trusting the simulator's certificate (--ca) lets drivers keep verifying TLS, as they would with a real device.
    const caFile = paramsDir && sim.certificatePem ? path.join(paramsDir, 'simulator-ca.pem') : null;
    if (caFile) writeFileSync(caFile, sim.certificatePem!);
    const lines = [`Simulating ${path.relative(io.cwd, file) || file}${fixture.description ? ` — ${fixture.description}` : ''}`];
    const devicePorts = (ports: number[]) => `device port${ports.length > 1 ? 's' : ''} ${ports.join(', ')}`;
    lines.push(`  http   http://127.0.0.1:${sim.httpPort}   ${devicePorts(fixture.http.ports)}`);
    if (fixture.https && sim.httpsPort !== null) {
      const names = [...new Set(['localhost', '127.0.0.1', ...(fixture.device.host ? [fixture.device.host] : []), ...fixture.https.hosts])];
      lines.push(`  https  https://127.0.0.1:${sim.httpsPort}  ${devicePorts(fixture.https.ports)}; self-signed certificate for ${names.join(', ')}`);
    }
    if (fixture.ssh && sim.ssh) lines.push(sshListenLine(fixture.ssh, sim.ssh));
    if (fixture.snmp && sim.snmpPort !== null) lines.push(snmpServedLine(fixture.snmp, sim.snmpPort));
    if (sim.telnet) lines.push(`  telnet 127.0.0.1:${sim.telnet.port}  device port ${fixture.telnet!.port}; ${fixture.telnet!.commands.size} commands`);
    if (sim.winrm) lines.push(`  winrm  http://127.0.0.1:${sim.winrm.port}/wsman  device port ${fixture.winrm!.port}; ${fixture.winrm!.commands.length} commands, ${fixture.winrm!.auth} auth`);
    lines.push(`  ${fixture.routes.length} route${fixture.routes.length === 1 ? '' : 's'}, state "${sim.state}"`, '', 'Run a driver against it:', `  ${runLine(sim, file, io.cwd, paramsFile, caFile)}`);
    lines.push('', 'Requests (Ctrl-C to stop):');
    io.stdout(lines.join('\n'));
    const signal = await untilStopped();
    io.stdout(`Stopped (${signal}) after ${sim.requests.length} request${sim.requests.length === 1 ? '' : 's'}.`);
    return 0;
  } finally {
    await sim.close();
    if (paramsDir) rmSync(paramsDir, { recursive: true, force: true });
  }
}
