// `driverbox run <driver.js>`: one action of one driver against one device.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createHost } from '../../engine/host.js';
import { loadEnvironment } from '../env-file.js';
import { formatResult, jsonResult, styleFor } from '../format.js';
import { checkReportFlags, openReportStore, reportResult, type ReportOptions } from '../report-option.js';
import { credentialSecrets } from '../../store/runs/run-secrets.js';
import { parseExternalHosts, parseIntegerFlag, parsePortMap, parseResolve, readCaFiles, readParams } from '../options.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../../contract/errors.js';
import { parseFlags } from '../flags.js';
import { snmpFlagOptions, snmpFlagsHelp, snmpSettingsFromFlags } from '../snmp-flags.js';
import { snmpSecrets } from '../../snmp-settings.js';
import { startRunSimulation, type RunSimulation } from '../../simulator/run-simulation.js';

/** Flags `--simulate` replaces: the simulator is the device, at the addresses it chose. */
function checkSimulateFlags(values: Record<string, unknown>): void {
  for (const flag of ['device-ip', 'port-map', 'replay']) {
    if (values[flag] !== undefined) throw new UsageError(`--simulate and --${flag} cannot be used together: the simulator is the device${flag === 'replay' ? ', a replay answers without one' : ', on ports it chooses'}`);
  }
}

export const runHelp = `Usage: driverbox run <driver.js> [options]

Runs one action of a driver in the sandbox and prints its variables, tables, HTTP
exchanges, logs and warnings.

Options:
  --action <name>        validate, get_status (default), backup or custom_N
  --device-ip <ip>       device IP            (env DEVICE_IP)
  --device-host <name>   device host name     (env DEVICE_HOST); requests use it unless useHostname: false
  --username <user>      device username      (env DEVICE_USERNAME)
  --password <pass>      device password      (env DEVICE_PASSWORD)
  --params <file.json>   driver parameters: {"name": value} or [{"name","value"}]
                         (default: ./.parameters.json, the official emulator's file, if any)
  --port-map <pairs>     ports to dial instead, e.g. 80=8080,443=8443
${snmpFlagsHelp}
  --resolve <name=ip[,port=port…]>
                         dial a host name (the device's or an external host's) at this
                         address, as a hosts file would; repeatable, e.g.
                         --resolve api.example=127.0.0.1,443=8443
  --external-hosts <a,b> other hosts a redirect may lead to (a cloud API's regional hosts),
                         *.example.com for any name under it; --resolve names count too
  --ca <file.pem>        also trust this CA for HTTPS and getTLSCertificate; repeatable
  --timeout <ms>         run deadline (default 60000)
  --memory <mb>          isolate memory limit (default 128)
  -v, --verbose          also print the headers and bodies of every HTTP exchange
                         (credentials, cookies and passwords masked)
  --json                 print one JSON object instead of text
  --record <file.json>   save the run's HTTP exchanges and certificate reads to a file
                         (credentials, cookies and passwords redacted), to replay later
  --replay <file.json>   answer the driver's requests from a recording: no device is
                         contacted and --device-ip is not needed (docs/reference/record-replay.md)
  --simulate <fixture.json>
                         run against a simulator of this fixture started for the run and
                         stopped after it (device, parameters, certificate from the fixture;
                         flags win; hosts/<name>.json beside it serve external hosts)
  --report               write the result to the store as the device's variables, under
                         the local agent (the device, found by host name or IP, is made
                         when new; --username / --password are not stored; with --simulate,
                         the simulator's device, by the fixture's host name or 127.0.0.1)
  --store <file.db>      the store --report writes to (env DRIVERBOX_STORE; default:
                         driverbox.db in $DRIVERBOX_DATA_DIR or the user's data folder)
  -h, --help             this help

DEVICE_* values are also read from a .env file in the working directory (NAME=value or
NAME: value lines; the environment and the flags win).

Exit code: 0 the driver succeeded, 1 it failed, 2 usage error.`;

