// `driverbox drivers add | list`: the custom driver library of the store that `driverbox serve`
// answers from, so a driver can be associated with devices and executed through the API.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  createCustomDriver,
  findCustomDriverByName,
  listCustomDrivers,
  updateCustomDriver,
  type CustomDriverRow,
  type NewCustomDriver,
} from '../../store/drivers/custom-drivers.js';
import { PARAMETER_VALUE_TYPES, type ParameterDefinition, type ParameterValueType } from '../../store/drivers/driver-input.js';
import { openStore, StoreError, resolveStorePath, type Store } from '../../store/index.js';
import { customDriverRecord } from '../../api/monitoring/custom-driver-records.js';
import { alignedTable } from '../format.js';
import type { CliIo } from '../io.js';
import { parseIntegerFlag } from '../options.js';
import { UsageError } from '../../contract/errors.js';
import { closest, parseFlags } from '../flags.js';
import { terminalText } from '../../terminal-text.js';

export const driversHelp = `Usage: driverbox drivers add <driver.js> [options]
       driverbox drivers list [options]

Manages the custom driver library of the store (what \`driverbox serve\` lists as Custom Drivers).
add stores the driver's code, inspected (actions, syntax, what it uses); invalid code is stored
too, with its errors, and the command exits 1. list shows the library: id, name, version,
validity, actions and the devices it is applied to.

Options:
  --store <file>             the store file (env DRIVERBOX_STORE; default: driverbox.db in
                             ${'$'}DRIVERBOX_DATA_DIR or the user's data folder)
  -h, --help                 this help
add:
  --name <name>              name in the library (default: the file's name, or its folder's
                             name for a file called driver.js)
  --description <text>       the driver's description in the library
  --param <name:TYPE[=default]>
                             a parameter (repeatable); TYPE is STRING, NUMBER or LIST; a LIST
                             default is comma-separated: --param hosts:LIST=a,b
  --min-sample-period <s>    minimal sample period (300, 600, 900, … 86400; default 300)
  --requires-credentials / --no-credentials
                             default: whether the code uses the device's credentials
  --update                   replace the code (a new version) of the driver of that name
list:
  --json                     the records as listCustomDrivers answers them

Exit code: 0 done, 1 the driver is stored but invalid or the store cannot be used, 2 usage error.`;

