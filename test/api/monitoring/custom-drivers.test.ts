// "Custom Drivers" through MonitoringClient against a real server: the library (with the
// driverbox create / update / delete extensions and code inspection), associations with their
// parameter and sample-period checks, and executing actions against real simulated devices.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringNotFoundError, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { planExecution, runPlannedAction, toExecutionResult } from '../../../host/api/monitoring/execute-action.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { getDeviceCredentials } from '../../../host/store/fleet/credentials.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { startSimulator, type Simulator } from '../../../host/simulator/simulator.js';
import { useHost } from '../../helpers/host.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const example = (name: string, file = 'driver.js') => new URL(`../../../drivers-examples/${name}/${file}`, import.meta.url).pathname;
const pduCode = readFileSync(example('pdu-outlets'), 'utf8');
const upsCode = readFileSync(example('ups-status'), 'utf8');

const host = useHost();
const api = await startMonitoringFixture({ host });
const noHost = await startMonitoringFixture();

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error as MonitoringApiError;
}

const agent = await createAgentRecord(api.store, { displayName: 'lab' });
const otherAgent = await createAgentRecord(api.store, { displayName: 'elsewhere' });
const plainDevice = await createDevice(api.store, agent.id, { displayName: 'plain', ip: '192.0.2.10' });

