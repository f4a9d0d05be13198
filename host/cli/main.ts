// The driverbox command line: dispatches to one module per sub-command.
import { readFileSync } from 'node:fs';
import { actionsCommand, actionsHelp } from './commands/actions.js';
import { demoCommand, demoHelp } from './commands/demo.js';
import { runCommand, runHelp } from './commands/run.js';
import { initCommand, initHelp } from './commands/init.js';
import { simulateCommand, simulateHelp } from './commands/simulate.js';
import { serveCommand, serveHelp } from './commands/serve.js';
import { driversCommand, driversHelp } from './commands/drivers.js';
import { agentCommand, agentHelp } from './commands/agent.js';
import { agentsCommand, agentsHelp } from './commands/agents.js';
import { StoreError } from '../contract/errors.js';
import { DriverboxError, type DriverboxErrorCode } from '../contract/errors.js';
import { UsageError } from '../contract/errors.js';
import { closest } from './flags.js';
import { isStyled } from './format.js';
import { terminalOutput } from '../terminal-text.js';
import { processIo, type CliIo } from './io.js';

const help = `driverbox — a sandboxed runtime for custom device drivers

Usage: driverbox <command> [options]

Commands:
  run <driver.js>       run one action of a driver against a device
  actions <driver.js>   list a driver's entry points and their labels
  demo                  run the example drivers against their simulated devices
  simulate <fixture>    serve a simulated device from a fixture file until Ctrl-C
  init <name>           create a driver folder: driver, simulated device, test, jsconfig
  serve                 serve the Monitoring Public API v1 over the embedded store
  drivers add|list      the custom driver library of the store
  agent                 run an inventory's drivers on schedule, results to the store, API served
  agents list|add|set   the agents of the store: their plan (Enterprise) and access right
  help <command>        a command's help (as \`driverbox <command> --help\`)

Options:
  -h, --help            this help
  -v, -V, --version     print driverbox's version

Run \`npx driverbox <command> --help\` for a command's options.
Exit code: 2 usage error (no or unknown command); otherwise the command's own.`;

const commands: Record<string, { run: (argv: string[], io: CliIo) => Promise<number>; help?: string }> = {
  run: { run: runCommand, help: runHelp },
  actions: { run: actionsCommand, help: actionsHelp },
  demo: { run: demoCommand, help: demoHelp },
  simulate: { run: simulateCommand, help: simulateHelp },
  init: { run: initCommand, help: initHelp },
  serve: { run: serveCommand, help: serveHelp },
  drivers: { run: driversCommand, help: driversHelp },
  agent: { run: agentCommand, help: agentHelp },
  agents: { run: agentsCommand, help: agentsHelp },
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * The CLI's output, every command's, through terminalOutput: what a command did not escape
 * field by field still reaches the terminal inert. Styles pass on stdout only when it is styled.
 */
function terminalIo(io: CliIo, styled: boolean): CliIo {
  return { ...io, stdout: (text) => io.stdout(terminalOutput(text, styled)), stderr: (text) => io.stderr(terminalOutput(text)) };
}

/** The caller's mistakes (a missing file, a bad option or recording): exit 2, as usage errors. */
const USAGE_CODES = new Set<DriverboxErrorCode>([
  'DRIVER_NOT_FOUND',
  'DRIVER_UNREADABLE',
  'UNKNOWN_ACTION',
  'INVALID_OPTIONS',
  'INVALID_FIXTURE',
  'RECORD_UNWRITABLE',
  'REPLAY_UNREADABLE',
  'REPLAY_MALFORMED',
  'REPLAY_VERSION',
]);

export async function main(argv: string[], given: CliIo = processIo()): Promise<number> {
  // Device and driver text reaches every command's output: none of it may drive the terminal.
  const io = terminalIo(given, isStyled(given.stdoutStream, given.env));
  const [name, ...rest] = argv;
  if (name === 'help' && rest.length) return main([rest[0]!, '--help'], io);
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    io.stdout(help);
    return name ? 0 : 2;
  }
  if (name === '-v' || name === '-V' || name === '--version') {
    io.stdout(version());
    return 0;
  }
  const command = commands[name];
  if (!command) {
    const option = name.startsWith('-');
    const close = option ? closest(name.replace(/^--?/, ''), ['help', 'version']).map((c) => `--${c}`) : closest(name, [...Object.keys(commands), 'help']);
    const hint = close.length ? ` (did you mean ${close.join(' or ')}?)` : '';
    io.stderr(`driverbox: unknown ${option ? `option ${name}` : `command "${name}"`}${hint}\n\n${help}`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr(`driverbox ${name}: ${(error as Error).message}\nRun \`npx driverbox ${name} --help\` for usage.`);
      return 2;
    }
    if (error instanceof StoreError) {
      io.stderr(`driverbox ${name}: ${error.message}`);
      return 1;
    }
    if (error instanceof DriverboxError) {
      io.stderr(`driverbox ${name}: ${error.message}`);
      return USAGE_CODES.has(error.code) ? 2 : 1;
    }
    throw error;
  }
}
