// A parsed inventory document → an Inventory, or every problem with the path of its field
// (`devices[2].portMap["80"]: …`). Names are cross-checked (duplicates, associations naming an
// unknown driver or device, parameters a driver does not have) and credentials given as
// `{ env: NAME }` are read from the environment.
import { isIP } from 'node:net';
import { ENTRY_POINT } from '../../driver/entry-points.js';
import { PARAMETER_VALUE_TYPES, MAX_STRING_CHARS, parameterValueProblem, type ParameterValueType } from '../../store/drivers/driver-input.js';
import { FieldChecker, describeValue, fieldPath, suggestion } from '../../simulator/field-checker.js';
import { readDriverFile } from './driver-files.js';
import { SNMP_INPUT_FIELDS, snmpSettingsOf, type SnmpInput } from '../../snmp-settings.js';
import type { SnmpSettings } from '../../contract/device.js';
import {
  DEFAULT_ACTIONS,
  DEFAULT_SAMPLE_PERIOD,
  INVENTORY_VERSION,
  MAX_SAMPLE_PERIOD,
  associationKey,
  type Inventory,
  type InventoryAssociation,
  type InventoryDevice,
  type InventoryDriver,
  type InventoryParameter,
} from './types.js';

export interface ValidateOptions {
  /** Where driver paths are relative to (the inventory file's folder). */
  baseDir: string;
  env: Readonly<Record<string, string | undefined>>;
}

const TOP_FIELDS = ['version', 'devices', 'drivers', 'associations'] as const;
const DEVICE_FIELDS = ['name', 'ip', 'host', 'credentials', 'portMap', 'mac', 'serial', 'snmp'] as const;
const DRIVER_FIELDS = ['name', 'path', 'description', 'parameters', 'samplePeriod', 'actions'] as const;
const PARAMETER_FIELDS = ['type', 'default', 'description'] as const;
const ASSOCIATION_FIELDS = ['driver', 'device', 'parameters', 'samplePeriod', 'enabled'] as const;

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const MAC = /^[0-9A-Fa-f]{2}([:-])(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}$/;

/** Answers the inventory and the problems found; the inventory is only usable when there are none. */
export function validateInventory(document: unknown, options: ValidateOptions): { inventory: Inventory; problems: string[] } {
  const c = new FieldChecker();
  const inventory: Inventory = { file: null, version: INVENTORY_VERSION, devices: [], drivers: [], associations: [] };
  const top = c.object(document, '(top level)');
  if (!top) return { inventory, problems: c.problems };
  c.knownFields(top, '', TOP_FIELDS);
  if (top.version === undefined) c.problem('version', `is required: write version: ${INVENTORY_VERSION}`);
  else if (top.version !== INVENTORY_VERSION) c.problem('version', `must be ${INVENTORY_VERSION}, the only inventory version this driverbox reads (got ${describeValue(top.version)})`);

  inventory.devices = list(c, top.devices, 'devices').flatMap(([item, at]) => device(c, item, at, options.env) ?? []);
  refuseDuplicateNames(c, top.devices, 'devices');
  inventory.drivers = list(c, top.drivers, 'drivers').flatMap(([item, at]) => driver(c, item, at, options.baseDir) ?? []);
  refuseDuplicateNames(c, top.drivers, 'drivers');
  inventory.associations = associations(c, top, inventory);
  return { inventory, problems: c.problems };
}

/** A list field, absent meaning empty: its items with their paths. */
function list(c: FieldChecker, value: unknown, path: string): Array<[unknown, string]> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    c.problem(path, `must be a list (got ${describeValue(value)})`);
    return [];
  }
  return value.map((item, i) => [item, fieldPath(path, i)]);
}

function optionalString(c: FieldChecker, value: unknown, path: string): string | null {
  return value === undefined || value === null ? null : c.string(value, path);
}

function refuseDuplicateNames(c: FieldChecker, value: unknown, path: string): void {
  if (!Array.isArray(value)) return;
  const first = new Map<string, number>();
  value.forEach((item, i) => {
    const name = (item as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') return;
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, i);
    else c.problem(fieldPath(fieldPath(path, i), 'name'), `"${name}" is already the name of ${path}[${earlier}]`);
  });
}