describe('the driver library', () => {
  it('adds a driver and shows its inspected actions, parameters and code inspection', async () => {
    const created = await api.client.createCustomDriver({
      name: 'PDU outlets',
      description: 'outlet table and switching',
      code: pduCode,
      parameters: [{ name: 'outlet', description: 'outlet the actions act on', value_type: 'NUMBER', default_value: 1 }],
      minimal_sample_period: 600,
    });
    expect(created).toMatchObject({
      name: 'PDU outlets',
      description: 'outlet table and switching',
      code: pduCode,
      is_valid: true,
      minimal_sample_period: 600,
      requires_credentials: true, // the code sends auth: 'basic'
      type: 'GENERIC',
      version: 1,
      code_inspection: { has_independent_variables: true, has_parameters: true, has_table: true },
    });
    expect(created.errors).toBeUndefined();
    expect(created.actions).toEqual([
      { id: 1, label: 'Power-cycle Outlet', documentation: 'Switches the outlet named by the "outlet" parameter off and on again.', line: 62 },
      { id: 2, label: 'Switch Outlet Off', documentation: 'Switches the outlet named by the "outlet" parameter off.', line: 75 },
      { id: 3, label: 'Switch Outlet On', documentation: 'Switches the outlet named by the "outlet" parameter on.', line: 85 },
    ]);
    expect(pduCode.split('\n')[61]).toBe('function custom_1() {');
    expect(created.parameters).toEqual([{ id: expect.any(Number), name: 'outlet', description: 'outlet the actions act on', value_type: 'NUMBER', default_value: 1 }]);
    expect(await api.client.getCustomDriver(created.id)).toEqual(created);
  });

  it('stores invalid code with is_valid false and errors located by line', async () => {
    const code = 'function validate() { D.success(); }\nfunction get_status() {\n  var x = ;\n}\n';
    const driver = await api.client.createCustomDriver({ name: 'broken', code });
    expect(driver.is_valid).toBe(false);
    expect(driver.errors).toEqual([{ line: 3, type: 'SyntaxError', message: expect.stringContaining("Unexpected token ';' at driver.js:3:11") }]);
    const missing = await api.client.createCustomDriver({ name: 'no status', code: 'function validate() { D.success(); }\nfunction custom_31() {}' });
    expect(missing.is_valid).toBe(false);
    expect(missing.errors?.map((e) => e.type).sort()).toEqual(['INVALID_ACTION', 'MISSING_FUNCTION']);
    const imports = await api.client.createCustomDriver({ name: 'imports', code: 'import x from "y";\nfunction validate() {}\nfunction get_status() {}' });
    expect(imports.errors).toEqual([{ line: 1, type: 'IMPORT_NOT_ALLOWED', message: expect.stringContaining('an import statement at driver.js:1:1') }]);
    const listed = await api.client.listCustomDrivers();
    expect(listed.find((d) => d.id === driver.id)).toMatchObject({ is_valid: false, requires_credentials: false, device_ids: [] });
  });

  it('updates a driver: new code is a new version, inspected again; parameters matched by name', async () => {
    const driver = await api.client.createCustomDriver({
      name: 'evolving',
      code: 'function validate() { D.success(); }\nfunction get_status() { D.success(); }',
      parameters: [{ name: 'site', value_type: 'STRING', default_value: 'lab' }],
    });
    const renamed = await api.client.updateCustomDriver(driver.id, { description: 'now described' });
    expect(renamed).toMatchObject({ version: 1, description: 'now described', name: 'evolving' });
    const next = await api.client.updateCustomDriver(driver.id, {
      code: 'function validate() { D.success(); }\nfunction get_status() { D.success([D.createVariable("s", "S", D.getParameter("site"))]); }\n/**\n * @label Ping\n */\nfunction custom_4() { D.success(); }',
      parameters: [
        { name: 'site', value_type: 'STRING', default_value: 'hq' },
        { name: 'hosts', value_type: 'LIST', default_value: ['a', 'b'] },
      ],
    });
    expect(next.version).toBe(2);
    expect(next.actions).toEqual([{ id: 4, label: 'Ping', documentation: '', line: 6 }]);
    expect(next.code_inspection).toEqual({ data_saving_functions: ['get_status'], has_independent_variables: true, has_parameters: true, has_table: false });
    expect(next.parameters?.[0]).toMatchObject({ id: driver.parameters![0]!.id, name: 'site', default_value: 'hq' });
    expect(next.parameters?.[1]).toMatchObject({ name: 'hosts', value_type: 'LIST', default_value: ['a', 'b'] });
  });

  it('refuses bad definitions with 422 naming the field, duplicate names with 409, unknown ids with 404', async () => {
    const bad = await failure(
      api.client.createCustomDriver({
        name: 'bad',
        code: 'function get_status() {}',
        minimal_sample_period: 42,
        parameters: [
          { name: 'n', value_type: 'NUMBER', default_value: 'seven' },
          { name: 'n', value_type: 'STRING' },
        ],
      }),
    );
    expect(bad).toBeInstanceOf(MonitoringValidationError);
    expect((bad as MonitoringValidationError).detail.map((d) => d.loc)).toEqual([
      ['body', 'minimal_sample_period'],
      ['body', 'parameters', 0, 'default_value'],
      ['body', 'parameters', 1, 'name'],
    ]);
    const noCode = (await failure(api.client.createCustomDriver({ name: 'x' } as never))) as MonitoringValidationError;
    expect(noCode.detail).toEqual([{ loc: ['body', 'code'], msg: 'field required', type: 'required' }]);
    const taken = await failure(api.client.createCustomDriver({ name: 'PDU outlets', code: pduCode }));
    expect(taken.status).toBe(409);
    expect(taken.message).toContain('a custom driver named "PDU outlets" already exists');
    expect(await failure(api.client.getCustomDriver(9999))).toBeInstanceOf(MonitoringNotFoundError);
    expect((await failure(api.client.updateCustomDriver(9999, { name: 'x' }))).status).toBe(404);
    expect((await failure(api.client.deleteCustomDriver(9999))).status).toBe(404);
  });

  it('deletes a driver that is applied nowhere', async () => {
    const driver = await api.client.createCustomDriver({ name: 'short-lived', code: upsCode });
    await api.client.deleteCustomDriver(driver.id);
    expect((await failure(api.client.getCustomDriver(driver.id))).status).toBe(404);
    expect((await api.client.listCustomDrivers()).some((d) => d.id === driver.id)).toBe(false);
  });
});

