// The agent inventory: YAML/JSON parsing with locations, every validation problem by field
// path, environment references, and syncing into a real store (idempotent, with removal).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InventoryError, loadInventory, parseInventory, syncInventory, type Inventory } from '../../host/agent/inventory/index.js';
import { openStore, type Store } from '../../host/store/index.js';
import { ensureLocalAgent } from '../../host/store/fleet/agents.js';
import { createAssociation, getAssociation, listAssociations } from '../../host/store/drivers/associations.js';
import { getDeviceCredentials } from '../../host/store/fleet/credentials.js';
import { createCustomDriver, getCustomDriver, listCustomDrivers } from '../../host/store/drivers/custom-drivers.js';
import { createDevice, getDevice, listDevices } from '../../host/store/fleet/devices.js';

const PLAIN_DRIVER = `function validate() { D.success(); }\nfunction get_status() { D.success(); }\n`;
const CUSTOM_DRIVER = `${PLAIN_DRIVER}/** @label Reboot */\nfunction custom_1() { D.success(); }\n`;
const CREDENTIAL_DRIVER = `function validate() { D.success(); }\nfunction get_status() { D.device.username(); D.device.password(); D.success(); }\n`;

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'driverbox-inventory-'));
  writeFileSync(join(dir, 'plain.js'), PLAIN_DRIVER);
  writeFileSync(join(dir, 'custom.js'), CUSTOM_DRIVER);
  writeFileSync(join(dir, 'creds.js'), CREDENTIAL_DRIVER);
  writeFileSync(join(dir, 'broken.js'), 'function get_status( {');
  return dir;
}

/** The problems an inventory text is refused with. */
function problemsOf(text: string, options: { dir?: string; format?: 'yaml' | 'json'; env?: Record<string, string> } = {}): string[] {
  const dir = options.dir ?? workspace();
  try {
    parseInventory(text, { format: options.format ?? 'yaml', file: join(dir, 'inventory.yaml'), env: options.env ?? {} });
  } catch (error) {
    expect(error).toBeInstanceOf(InventoryError);
    return [...(error as InventoryError).problems];
  }
  throw new Error('the inventory was accepted');
}

const GOOD_YAML = `
version: 1
devices:
  - name: router
    ip: 10.0.0.1
    credentials: { username: admin, password: { env: ROUTER_PASSWORD } }
  - name: nas
    host: nas.lan
    portMap: { 443: 8443 }
    mac: 3C-22-FB-10-AA-01
    serial: 12345
drivers:
  - name: plain
    path: plain.js
    parameters:
      port: 443
      mode: { type: string }
    samplePeriod: 60
  - name: custom
    path: ./custom.js
    actions: [get_status, custom_1]
  - name: creds
    path: creds.js
associations:
  - driver: plain
    device: router
    parameters: { mode: fast }
  - driver: plain
    device: nas
    parameters: { mode: slow, port: 8443 }
    samplePeriod: 10
    enabled: false
  - driver: custom
    device: nas
  - driver: creds
    device: router
`;