function device(c: FieldChecker, value: unknown, at: string, env: ValidateOptions['env']): InventoryDevice | null {
  const o = c.object(value, at);
  if (!o) return null;
  c.knownFields(o, at, DEVICE_FIELDS);
  const name = c.string(o.name, fieldPath(at, 'name'));
  const ip = optionalString(c, o.ip, fieldPath(at, 'ip'));
  if (ip !== null && isIP(ip) === 0) c.problem(fieldPath(at, 'ip'), `must be an IPv4 or IPv6 address (got ${describeValue(ip)})`);
  const host = optionalString(c, o.host, fieldPath(at, 'host'));
  if (host !== null && isIP(host) === 0 && !HOST_NAME.test(host)) c.problem(fieldPath(at, 'host'), `must be a host name or an IP address (got ${describeValue(host)})`);
  if (o.ip == null && o.host == null) c.problem(at, 'needs an ip or a host (or both): drivers reach the device there');
  const mac = optionalString(c, o.mac, fieldPath(at, 'mac'));
  if (mac !== null && !MAC.test(mac)) c.problem(fieldPath(at, 'mac'), `must be a MAC address such as 3c:22:fb:10:aa:01 (got ${describeValue(mac)})`);
  const serial = typeof o.serial === 'number' ? String(o.serial) : optionalString(c, o.serial, fieldPath(at, 'serial'));
  const portMap = portMapOf(c, o.portMap, fieldPath(at, 'portMap'));
  const credentials = o.credentials === undefined || o.credentials === null ? null : credentialsOf(c, o.credentials, fieldPath(at, 'credentials'), env);
  const snmp = o.snmp === undefined || o.snmp === null ? null : snmpOf(c, o.snmp, fieldPath(at, 'snmp'), env);
  if (name === null) return null;
  return { name, ip, host, portMap: portMap ?? {}, credentials, mac: mac?.toLowerCase().replace(/-/g, ':') ?? null, serial, snmp };
}

function portMapOf(c: FieldChecker, value: unknown, path: string): Record<number, number> | null {
  if (value === undefined || value === null) return {};
  const o = c.object(value, path);
  if (!o) return null;
  const map: Record<number, number> = {};
  for (const [from, to] of Object.entries(o)) {
    const at = fieldPath(path, from);
    const port = /^\d+$/.test(from) ? Number(from) : NaN;
    if (!(port >= 1 && port <= 65535)) c.problem(at, `the key must be a port 1–65535 (the port the driver asks for)`);
    const target = c.integer(to, at, 1, 65535);
    if (target !== null && port >= 1 && port <= 65535) map[port] = target;
  }
  return map;
}

function credentialsOf(c: FieldChecker, value: unknown, path: string, env: ValidateOptions['env']): { username: string; password: string } | null {
  const o = c.object(value, path);
  if (!o) return null;
  c.knownFields(o, path, ['username', 'password']);
  const username = secretOf(c, o.username, fieldPath(path, 'username'), env);
  const password = secretOf(c, o.password, fieldPath(path, 'password'), env);
  return username === null || password === null ? null : { username, password };
}

/** The device's SNMP settings: version, community / writeCommunity or a v3 user; secrets may be { env: NAME }. */
function snmpOf(c: FieldChecker, value: unknown, path: string, env: ValidateOptions['env']): SnmpSettings | null {
  const o = c.object(value, path);
  if (!o) return null;
  c.knownFields(o, path, SNMP_INPUT_FIELDS);
  const input: SnmpInput = {};
  for (const field of SNMP_INPUT_FIELDS) {
    const given = o[field];
    if (given === undefined || given === null) continue;
    // A YAML version 3 or 1 is a number: taken as its text.
    if (field === 'version' && typeof given === 'number') input.version = String(given);
    else if (field === 'community' || field === 'writeCommunity' || field === 'authKey' || field === 'privKey') {
      const secret = secretOf(c, given, fieldPath(path, field), env);
      if (secret === null) return null;
      input[field] = secret;
    } else input[field] = given;
  }
  let ok = true;
  const settings = snmpSettingsOf(input, (field, message) => {
    ok = false;
    c.problem(fieldPath(path, field), message);
  });
  return ok ? settings : null;
}