describe('associations', () => {
  let pduId: number;
  let outletParam: number;
  beforeAll(async () => {
    const pdu = (await api.client.listCustomDrivers()).find((d) => d.name === 'PDU outlets')!;
    pduId = pdu.id;
    outletParam = (await api.client.getCustomDriver(pduId)).parameters![0]!.id;
  });

  it('applies a driver with credentials, parameters and the default sample period', async () => {
    const device = await createDevice(api.store, agent.id, { displayName: 'pdu-a', ip: '192.0.2.20' });
    const made = await api.client.createCustomDriverAssociation(pduId, agent.id, device.id, {
      credentials: { username: 'apc', password: 'pdu-pass' },
      parameters: [{ custom_driver_parameter_id: outletParam, value: 3 }],
    });
    expect(made).toEqual({ result: expect.any(Number) });
    const [association] = (await api.client.listCustomDriverAssociations(agent.id)).filter((a) => a.device_id === device.id);
    expect(association).toEqual({
      id: made.result,
      custom_driver_id: pduId,
      device_id: device.id,
      last_inspection_time: '2026-01-15T12:00:00',
      parameters: [{ custom_driver_parameter_id: outletParam, name: 'outlet', description: 'outlet the actions act on', value: 3, value_type: 'NUMBER' }],
      sample_period: 600,
      status: 'ENABLED',
      used_variables: 0,
    });
    expect(await getDeviceCredentials(api.store, device.id)).toEqual({ scope: 'CUSTOM_DRIVER_MANAGEMENT', username: 'apc', password: 'pdu-pass' });
    expect((await api.client.getCustomDriver(pduId)).id).toBe(pduId);
    expect((await api.client.listCustomDrivers()).find((d) => d.id === pduId)?.device_ids).toContain(device.id);
  });

  it('answers 201 {error} when the driver is invalid, already applied, or needs credentials the device lacks', async () => {
    const device = await createDevice(api.store, agent.id, { displayName: 'pdu-b', ip: '192.0.2.21' });
    const noCredentials = await api.client.createCustomDriverAssociation(pduId, agent.id, device.id);
    expect(noCredentials.result).toBeUndefined();
    expect(noCredentials.error).toBe(`custom driver ${pduId} requires credentials and device ${device.id} has none saved: give credentials {username, password}`);
    const first = await api.client.createCustomDriverAssociation(pduId, agent.id, device.id, { credentials: { username: 'u', password: 'p' } });
    const again = await api.client.createCustomDriverAssociation(pduId, agent.id, device.id);
    expect(again.error).toBe(`custom driver ${pduId} is already applied to device ${device.id} (association ${first.result})`);
    const broken = (await api.client.listCustomDrivers()).find((d) => d.name === 'broken')!;
    const invalid = await api.client.createCustomDriverAssociation(broken.id, agent.id, device.id);
    expect(invalid.error).toMatch(new RegExp(`^custom driver ${broken.id} has invalid code \\(SyntaxError at line 3: `));
  });

  it('checks sample_period and parameter values with 422s that name the field', async () => {
    const device = await createDevice(api.store, agent.id, { displayName: 'pdu-c', ip: '192.0.2.22' });
    const check = async (body: Parameters<typeof api.client.createCustomDriverAssociation>[3]) =>
      ((await failure(api.client.createCustomDriverAssociation(pduId, agent.id, device.id, { credentials: { username: 'u', password: 'p' }, ...body }))) as MonitoringValidationError).detail;
    expect(await check({ sample_period: 300 })).toEqual([
      { loc: ['body', 'sample_period'], msg: "must be at least the driver's minimal_sample_period 600 (got 300)", type: 'value_error' },
    ]);
    expect((await check({ sample_period: 700 }))[0]!.msg).toBe('must be one of 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400 (got 700)');
    expect(await check({ parameters: [{ custom_driver_parameter_id: outletParam, value: 'two' }] })).toEqual([
      { loc: ['body', 'parameters', 0, 'value'], msg: 'outlet: a NUMBER parameter takes a number (got a string "two")', type: 'value_error' },
    ]);
    expect((await check({ parameters: [{ custom_driver_parameter_id: 424242, value: 1 }] }))[0]!.loc).toEqual(['body', 'parameters', 0, 'custom_driver_parameter_id']);
    expect((await check({ credentials: { username: 'u' } as never }))[0]).toMatchObject({ loc: ['body', 'credentials', 'password'] });
    expect(await api.client.listCustomDriverAssociations(agent.id).then((all) => all.some((a) => a.device_id === device.id))).toBe(false);
  });

  it('checks STRING and LIST limits, and requires parameters that have no default', async () => {
    const strict = await api.client.createCustomDriver({
      name: 'strict params',
      code: 'function validate() { D.success(); }\nfunction get_status() { D.success(); }',
      requires_credentials: false,
      parameters: [
        { name: 'label', value_type: 'STRING' },
        { name: 'hosts', value_type: 'LIST', default_value: [] },
      ],
    });
    const [label, hosts] = strict.parameters!.map((p) => p.id) as [number, number];
    const device = await createDevice(api.store, agent.id, { displayName: 'strict', ip: '192.0.2.23' });
    const detail = async (parameters: Array<{ custom_driver_parameter_id: number; value?: unknown }>) =>
      ((await failure(api.client.createCustomDriverAssociation(strict.id, agent.id, device.id, { parameters: parameters as never }))) as MonitoringValidationError).detail;
    expect(await detail([])).toEqual([{ loc: ['body', 'parameters'], msg: `parameter ${label} (label) has no default value: give it a value`, type: 'value_error' }]);
    expect((await detail([{ custom_driver_parameter_id: label, value: 'x'.repeat(101) }]))[0]!.msg).toBe('label: a STRING value is at most 100 characters (got 101)');
    expect((await detail([{ custom_driver_parameter_id: label, value: 'ok' }, { custom_driver_parameter_id: hosts, value: Array(51).fill('h') }]))[0]!.msg).toBe(
      'hosts: a LIST value has at most 50 items (got 51)',
    );
    expect((await detail([{ custom_driver_parameter_id: label, value: 'ok' }, { custom_driver_parameter_id: hosts, value: ['a', 'y'.repeat(101)] }]))[0]!.msg).toBe(
      'hosts: LIST item 1 is 101 characters; items are at most 100',
    );
    const made = await api.client.createCustomDriverAssociation(strict.id, agent.id, device.id, {
      parameters: [{ custom_driver_parameter_id: label, value: 'x'.repeat(100) }, { custom_driver_parameter_id: hosts, value: Array(50).fill('z'.repeat(100)) }],
      sample_period: 86400,
    });
    expect(made.result).toEqual(expect.any(Number));

    // updateCustomDriverAssociationParameters: given ones change, null resets to the default, others stay.
    await api.client.updateCustomDriverAssociationParameters(strict.id, made.result!, { parameters: [{ custom_driver_parameter_id: hosts, value: ['one'] }] });
    let association = (await api.client.listCustomDriverAssociations(agent.id)).find((a) => a.id === made.result)!;
    expect(association.parameters!.map((p) => p.value)).toEqual(['x'.repeat(100), ['one']]);
    expect(association.sample_period).toBe(86400);
    await api.client.updateCustomDriverAssociationParameters(strict.id, made.result!, { parameters: [{ custom_driver_parameter_id: hosts, value: null }] });
    association = (await api.client.listCustomDriverAssociations(agent.id)).find((a) => a.id === made.result)!;
    expect(association.parameters!.map((p) => p.value)).toEqual(['x'.repeat(100), []]);
    const reset = await failure(api.client.updateCustomDriverAssociationParameters(strict.id, made.result!, { parameters: [{ custom_driver_parameter_id: label, value: null }] }));
    expect(reset.status).toBe(422);
    expect(reset.message).toContain(`parameter ${label} (label) has no default value`);
    const wrongType = (await failure(
      api.client.updateCustomDriverAssociationParameters(strict.id, made.result!, { parameters: [{ custom_driver_parameter_id: hosts, value: 'not a list' }] }),
    )) as MonitoringValidationError;
    expect(wrongType.detail[0]!.loc).toEqual(['body', 'parameters', 0, 'value']);
    expect((await failure(api.client.updateCustomDriverAssociationParameters(strict.id, made.result!, {} as never))).status).toBe(422);
    expect((await failure(api.client.updateCustomDriverAssociationParameters(pduId, made.result!, { parameters: [] }))).message).toContain(
      `association ${made.result} of custom driver ${pduId} not found`,
    );
  });

  it('answers 404 for an unknown agent, a device of another agent, an unknown driver or association', async () => {
    expect((await failure(api.client.listCustomDriverAssociations(9999))).status).toBe(404);
    expect((await api.client.listCustomDriverAssociations(otherAgent.id))).toEqual([]);
    const notHis = await failure(api.client.createCustomDriverAssociation(pduId, otherAgent.id, plainDevice.id));
    expect(notHis).toBeInstanceOf(MonitoringNotFoundError);
    expect(notHis.message).toContain(`device ${plainDevice.id} not found`);
    expect((await failure(api.client.createCustomDriverAssociation(9999, agent.id, plainDevice.id))).message).toContain('custom driver 9999 not found');
    expect((await failure(api.client.deleteCustomDriverAssociation(pduId, 9999))).status).toBe(404);
  });

  it('deleting an association deletes its variables; a driver in use cannot be deleted', async () => {
    const device = await createDevice(api.store, agent.id, { displayName: 'pdu-d', ip: '192.0.2.24' });
    const { result: id } = await api.client.createCustomDriverAssociation(pduId, agent.id, device.id, { credentials: { username: 'u', password: 'p' } });
    // Variables as a run of the association writes them (run reporting is another module's job).
    const insert = api.store.statement(
      `INSERT INTO variables (agent_id, device_id, association_id, path, value, creation_time) VALUES (?, ?, ?, ?, '1', 0)`,
    );
    await insert.run(agent.id, device.id, id, 'total-load');
    await insert.run(agent.id, device.id, id, 'outlets-on');
    await insert.run(agent.id, device.id, null, 'kept');
    expect((await api.client.listCustomDriverAssociations(agent.id)).find((a) => a.id === id)?.used_variables).toBe(2);
    const inUse = await failure(api.client.deleteCustomDriver(pduId));
    expect(inUse.status).toBe(409);
    expect(inUse.message).toContain('delete its associations first');
    await api.client.deleteCustomDriverAssociation(pduId, id!);
    const left = await api.store.statement('SELECT path FROM variables WHERE device_id = ? ORDER BY path').all(device.id);
    expect(left).toEqual([{ path: 'kept' }]);
    expect((await api.client.listCustomDriverAssociations(agent.id)).some((a) => a.id === id)).toBe(false);
  });
});