describe('loading an inventory', () => {
  it('reads a YAML file: defaults, env references, driver sources, periods and actions resolved', () => {
    const dir = workspace();
    const file = join(dir, 'inventory.yaml');
    writeFileSync(file, GOOD_YAML);
    const inventory = loadInventory(file, { env: { ROUTER_PASSWORD: 's3cret' } });
    expect(inventory.file).toBe(resolve(file));
    expect(inventory.devices[0]).toEqual({ name: 'router', ip: '10.0.0.1', host: null, portMap: {}, credentials: { username: 'admin', password: 's3cret' }, mac: null, serial: null, snmp: null });
    expect(inventory.devices[1]).toMatchObject({ host: 'nas.lan', ip: null, portMap: { 443: 8443 }, mac: '3c:22:fb:10:aa:01', serial: '12345', credentials: null });
    expect(inventory.drivers[0]).toMatchObject({ path: join(dir, 'plain.js'), source: PLAIN_DRIVER, samplePeriod: 60, actions: ['get_status'] });
    expect(inventory.drivers[0]!.parameters).toEqual([
      { name: 'port', type: 'NUMBER', default: 443, description: null },
      { name: 'mode', type: 'STRING', default: null, description: null },
    ]);
    expect(inventory.drivers[1]).toMatchObject({ samplePeriod: 300, actions: ['get_status', 'custom_1'] });
    expect(inventory.associations).toEqual([
      { driver: 'plain', device: 'router', parameters: { mode: 'fast' }, samplePeriod: 60, actions: ['get_status'], enabled: true },
      { driver: 'plain', device: 'nas', parameters: { mode: 'slow', port: 8443 }, samplePeriod: 10, actions: ['get_status'], enabled: false },
      { driver: 'custom', device: 'nas', parameters: {}, samplePeriod: 300, actions: ['get_status', 'custom_1'], enabled: true },
      { driver: 'creds', device: 'router', parameters: {}, samplePeriod: 300, actions: ['get_status'], enabled: true },
    ]);
  });

  it('reads the same inventory written as JSON', () => {
    const dir = workspace();
    const yamlFile = join(dir, 'inventory.yml');
    writeFileSync(yamlFile, GOOD_YAML);
    const env = { ROUTER_PASSWORD: 'x' };
    const fromYaml = loadInventory(yamlFile, { env });
    const jsonFile = join(dir, 'inventory.json');
    const { parse } = { parse: (t: string) => JSON.stringify(parseYamlForTest(t)) };
    writeFileSync(jsonFile, parse(GOOD_YAML));
    const fromJson = loadInventory(jsonFile, { env });
    expect({ ...fromJson, file: null }).toEqual({ ...fromYaml, file: null });
  });

  it('names the variable of an env reference that is not set, for each one', () => {
    const problems = problemsOf(`
version: 1
devices:
  - name: a
    ip: 10.0.0.1
    credentials: { username: { env: A_USER }, password: { env: A_PASS } }
`);
    expect(problems).toEqual([
      'line 6: devices[0].credentials.username.env: environment variable A_USER is not set',
      'line 6: devices[0].credentials.password.env: environment variable A_PASS is not set',
    ]);
  });

  it('reports YAML syntax errors with line and column', () => {
    expect(problemsOf('version: 1\ndevices:\n  - name: a\n    ip: [10.0.0.1\n')).toEqual([expect.stringMatching(/^line \d+, column \d+: .*(flow|sequence|\])/i)]);
    expect(problemsOf('version: 1\nversion: 1\n')).toEqual(['line 2, column 1: Map keys must be unique']);
  });

  it('reports JSON syntax errors with line and column', () => {
    const [problem] = problemsOf('{\n  "version": 1,\n  "devices": [}\n', { format: 'json' });
    expect(problem).toMatch(/^line 3, column \d+: not valid JSON: /);
  });

  it('refuses a file whose extension tells no format, and a missing file, naming it', () => {
    const dir = workspace();
    expect(() => loadInventory(join(dir, 'inventory.txt'))).toThrow(/inventory\.txt: 1 problem\n.*must end in \.yaml, \.yml or \.json/);
    expect(() => loadInventory(join(dir, 'absent.yaml'))).toThrow(/absent\.yaml: 1 problem\n.*does not exist/);
  });
});