/** `outlet:NUMBER=2` → { name: 'outlet', valueType: 'NUMBER', defaultValue: 2 } */
export function parseParamFlag(text: string): ParameterDefinition {
  const match = /^([^:=]+):([A-Za-z]+)(?:=(.*))?$/s.exec(text);
  if (!match) throw new UsageError(`--param expects name:TYPE or name:TYPE=default, e.g. outlet:NUMBER=1 (got "${text}")`);
  const [, name, rawType, rawDefault] = match as unknown as [string, string, string, string | undefined];
  const valueType = rawType.toUpperCase() as ParameterValueType;
  if (!PARAMETER_VALUE_TYPES.includes(valueType)) {
    throw new UsageError(`--param ${name}: type must be one of ${PARAMETER_VALUE_TYPES.join(', ')} (got "${rawType}")`);
  }
  if (rawDefault === undefined) return { name, valueType, defaultValue: null };
  if (valueType === 'NUMBER') {
    const n = Number(rawDefault);
    if (rawDefault.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--param ${name}: a NUMBER default must be a number (got "${rawDefault}")`);
    return { name, valueType, defaultValue: n };
  }
  if (valueType === 'LIST') return { name, valueType, defaultValue: rawDefault === '' ? [] : rawDefault.split(',') };
  return { name, valueType, defaultValue: rawDefault };
}

function defaultName(file: string): string {
  const base = path.basename(file, path.extname(file));
  return base === 'driver' ? path.basename(path.dirname(file)) : base;
}

async function openLibrary(io: CliIo, storeFlag: string | undefined): Promise<Store> {
  // The library holds no secrets: no key is needed to add or list drivers.
  return await openStore({ path: resolveStorePath({ flag: storeFlag, env: io.env, cwd: io.cwd }), secretKey: null });
}

function describeDriver(driver: CustomDriverRow): string[] {
  const modules = driver.inspection.modules;
  const uses = modules === undefined ? '' : modules.length ? `; uses ${modules.join(', ')}` : '; uses none of the network modules';
  const lines = [`custom driver ${driver.id} "${terminalText(driver.name, { oneLine: true })}", version ${driver.version}: ${driver.isValid ? 'valid' : 'INVALID'}${uses}`];
  for (const missing of driver.inspection.missing ?? []) lines.push(`  ! uses ${terminalText(missing, { oneLine: true })}`);
  for (const a of driver.inspection.actions) lines.push(`  action ${a.id}: ${terminalText(a.label, { oneLine: true })} (line ${a.line})`);
  for (const p of driver.parameters) {
    lines.push(`  parameter ${p.id} ${terminalText(p.name, { oneLine: true })}: ${p.valueType}${p.defaultValue === null ? '' : ` = ${JSON.stringify(p.defaultValue)}`}`);
  }
  lines.push(`  minimal sample period ${driver.minimalSamplePeriod} s; ${driver.requiresCredentials ? 'requires' : 'does not require'} credentials`);
  return lines;
}

export const driversAddFlags = {
  name: { type: 'string' },
  description: { type: 'string' },
  param: { type: 'string', multiple: true },
  'min-sample-period': { type: 'string' },
  'requires-credentials': { type: 'boolean' },
  'no-credentials': { type: 'boolean' },
  update: { type: 'boolean', default: false },
  store: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export const driversListFlags = { store: { type: 'string' }, json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } } as const;

async function addDriver(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, driversAddFlags);
  if (positionals.length !== 1) throw new UsageError('drivers add needs one driver file: driverbox drivers add <driver.js>');
  if (values['requires-credentials'] && values['no-credentials']) throw new UsageError('give --requires-credentials or --no-credentials, not both');
  const file = path.resolve(io.cwd, positionals[0]!);
  let code: string;
  try {
    code = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read driver file ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  const input: NewCustomDriver = { name: values.name ?? defaultName(file), code };
  if (values.description !== undefined) input.description = values.description;
  if (values.param) input.parameters = values.param.map(parseParamFlag);
  const period = parseIntegerFlag('min-sample-period', values['min-sample-period']);
  if (period !== undefined) input.minimalSamplePeriod = period;
  if (values['requires-credentials']) input.requiresCredentials = true;
  if (values['no-credentials']) input.requiresCredentials = false;

  const store = await openLibrary(io, values.store);
  try {
    let driver: CustomDriverRow;
    if (values.update) {
      const existing = await findCustomDriverByName(store, input.name);
      if (!existing) throw new UsageError(`--update: the library has no driver named "${input.name}"`);
      driver = await updateCustomDriver(store, existing.id, input);
    } else {
      driver = await createCustomDriver(store, input);
    }
    io.stdout(`${values.update ? 'updated' : 'added'} ${describeDriver(driver).join('\n')}`);
    if (driver.isValid) return 0;
    for (const e of driver.inspection.errors) {
      io.stderr(`${file}${e.line ? `:${e.line}` : ''}: ${terminalText(e.message.startsWith(e.type) ? e.message : `${e.type}: ${e.message}`)}`);
    }
    io.stderr('the driver is stored but cannot run until its code is fixed (driverbox drivers add --update)');
    return 1;
  } finally {
    await store.close();
  }
}

async function listDrivers(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, driversListFlags);
  if (positionals.length) throw new UsageError(`drivers list takes no arguments (got "${positionals.join(' ')}")`);
  const store = await openLibrary(io, values.store);
  try {
    const drivers = await listCustomDrivers(store);
    if (values.json) {
      io.stdout(JSON.stringify(drivers.map(customDriverRecord)));
      return 0;
    }
    if (drivers.length === 0) {
      io.stdout(`the library of ${store.path} holds no custom driver; add one with driverbox drivers add <driver.js>`);
      return 0;
    }
    const rows = drivers.map((d) => [
      String(d.id),
      d.name,
      String(d.version),
      d.isValid ? 'yes' : 'no',
      d.inspection.actions.map((a) => `${a.id} ${a.label}`).join(', '),
      d.deviceIds.join(', '),
    ]);
    io.stdout(alignedTable(['ID', 'NAME', 'VERSION', 'VALID', 'ACTIONS', 'DEVICES'], rows, 100).join('\n'));
    return 0;
  } finally {
    await store.close();
  }
}

export async function driversCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '-h' || sub === '--help' || rest.includes('--help') || rest.includes('-h')) {
    io.stdout(driversHelp);
    return sub ? 0 : 2;
  }
  try {
    if (sub === 'add') return await addDriver(rest, io);
    if (sub === 'list') return await listDrivers(rest, io);
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    if (error.code === 'INVALID') throw new UsageError(error.message);
    io.stderr(`driverbox drivers ${sub}: ${error.message}`);
    return 1;
  }
  const close = closest(sub, ['add', 'list']);
  throw new UsageError(`unknown drivers command "${sub}"${close.length ? ` (did you mean ${close.join(' or ')}?)` : ''}: use drivers add <driver.js> or drivers list`);
}