describe('executing actions', () => {
  let pdu: Simulator;
  let ups: Simulator;
  let pduId: number;
  let upsId: number;
  let pduDeviceId: number;
  beforeAll(async () => {
    pdu = await startSimulator(example('pdu-outlets', 'device.json'));
    ups = await startSimulator(example('ups-status', 'device.json'));
    pduId = (await api.client.listCustomDrivers()).find((d) => d.name === 'PDU outlets')!.id;
    upsId = (await api.client.createCustomDriver({ name: 'UPS status', code: upsCode })).id;
    const device = await createDevice(api.store, agent.id, { displayName: 'pdu-sim', ip: pdu.device.ip, portMap: pdu.portMap });
    pduDeviceId = device.id;
    const outlet = (await api.client.getCustomDriver(pduId)).parameters![0]!.id;
    await api.client.createCustomDriverAssociation(pduId, agent.id, device.id, {
      credentials: { username: 'apc', password: 'pdu-pass' },
      parameters: [{ custom_driver_parameter_id: outlet, value: 2 }],
    });
  });
  afterAll(async () => {
    await pdu.close();
    await ups.close();
  });

  it('runs a custom action against the device address, credentials and the association parameters', async () => {
    const plan = await planExecution(api.store, { customDriverId: pduId, agentId: agent.id, deviceId: pduDeviceId, actionId: 2 });
    expect(plan.action).toBe('custom_2');
    const execution = toExecutionResult(await runPlannedAction(api.store, host, plan));
    expect(execution).toEqual({ outcome: 'success', log: [], elapsed: expect.any(Number) });
    expect(pdu.state).toBe('outlet-2-off');
    const cycle = toExecutionResult(await runPlannedAction(api.store, host, await planExecution(api.store, { customDriverId: pduId, agentId: agent.id, deviceId: pduDeviceId, actionId: 1 })));
    expect(cycle.log).toEqual(['info: outlet 2 power-cycled']);
    expect(pdu.requests.filter((r) => r.method === 'POST').map((r) => r.url)).toEqual(['/api/outlets/2/off', '/api/outlets/2/cycle']);
  });

  it('action 0 runs get_status; a failed run answers its errorType, errorMessage and log', async () => {
    const device = await createDevice(api.store, agent.id, { displayName: 'ups-sim', ip: ups.device.ip, portMap: ups.portMap });
    await api.client.createCustomDriverAssociation(upsId, agent.id, device.id, { credentials: { username: 'admin', password: 'wrong' } });
    const plan = await planExecution(api.store, { customDriverId: upsId, agentId: agent.id, deviceId: device.id, actionId: 0 });
    expect(plan.action).toBe('get_status');
    const denied = toExecutionResult(await runPlannedAction(api.store, host, plan));
    expect(denied).toMatchObject({ outcome: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    // Port 1 on loopback refuses connections: the driver's request fails.
    const down = await createDevice(api.store, agent.id, { displayName: 'ups-down', ip: '127.0.0.1', portMap: { 80: 1 } });
    await api.client.createCustomDriverAssociation(upsId, agent.id, down.id, { credentials: { username: 'admin', password: 'ups-secret' } });
    const unreachable = toExecutionResult(
      await runPlannedAction(api.store, host, await planExecution(api.store, { customDriverId: upsId, agentId: agent.id, deviceId: down.id, actionId: 0 })),
    );
    expect(unreachable.outcome).toBe('failure');
    expect(unreachable.errorType).toBe('RESOURCE_UNAVAILABLE');
    expect(unreachable.log?.[0]).toMatch(/^error: request failed: /);
  });

  it('answers 404 for an action the driver lacks or a device without the association, 409 for invalid code, 422 out of range', async () => {
    const lacks = await failure(api.client.executeCustomDriverAction(pduId, agent.id, pduDeviceId, 7));
    expect(lacks.status).toBe(404);
    expect(lacks.message).toContain(`custom driver ${pduId} defines no custom_7; its actions: 0 (get_status), 1 (Power-cycle Outlet), 2 (Switch Outlet Off), 3 (Switch Outlet On)`);
    const unassociated = await failure(api.client.executeCustomDriverAction(pduId, agent.id, plainDevice.id, 1));
    expect(unassociated.status).toBe(404);
    expect(unassociated.code).toBe('NOT_ASSOCIATED');
    expect(unassociated.message).toContain(`custom driver ${pduId} is not applied to device ${plainDevice.id}: create an association first`);
    expect((await failure(api.client.executeCustomDriverAction(pduId, 9999, pduDeviceId, 1))).message).toContain('agent 9999 not found');
    expect((await failure(api.client.executeCustomDriverAction(pduId, otherAgent.id, pduDeviceId, 1))).status).toBe(404);
    expect((await failure(api.client.executeCustomDriverAction(9999, agent.id, pduDeviceId, 1))).status).toBe(404);
    const range = (await failure(api.client.executeCustomDriverAction(pduId, agent.id, pduDeviceId, 31))) as MonitoringValidationError;
    expect(range.detail[0]!.loc).toEqual(['path', 'action_id']);

    // A driver that became invalid after it was applied refuses to run.
    const fragile = await api.client.createCustomDriver({ name: 'fragile', code: 'function validate() { D.success(); }\nfunction get_status() { D.success(); }' });
    await api.client.createCustomDriverAssociation(fragile.id, agent.id, pduDeviceId);
    await api.client.updateCustomDriver(fragile.id, { code: 'function validate() {}\nfunction get_status() {' });
    const invalid = await failure(api.client.executeCustomDriverAction(fragile.id, agent.id, pduDeviceId, 0));
    expect(invalid.status).toBe(409);
    expect(invalid.message).toContain(`custom driver ${fragile.id} has invalid code and cannot run (SyntaxError at line 2`);
  });

  it('answers 503 on a server started without a host', async () => {
    const a = await createAgentRecord(noHost.store, { displayName: 'headless' });
    const device = await createDevice(noHost.store, a.id, { displayName: 'd', ip: '127.0.0.1' });
    const driver = await noHost.client.createCustomDriver({ name: 'ups', code: upsCode, requires_credentials: false });
    await noHost.client.createCustomDriverAssociation(driver.id, a.id, device.id);
    const error = await failure(noHost.client.executeCustomDriverAction(driver.id, a.id, device.id, 0));
    expect(error.status).toBe(503);
    expect(error.code).toBe('EXECUTION_UNAVAILABLE');
  });
});