describe('validation lists every problem with the path of its field', () => {
  it('top level: not an object, version, unknown fields with suggestions, lists', () => {
    expect(problemsOf('- 1')).toEqual(['(top level): must be an object (got a list)']);
    expect(problemsOf('version: 2\ndevice: []\ndrivers: {}\n')).toEqual([
      'line 2: device: unknown field (did you mean "devices"?)',
      'line 1: version: must be 1, the only inventory version this driverbox reads (got 2)',
      'line 3: drivers: must be a list (got an object)',
    ]);
    expect(problemsOf('devices: []\n')).toEqual(['version: is required: write version: 1']);
  });

  it('devices: names, addresses, port map, mac, serial, credentials', () => {
    const problems = problemsOf(`
version: 1
devices:
  - ip: 10.0.0.1
  - name: a
  - name: b
    ip: 10.0.0.300
    host: "bad host!"
    portMap: { 80: 8080, http: 8081, 443: 70000 }
    mac: 3c:22
    serial: [1]
    credentials: { username: admin, pasword: x }
    port: 80
  - name: a
    ip: 10.0.0.2
    credentials: { username: 7, password: { env: "" } }
  - "just a string"
`);
    expect(problems).toEqual([
      'line 4: devices[0].name: must be a non-empty string (got nothing)',
      'line 5: devices[1]: needs an ip or a host (or both): drivers reach the device there',
      'line 13: devices[2].port: unknown field (did you mean "host" or "portMap"?)',
      'line 7: devices[2].ip: must be an IPv4 or IPv6 address (got "10.0.0.300")',
      'line 8: devices[2].host: must be a host name or an IP address (got "bad host!")',
      'line 10: devices[2].mac: must be a MAC address such as 3c:22:fb:10:aa:01 (got "3c:22")',
      'line 11: devices[2].serial: must be a non-empty string (got a list)',
      'line 9: devices[2].portMap["443"]: must be an integer 1–65535 (got 70000)',
      'line 9: devices[2].portMap.http: the key must be a port 1–65535 (the port the driver asks for)',
      'line 12: devices[2].credentials.pasword: unknown field (did you mean "password"?)',
      'line 12: devices[2].credentials.password: is required (a string, or { env: NAME } to read it from the environment)',
      'line 16: devices[3].credentials.username: must be a string or { env: NAME } (got 7)',
      'line 16: devices[3].credentials.password.env: must be a non-empty string (got "")',
      'line 17: devices[4]: must be an object (got "just a string")',
      'line 14: devices[3].name: "a" is already the name of devices[1]',
    ]);
  });

  it('drivers: files, inspection errors, parameters, periods, actions, duplicates', () => {
    const dir = workspace();
    const problems = problemsOf(`
version: 1
drivers:
  - name: gone
    path: missing.js
  - name: broken
    path: broken.js
  - name: p
    path: custom.js
    samplePeriod: 0
    parameters:
      n: { type: number, default: "ten" }
      t: { type: DATE }
      l: [1, 2]
      z: null
    actions: [get_status, custom_2, reboot, get_status]
  - name: p
    path: plain.js
    samplePeriod: 86401
    actions: []
    parametres: {}
`, { dir });
    expect(problems).toEqual([
      `line 5: drivers[0].path: ${join(dir, 'missing.js')} does not exist`,
      expect.stringMatching(/^line 7: drivers\[1\]\.path: broken\.js line 1: SyntaxError: Unexpected end of input/),
      expect.stringMatching(/^line 7: drivers\[1\]\.path: broken\.js: MISSING_FUNCTION: the driver defines no top-level function validate\(\)/),
      'line 12: drivers[2].parameters.n.default: a NUMBER parameter takes a number (got a string "ten")',
      'line 13: drivers[2].parameters.t.type: must be "STRING", "NUMBER" or "LIST" (got "DATE")',
      'line 14: drivers[2].parameters.l: LIST item 0 must be a string (got number 1)',
      'line 15: drivers[2].parameters.z: must be a default value (string, number or list of strings) or { type, default, description } (got null)',
      'line 10: drivers[2].samplePeriod: must be an integer 1–86400 (got 0)',
      'line 16: drivers[2].actions[2]: must be get_status, validate, backup or custom_N (got "reboot")',
      'line 16: drivers[2].actions[3]: get_status is listed twice',
      'line 16: drivers[2].actions[1]: custom.js defines no function custom_2() (it has get_status, validate, custom_1)',
      'line 21: drivers[3].parametres: unknown field (did you mean "parameters"?)',
      'line 19: drivers[3].samplePeriod: must be an integer 1–86400 (got 86401)',
      'line 20: drivers[3].actions: must be a non-empty list of actions such as [get_status] (got a list)',
      'line 17: drivers[3].name: "p" is already the name of drivers[2]',
    ]);
  });

  it('an unknown name gets "did you mean" only when close, at most 3 of them, and never for a name too long to compare', () => {
    const long = 'n'.repeat(5_000);
    const problems = problemsOf(`
version: 1
devices:
  - { name: my-nas, ip: 10.0.0.1 }
  - { name: ${long}, ip: 10.0.0.2 }
  - { name: nas-1, ip: 10.0.0.3 }
  - { name: nas-2, ip: 10.0.0.4 }
  - { name: nas-3, ip: 10.0.0.5 }
  - { name: nas-4, ip: 10.0.0.6 }
drivers:
  - { name: plain, path: plain.js }
associations:
  - { driver: plain, device: my-nass }
  - { driver: plain, device: ${long}x }
  - { driver: plain, device: nas-0 }
`);
    expect(problems).toEqual([
      'line 13: associations[0].device: no device is named "my-nass" (did you mean "my-nas"?)',
      `line 14: associations[1].device: no device is named "${long}x"`,
      'line 15: associations[2].device: no device is named "nas-0" (did you mean "nas-1" or "nas-2" or "nas-3"?)',
    ]);
  });

  it('associations: unknown names with suggestions, duplicates, parameters, period, enabled', () => {
    const problems = problemsOf(`
version: 1
devices:
  - { name: router, ip: 10.0.0.1 }
drivers:
  - name: plain
    path: plain.js
    parameters: { port: 443, mode: { type: STRING } }
associations:
  - { driver: plian, device: routr }
  - { driver: plain, device: router, parameters: { prot: 1, port: "x", mode: fast } }
  - { driver: plain, device: router, parameters: { mode: a }, samplePeriod: 1.5, enabled: "yes" }
  - { drvier: plain }
`);
    expect(problems).toEqual([
      'line 10: associations[0].driver: no driver is named "plian" (did you mean "plain"?)',
      'line 10: associations[0].device: no device is named "routr" (did you mean "router"?)',
      'line 11: associations[1].parameters.prot: driver "plain" has no parameter "prot" (did you mean "port"?)',
      'line 11: associations[1].parameters.port: a NUMBER parameter takes a number (got a string "x")',
      'line 12: associations[2].samplePeriod: must be an integer 1–86400 (got 1.5)',
      'line 12: associations[2].enabled: must be true or false (got "yes")',
      'line 12: associations[2]: driver "plain" is already applied to device "router" by associations[1]',
      'line 13: associations[3].drvier: unknown field (did you mean "driver"?)',
      'line 13: associations[3].driver: must be a non-empty string (got nothing)',
      'line 13: associations[3].device: must be a non-empty string (got nothing)',
    ]);
    expect(
      problemsOf(`
version: 1
devices: [{ name: r, ip: 10.0.0.1 }]
drivers: [{ name: plain, path: plain.js, parameters: { mode: { type: STRING } } }]
associations: [{ driver: plain, device: r }]
`),
    ).toEqual(['line 5: associations[0].parameters: "mode" has no default in driver "plain": give it a value']);
  });
});

