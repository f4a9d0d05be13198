// `driverbox actions <driver.js>`: the entry points a driver defines, with their labels.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { listEntryPoints } from '../../driver/entry-points.js';
import { describeModules, modulesUsed } from '../../driver/modules-used.js';
import { alignedTable } from '../format.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../../contract/errors.js';
import { parseFlags } from '../flags.js';

export const actionsHelp = `Usage: driverbox actions <driver.js> [options]

Lists the driver's entry points (validate, get_status, backup, custom_N) with the @label and
@documentation of the comment above each, then the modules it uses (http, ssh, snmp, timers…)
and what it uses that driverbox does not have.

Options:
  --json       print the entry points only, as one JSON array
  -h, --help   this help

Exit code: 0 listed (also when the driver defines no entry point), 2 usage error (no such file).`;

export const actionsFlags = { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } as const;

export async function actionsCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, actionsFlags);
  if (values.help) {
    io.stdout(actionsHelp);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('actions needs one driver file: driverbox actions <driver.js>');
  const file = path.resolve(io.cwd, positionals[0]);
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch {
    throw new UsageError(`driver file not found: ${file}`);
  }
  const entries = listEntryPoints(source);
  if (values.json) {
    io.stdout(JSON.stringify(entries));
    return 0;
  }
  const used = modulesUsed(source);
  const usage = [`Uses: ${describeModules(used)}`, ...used.missing.map((m) => `! ${m}`)];
  if (entries.length === 0) {
    io.stdout([`${positionals[0]} defines no entry point (validate, get_status, backup or custom_N)`, ...usage].join('\n'));
    return 0;
  }
  io.stdout([...alignedTable(['ACTION', 'LABEL', 'DOCUMENTATION'], entries.map((e) => [e.name, e.label ?? '', e.documentation ?? '']), 80), '', ...usage].join('\n'));
  return 0;
}