/** A string, or `{ env: NAME }` read from the environment (so secrets stay out of the file). */
function secretOf(c: FieldChecker, value: unknown, path: string, env: ValidateOptions['env']): string | null {
  if (typeof value === 'string') return value;
  if (value === undefined) {
    c.problem(path, 'is required (a string, or { env: NAME } to read it from the environment)');
    return null;
  }
  const o = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  if (!o) {
    c.problem(path, `must be a string or { env: NAME } (got ${describeValue(value)})`);
    return null;
  }
  c.knownFields(o, path, ['env']);
  const name = c.string(o.env, fieldPath(path, 'env'));
  if (name === null) return null;
  const resolved = env[name];
  if (resolved === undefined) {
    c.problem(fieldPath(path, 'env'), `environment variable ${name} is not set`);
    return null;
  }
  return resolved;
}

function samplePeriodOf(c: FieldChecker, value: unknown, path: string): number | null {
  return value === undefined ? null : c.integer(value, path, 1, MAX_SAMPLE_PERIOD);
}

function driver(c: FieldChecker, value: unknown, at: string, baseDir: string): InventoryDriver | null {
  const o = c.object(value, at);
  if (!o) return null;
  c.knownFields(o, at, DRIVER_FIELDS);
  const name = c.string(o.name, fieldPath(at, 'name'));
  const path = c.string(o.path, fieldPath(at, 'path'));
  const description = optionalString(c, o.description, fieldPath(at, 'description'));
  const parameters = parametersOf(c, o.parameters, fieldPath(at, 'parameters'));
  const samplePeriod = samplePeriodOf(c, o.samplePeriod, fieldPath(at, 'samplePeriod')) ?? DEFAULT_SAMPLE_PERIOD;
  const actions = actionsOf(c, o.actions, fieldPath(at, 'actions'));
  const file = path === null ? null : readDriverFile(c, at, baseDir, path, actions);
  if (name === null || file === null) return null;
  return { name, path: file.path, source: file.source, description, parameters, samplePeriod, actions: actions ?? [...DEFAULT_ACTIONS] };
}

function actionsOf(c: FieldChecker, value: unknown, path: string): string[] | null {
  if (value === undefined) return null;
  if (!Array.isArray(value) || value.length === 0) {
    c.problem(path, `must be a non-empty list of actions such as [get_status] (got ${describeValue(value)})`);
    return null;
  }
  const actions: string[] = [];
  value.forEach((item, i) => {
    const at = fieldPath(path, i);
    if (typeof item !== 'string' || !ENTRY_POINT.test(item)) c.problem(at, `must be get_status, validate, backup or custom_N (got ${describeValue(item)})`);
    else if (actions.includes(item)) c.problem(at, `${item} is listed twice`);
    else actions.push(item);
  });
  return actions;
}

/**
 * `name: default` (the type follows the value) or `name: { type, default?, description? }`;
 * a parameter without a default must then be given by every association of the driver.
 */
function parametersOf(c: FieldChecker, value: unknown, path: string): InventoryParameter[] {
  if (value === undefined || value === null) return [];
  const o = c.object(value, path);
  if (!o) return [];
  const out: InventoryParameter[] = [];
  for (const [name, spec] of Object.entries(o)) {
    const at = fieldPath(path, name);
    if (name.length > MAX_STRING_CHARS) c.problem(at, `a parameter name is at most ${MAX_STRING_CHARS} characters`);
    const parameter = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? parameterSpec(c, spec as Record<string, unknown>, at, name) : shorthandParameter(c, spec, at, name);
    if (parameter) out.push(parameter);
  }
  return out;
}

function shorthandParameter(c: FieldChecker, value: unknown, at: string, name: string): InventoryParameter | null {
  const type: ParameterValueType | null = typeof value === 'string' ? 'STRING' : typeof value === 'number' ? 'NUMBER' : Array.isArray(value) ? 'LIST' : null;
  if (type === null) {
    c.problem(at, `must be a default value (string, number or list of strings) or { type, default, description } (got ${describeValue(value)})`);
    return null;
  }
  const problem = parameterValueProblem(type, value);
  if (problem) c.problem(at, problem);
  return problem ? null : { name, type, default: value, description: null };
}