function parseYamlForTest(text: string): unknown {
  // The yaml package is the project's own dependency: used here only to write the JSON twin.
  return (yamlModule as { parse(t: string): unknown }).parse(text);
}
import * as yamlModule from 'yaml';
import { openTestStore } from '../helpers/store.js';

describe('syncing an inventory into the store', () => {
  let store: Store | undefined;
  afterEach(async () => await store?.close());

  const load = (dir: string, text: string, env: Record<string, string> = { ROUTER_PASSWORD: 'pw-1' }): Inventory =>
    parseInventory(text, { format: 'yaml', file: join(dir, 'inventory.yaml'), env });

  it('adds everything under the local agent, then a second sync changes nothing', async () => {
    const dir = workspace();
    store = await openTestStore({ secretKey: 'inventory-test-key' });
    const inventory = load(dir, GOOD_YAML);
    const first = await syncInventory(store, inventory);
    const agentId = (await ensureLocalAgent(store)).id;
    expect(first.agentId).toBe(agentId);
    expect(first.changed).toBe(true);
    expect(first.devices.added.map((d) => d.name)).toEqual(['router', 'nas']);
    expect(first.drivers.added.map((d) => d.name)).toEqual(['plain', 'custom', 'creds']);
    expect(first.associations.added.map((a) => a.name)).toEqual(['plain@router', 'plain@nas', 'custom@nas', 'creds@router']);
    expect(first.reschedule).toEqual(first.associations.added.map((a) => a.id).sort((a, b) => a - b));

    const nas = (await getDevice(store, agentId, first.devices.added[1]!.id))!;
    expect(nas).toMatchObject({ displayName: 'nas', hostName: 'nas.lan', portMap: { 443: 8443 }, macAddress: '3c:22:fb:10:aa:01', details: { serial: '12345' } });
    const routerId = first.devices.added[0]!.id;
    expect(await getDeviceCredentials(store, routerId, ['CUSTOM_DRIVER_MANAGEMENT'])).toEqual({ scope: 'CUSTOM_DRIVER_MANAGEMENT', username: 'admin', password: 'pw-1' });
    const plain = (await getCustomDriver(store, first.drivers.added[0]!.id))!;
    expect(plain.parameters.map((p) => [p.name, p.valueType, p.defaultValue])).toEqual([['port', 'NUMBER', 443], ['mode', 'STRING', null]]);
    const onNas = (await getAssociation(store, first.associations.added[1]!.id))!;
    expect(onNas).toMatchObject({ samplePeriod: 10, status: 'DISABLED' });
    expect(Object.fromEntries(onNas.parameters.map((p) => [p.name, p.value]))).toEqual({ port: 8443, mode: 'slow' });
    expect(first.scheduled.find((s) => s.name === 'custom@nas')).toMatchObject({ actions: ['get_status', 'custom_1'], samplePeriod: 300, enabled: true });

    const again = await syncInventory(store, load(dir, GOOD_YAML));
    expect(again.changed).toBe(false);
    expect([again.devices, again.drivers, again.associations]).toEqual(Array(3).fill({ added: [], updated: [], removed: [] }));
    expect(again.reschedule).toEqual([]);
    expect(again.scheduled).toEqual(first.scheduled);
    expect(await listDevices(store, agentId)).toHaveLength(2);
    expect(await listCustomDrivers(store)).toHaveLength(3);
    expect(await listAssociations(store, agentId)).toHaveLength(4);
  });

  it('updates what changed and reschedules the associations it affects', async () => {
    const dir = workspace();
    store = await openTestStore({ secretKey: 'inventory-test-key' });
    const first = await syncInventory(store, load(dir, GOOD_YAML));
    const ids = Object.fromEntries(first.scheduled.map((s) => [s.name, s.id]));
    const changed = GOOD_YAML.replace('ip: 10.0.0.1', 'ip: 10.0.0.9').replace('{ mode: fast }', '{ mode: faster }');
    writeFileSync(join(dir, 'custom.js'), `${CUSTOM_DRIVER}// v2\n`);
    const second = await syncInventory(store, load(dir, changed, { ROUTER_PASSWORD: 'pw-2' }));
    expect(second.devices.updated.map((d) => d.name)).toEqual(['router']);
    expect(second.drivers.updated.map((d) => d.name)).toEqual(['custom']);
    expect(second.associations.updated.map((a) => a.name)).toEqual(['plain@router']);
    // plain@router (its values, its device), creds@router (its device), custom@nas (its driver's code).
    expect(second.reschedule).toEqual([ids['plain@router'], ids['custom@nas'], ids['creds@router']].sort((a, b) => a! - b!));
    expect((await getCustomDriver(store, second.drivers.updated[0]!.id))!.version).toBe(2);
    expect((await getDeviceCredentials(store, second.devices.updated[0]!.id))!.password).toBe('pw-2');
    expect((await getDevice(store, second.agentId, second.devices.updated[0]!.id))!.ip).toBe('10.0.0.9');
  });

  it('removes what it made and no longer lists, and leaves what the API made alone', async () => {
    const dir = workspace();
    store = await openTestStore({ secretKey: 'inventory-test-key' });
    const first = await syncInventory(store, load(dir, GOOD_YAML));
    const agentId = first.agentId;
    const nasId = first.devices.added.find((d) => d.name === 'nas')!.id;
    // Made through the API: a device, a driver, and an association of the API driver on an inventory device.
    const apiDevice = await createDevice(store, agentId, { displayName: 'api-device', ip: '10.0.0.50' });
    const apiDriver = await createCustomDriver(store, { name: 'api-driver', code: PLAIN_DRIVER });
    const apiOnNas = await createAssociation(store, { customDriverId: apiDriver.id, agentId, deviceId: nasId });
    const apiOnApi = await createAssociation(store, { customDriverId: apiDriver.id, agentId, deviceId: apiDevice.id });

    const smaller = `
version: 1
devices:
  - name: router
    ip: 10.0.0.1
    credentials: { username: admin, password: { env: ROUTER_PASSWORD } }
drivers:
  - name: plain
    path: plain.js
    parameters: { port: 443, mode: { type: string } }
    samplePeriod: 60
associations:
  - { driver: plain, device: router, parameters: { mode: fast } }
`;
    const second = await syncInventory(store, load(dir, smaller));
    expect(second.devices.removed.map((d) => d.name)).toEqual(['nas']);
    expect(second.drivers.removed.map((d) => d.name).sort()).toEqual(['creds', 'custom']);
    expect(second.associations.removed.map((a) => a.name).sort()).toEqual(['api-driver@nas', 'creds@router', 'custom@nas', 'plain@nas']);
    expect(second.associations.removed.map((a) => a.id)).toContain(apiOnNas.id);
    expect((await listDevices(store, agentId)).map((d) => d.displayName).sort()).toEqual(['api-device', 'router']);
    expect((await listCustomDrivers(store)).map((d) => d.name).sort()).toEqual(['api-driver', 'plain']);
    expect(await getAssociation(store, apiOnApi.id)).toBeDefined();
    expect(second.scheduled.map((s) => s.name)).toEqual(['plain@router']);

    // An empty inventory removes the rest of its own, still nothing of the API's.
    const third = await syncInventory(store, load(dir, 'version: 1\n'));
    expect(third.devices.removed.map((d) => d.name)).toEqual(['router']);
    expect((await listDevices(store, agentId)).map((d) => d.displayName)).toEqual(['api-device']);
    expect((await listCustomDrivers(store)).map((d) => d.name)).toEqual(['api-driver']);
    expect((await syncInventory(store, load(dir, 'version: 1\n'))).changed).toBe(false);
  });

  it('refuses names the API already uses and a credentials driver on a device without any, changing nothing', async () => {
    const dir = workspace();
    store = await openTestStore({ secretKey: 'inventory-test-key' });
    const agentId = (await ensureLocalAgent(store)).id;
    await createCustomDriver(store, { name: 'plain', code: PLAIN_DRIVER });
    await expect(async () => await syncInventory(store!, load(dir, GOOD_YAML))).rejects.toThrow(/drivers "plain": the library already has a driver named "plain" \(id \d+\) made through the API/);
    expect(await listDevices(store, agentId)).toHaveLength(0);

    await createDevice(store, agentId, { displayName: 'taken', ip: '10.0.0.7' });
    await expect(async () => await syncInventory(store!, load(dir, 'version: 1\ndevices: [{ name: taken, ip: 10.0.0.7 }]\n'))).rejects.toThrow(/devices "taken": the agent already has a device named "taken"/);

    const noCredentials = `
version: 1
devices: [{ name: bare, ip: 10.0.0.8 }]
drivers: [{ name: creds, path: creds.js }]
associations: [{ driver: creds, device: bare }]
`;
    await expect(async () => await syncInventory(store!, load(dir, noCredentials))).rejects.toThrow(/associations "creds@bare": driver "creds" uses the device's credentials and device "bare" has none/);
    expect((await listDevices(store, agentId)).map((d) => d.displayName)).toEqual(['taken']);
  });

  it('loads and syncs the example inventory shipped in drivers-examples', async () => {
    const file = resolve('drivers-examples/inventory.example.yaml');
    const inventory = loadInventory(file, { env: { ROUTER_PASSWORD: 'a', UPS_USER: 'b', UPS_PASSWORD: 'c' } });
    expect(inventory.associations.map((a) => `${a.driver}@${a.device}`)).toEqual(['router-dhcp@home-router', 'tls-expiry@nas', 'tls-expiry@home-router', 'ups-status@ups']);
    store = await openTestStore({ secretKey: 'inventory-test-key' });
    const result = await syncInventory(store, inventory);
    expect(result.scheduled.map((s) => [s.name, s.samplePeriod, s.enabled])).toEqual([
      ['router-dhcp@home-router', 60, true],
      ['tls-expiry@nas', 21600, true],
      ['tls-expiry@home-router', 3600, false],
      ['ups-status@ups', 300, true],
    ]);
  });
});
