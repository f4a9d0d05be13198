// `driverbox init <name>`: scaffolds a driver folder: the driver (validate, get_status, a
// custom action), its simulated device, its test, and a jsconfig.json so editors complete D.*.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { driverJsconfigText } from '../../driver/jsconfig.js';
import { packagePath } from '../../package-path.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../../contract/errors.js';
import { parseFlags } from '../flags.js';

export const initHelp = `Usage: driverbox init <name> [options]

Creates the folder <name> with a driver to start from:
  driver.js        validate(), get_status() and a custom action (custom_1)
  device.json      its simulated device (driverbox simulate; docs/reference/simulator.md)
  driver.test.mjs  its tests, on driverbox/testing (npx vitest run <name>)
  vitest.config.mjs  so that vitest, run inside the folder, runs these tests
  jsconfig.json    editor completion and checking of D.* (docs/reference/driver-api.md)

Options:
  --dir <parent>   where to create the folder (default: the working directory)
  -h, --help       this help

Exit code: 0 created, 2 usage error (bad name, folder exists and is not empty).`;

const TEMPLATE_FILES = ['driver.js', 'device.json', 'driver.test.mjs', 'vitest.config.mjs'];
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

function templatesDir(): string {
  const dir = packagePath(path.join('templates', 'driver'));
  if (!dir) throw new Error('templates/driver not found next to the driverbox package');
  return dir;
}

export const initFlags = { dir: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } as const;

export async function initCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, initFlags);
  if (values.help) {
    io.stdout(initHelp);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('init needs one name: driverbox init <name>');
  const name = positionals[0]!;
  if (!NAME.test(name)) throw new UsageError(`"${name}" is not a usable name: letters, digits, ".", "_" and "-", starting with a letter or digit`);
  const target = path.resolve(io.cwd, values.dir ?? '.', name);
  if (existsSync(target) && readdirSync(target).length > 0) throw new UsageError(`${target} already exists and is not empty: nothing was written`);

  const templates = templatesDir();
  // Read everything first, so a missing template leaves no half-made folder behind.
  const files = TEMPLATE_FILES.map((file) => [file, readFileSync(path.join(templates, file), 'utf8').replaceAll('{{name}}', name)] as const);
  mkdirSync(target, { recursive: true });
  for (const [file, text] of files) writeFileSync(path.join(target, file), text, { flag: 'wx' });
  writeFileSync(path.join(target, 'jsconfig.json'), driverJsconfigText(), { flag: 'wx' });

  const shown = path.relative(io.cwd, target) || '.';
  io.stdout(
    [
      `Created ${shown}/ with driver.js, device.json, driver.test.mjs, vitest.config.mjs and jsconfig.json.`,
      '',
      'Next:',
      `  npx driverbox run ${shown}/driver.js --device-ip <ip> --username <user> --password <pass>   against a real device`,
      `  npx driverbox simulate ${shown}/device.json                                         serve the simulated device`,
      `  npx vitest run ${shown}                                                             run its tests (needs vitest)`,
    ].join('\n'),
  );
  return 0;
}