export const runFlags = {
  action: { type: 'string' },
  'device-ip': { type: 'string' },
  'device-host': { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  params: { type: 'string' },
  'port-map': { type: 'string' },
  ...snmpFlagOptions,
  resolve: { type: 'string', multiple: true },
  'external-hosts': { type: 'string' },
  ca: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  memory: { type: 'string' },
  record: { type: 'string' },
  replay: { type: 'string' },
  simulate: { type: 'string' },
  report: { type: 'boolean', default: false },
  store: { type: 'string' },
  json: { type: 'boolean', default: false },
  verbose: { type: 'boolean', short: 'v', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** The official emulator's parameters file, read from the working directory when --params is not given. */
const EMULATOR_PARAMS = '.parameters.json';

function paramsFile(flag: string | undefined, io: CliIo): { file: string; flag: string } | undefined {
  if (flag !== undefined) return { file: flag, flag: '--params' };
  if (!existsSync(path.join(io.cwd, EMULATOR_PARAMS))) return undefined;
  io.stderr(`driverbox run: parameters from ./${EMULATOR_PARAMS} (--params <file.json> replaces it)`);
  return { file: EMULATOR_PARAMS, flag: EMULATOR_PARAMS };
}

/** The sandbox's warning for D.getParameter of a name the run was not given, with how to give it. */
function missingParameterHint(warning: string, params: { file: string } | undefined): string {
  const name = /^D\.getParameter\("(.*)"\): no such parameter was given to this run/s.exec(warning)?.[1];
  if (name === undefined) return warning;
  if (params) return `${warning}: ${params.file} has no "${name}"`;
  return `${warning}: give it with --params <file.json> holding {${JSON.stringify(name)}: …} (or in ./${EMULATOR_PARAMS})`;
}

export async function runCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, runFlags);
  if (values.help) {
    io.stdout(runHelp);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `run takes one driver file, got ${positionals.length}: ${positionals.join(' ')}` : 'run needs a driver file: driverbox run <driver.js>');
  if (values.simulate !== undefined) checkSimulateFlags(values);
  const env = loadEnvironment(io.cwd, io.env, (warning) => io.stderr(`driverbox run: ${warning}`));
  const device = {
    ip: values['device-ip'] ?? env.DEVICE_IP ?? null,
    host: values['device-host'] ?? env.DEVICE_HOST ?? null,
    username: values.username ?? env.DEVICE_USERNAME ?? null,
    password: values.password ?? env.DEVICE_PASSWORD ?? null,
    portMap: parsePortMap(values['port-map']),
    snmp: snmpSettingsFromFlags(values, env),
  };
  const timeoutMs = parseIntegerFlag('timeout', values.timeout);
  const memoryMb = parseIntegerFlag('memory', values.memory, 8);
  const params = paramsFile(values.params, io);
  const parameters = readParams(params?.file, io.cwd, { flag: params?.flag, warn: (warning) => io.stderr(`driverbox run: ${warning}`) });
  const resolve = parseResolve(values.resolve);
  const externalHosts = parseExternalHosts(values['external-hosts']);
  const trustedCAs = readCaFiles(values.ca, io.cwd);
  if (values.record !== undefined && values.replay !== undefined) throw new UsageError('--record and --replay cannot be used together');
  // Relative to where the command was run, as the driver file and --params are.
  const record = values.record === undefined ? undefined : path.resolve(io.cwd, values.record);
  const replay = values.replay === undefined ? undefined : path.resolve(io.cwd, values.replay);

  const reporting: ReportOptions = { report: values.report, store: values.store, device: { ip: device.ip, host: device.host, portMap: device.portMap }, secrets: [...credentialSecrets(device.username, device.password), ...snmpSecrets(device.snmp)] };
  if (values.simulate === undefined) checkReportFlags(reporting);

  // --simulate: the device, parameters, host names and CAs of a simulator started for this run.
  let simulation: RunSimulation | null = null;
  if (values.simulate !== undefined) {
    const flags = { host: values['device-host'], username: values.username, password: values.password, snmp: snmpSettingsFromFlags(values, {}) };
    simulation = await startRunSimulation(values.simulate, io.cwd, flags, parameters, resolve);
    const simulated = simulation.device;
    // Reported as the simulator's device: its host name when the fixture gives one, else its IP;
    // named after the fixture when it is new. Not its port map: the simulator's ports die with it.
    reporting.device = { ip: simulated.ip ?? null, host: simulated.host ?? null, displayName: `${path.basename(values.simulate)} (simulated)` };
    reporting.secrets = [...credentialSecrets(simulated.username ?? null, simulated.password ?? null), ...snmpSecrets(simulated.snmp ?? null)];
  }
  let store: Awaited<ReturnType<typeof openReportStore>>;
  try {
    store = await openReportStore(reporting, io.cwd, io.env);
  } catch (error) {
    await simulation?.close();
    throw error;
  }
  const run = simulation
    ? { device: simulation.device, parameters: simulation.parameters, resolve: simulation.resolve, trustedCAs: [...simulation.trustedCAs, ...(trustedCAs ?? [])] }
    : { device, parameters, resolve, trustedCAs };

  const host = createHost({ warmIsolates: 1, limits: { timeoutMs, memoryMb }, trustedCAs: run.trustedCAs });
  try {
    const driver = path.resolve(io.cwd, positionals[0]!);
    const outcome = await host.run({ path: driver, action: values.action, device: run.device, parameters: run.parameters, transcript: values.verbose ? 'full' : 'summary', record, replay, resolve: run.resolve, ...(externalHosts ? { externalHosts } : {}) });
    const result = { ...outcome, warnings: outcome.warnings.map((w) => missingParameterHint(w, params)) };
    const where = replay ? `replay of ${values.replay}` : values.simulate !== undefined ? `simulated: ${values.simulate}` : (device.host ?? device.ip ?? 'no device address');
    if (values.json) io.stdout(jsonResult(result));
    else io.stdout(formatResult(result, `${positionals[0]} · ${result.action} · ${where}`, styleFor(io.stdoutStream, io.env)));
    if (record && !result.warnings.some((w) => w.startsWith(`the recording ${record}`))) io.stderr(`recorded to ${record}`);
    if (store) {
      const report = await reportResult(store, reporting, path.basename(driver), result);
      io.stderr(report.line);
      if (!report.ok) return 1;
    }
    return result.status === 'success' ? 0 : 1;
  } finally {
    await store?.close();
    await host.close();
    await simulation?.close();
  }
}