function parameterSpec(c: FieldChecker, o: Record<string, unknown>, at: string, name: string): InventoryParameter | null {
  c.knownFields(o, at, PARAMETER_FIELDS);
  const type = c.oneOf(typeof o.type === 'string' ? o.type.toUpperCase() : o.type, fieldPath(at, 'type'), PARAMETER_VALUE_TYPES);
  const description = optionalString(c, o.description, fieldPath(at, 'description'));
  if (type === null) return null;
  const given = o.default ?? null;
  const problem = given === null ? null : parameterValueProblem(type, given);
  if (problem) c.problem(fieldPath(at, 'default'), problem);
  return problem ? null : { name, type, default: given, description };
}

function associations(c: FieldChecker, top: Record<string, unknown>, inventory: Inventory): InventoryAssociation[] {
  // Cross-check against what was named, even when a named item had other problems, so an
  // association is not reported as naming an unknown driver that merely failed to load.
  const namesOf = (value: unknown): string[] =>
    Array.isArray(value) ? value.flatMap((item) => (typeof (item as { name?: unknown } | null)?.name === 'string' ? [(item as { name: string }).name] : [])) : [];
  const deviceNames = namesOf(top.devices);
  const driverNames = namesOf(top.drivers);
  const drivers = new Map(inventory.drivers.map((d) => [d.name, d]));
  // Looked up once per association: a Set, since inventories list thousands of devices.
  const knownDevices = new Set(deviceNames);
  const knownDrivers = new Set(driverNames);
  const seen = new Map<string, string>();
  const out: InventoryAssociation[] = [];
  for (const [value, at] of list(c, top.associations, 'associations')) {
    const o = c.object(value, at);
    if (!o) continue;
    c.knownFields(o, at, ASSOCIATION_FIELDS);
    const driverName = c.string(o.driver, fieldPath(at, 'driver'));
    const deviceName = c.string(o.device, fieldPath(at, 'device'));
    if (driverName !== null && !knownDrivers.has(driverName)) c.problem(fieldPath(at, 'driver'), `no driver is named "${driverName}"${suggestion(driverName, driverNames)}`);
    if (deviceName !== null && !knownDevices.has(deviceName)) c.problem(fieldPath(at, 'device'), `no device is named "${deviceName}"${suggestion(deviceName, deviceNames)}`);
    const samplePeriod = samplePeriodOf(c, o.samplePeriod, fieldPath(at, 'samplePeriod'));
    let enabled = true;
    if (o.enabled !== undefined) {
      if (typeof o.enabled === 'boolean') enabled = o.enabled;
      else c.problem(fieldPath(at, 'enabled'), `must be true or false (got ${describeValue(o.enabled)})`);
    }
    if (driverName === null || deviceName === null) continue;
    const key = associationKey({ driver: driverName, device: deviceName });
    const earlier = seen.get(key);
    if (earlier) c.problem(at, `driver "${driverName}" is already applied to device "${deviceName}" by ${earlier}`);
    seen.set(key, at);
    const driver = drivers.get(driverName);
    const parameters = driver ? associationParameters(c, o.parameters, fieldPath(at, 'parameters'), driver) : {};
    if (!driver || !knownDevices.has(deviceName) || earlier) continue;
    out.push({ driver: driverName, device: deviceName, parameters, samplePeriod: samplePeriod ?? driver.samplePeriod, actions: driver.actions, enabled });
  }
  return out;
}

function associationParameters(c: FieldChecker, value: unknown, path: string, driver: InventoryDriver): Record<string, unknown> {
  const given = value === undefined || value === null ? {} : c.object(value, path);
  if (!given) return {};
  const known = driver.parameters.map((p) => p.name);
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(given)) {
    const at = fieldPath(path, name);
    const parameter = driver.parameters.find((p) => p.name === name);
    if (!parameter) {
      c.problem(at, `driver "${driver.name}" has no parameter "${name}"${suggestion(name, known)}${known.length ? '' : ' (it has none)'}`);
      continue;
    }
    if (v === null) continue;
    const problem = parameterValueProblem(parameter.type, v);
    if (problem) c.problem(at, problem);
    else out[name] = v;
  }
  for (const p of driver.parameters) {
    if (p.default === null && given[p.name] == null) c.problem(path, `"${p.name}" has no default in driver "${driver.name}": give it a value`);
  }
  return out;
}
