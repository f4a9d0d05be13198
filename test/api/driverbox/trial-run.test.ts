// The driverbox extension API's trial run (POST /driverbox-api/v1/agent/{a}/device/{d}/trial-run),
// the console editor's run button: code as sent, run in a real sandbox against a device of the
// store (a simulator at its address, its saved credentials), everything reported at once, the
// device's password masked, and nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { driverboxApiRoutes, type SimulatedDeviceInfo, type TrialRunAnswer } from '../../../host/api/driverbox/runs-routes.js';
import { createMonitoringApi } from '../../../host/api/monitoring/server.js';
import { startSimulator, type Simulator } from '../../../host/simulator/simulator.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createAssociation } from '../../../host/store/drivers/associations.js';
import { setDeviceCredentials } from '../../../host/store/fleet/credentials.js';
import { createCustomDriver, getCustomDriver } from '../../../host/store/drivers/custom-drivers.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import type { Store } from '../../../host/store/store.js';
import { useHost } from '../../helpers/host.js';
import { openTestStore } from '../../helpers/store.js';
import { readFileSync } from 'node:fs';

const KEY = 'trial-run-key-1';
const host = useHost();
let store: Store;
let app: FastifyInstance;
let noHostApp: FastifyInstance;
let sim: Simulator;
let agentId: number;
let deviceId: number;
let driverId: number;

const CODE = `
function validate() { D.success(); }
function get_status() {
  D.device.http.get({ url: '/reading', auth: 'basic' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    var reading = JSON.parse(body);
    console.info('mode ' + reading.mode + ' as ' + D.device.password());
    var table = D.createTable('Sensors', [{ label: 'Celsius', valueType: D.valueType.NUMBER }]);
    table.insertRecord('probe-1', [reading.celsius]);
    D.success([
      D.createVariable('temperature', 'Temperature', reading.celsius, 'C', D.valueType.NUMBER),
      D.createVariable('site', 'Site', D.getParameter('site'))
    ], table);
  });
}
`;

const trial = async (body: object, options: { app?: FastifyInstance; key?: string; device?: number } = {}) => {
  const response = await (options.app ?? app).inject({
    method: 'POST',
    url: `/driverbox-api/v1/agent/${agentId}/device/${options.device ?? deviceId}/trial-run`,
    headers: { 'x-api-key': options.key ?? KEY },
    payload: body,
  });
  return { status: response.statusCode, body: response.json() as TrialRunAnswer & { message?: string; code?: string } };
};

beforeAll(async () => {
  sim = await startSimulator({
    fixture: 1,
    device: { username: 'reader', password: 'therm-pass' },
    routes: [{ path: '/reading', auth: 'device', responses: [{ json: { celsius: 21.5, mode: 'eco' } }] }],
  });
  store = await openTestStore({ secretKey: 'test-secret' });
  agentId = (await createAgentRecord(store, { displayName: 'lab' })).id;
  deviceId = (await createDevice(store, agentId, { displayName: 'thermometer', ip: sim.device.ip, portMap: sim.portMap })).id;
  await setDeviceCredentials(store, deviceId, 'CUSTOM_DRIVER_MANAGEMENT', { username: 'reader', password: 'therm-pass' });
  const driver = await createCustomDriver(store, {
    name: 'Thermometer',
    code: CODE,
    parameters: [{ name: 'site', valueType: 'STRING', defaultValue: 'default site' }],
  });
  driverId = driver.id;
  app = await createMonitoringApi({ store, apiKeys: [KEY], extraRoutes: async (a) => void (await a.register(driverboxApiRoutes, { store, apiKeys: [KEY], host })) });
  noHostApp = await createMonitoringApi({ store, apiKeys: [KEY], extraRoutes: async (a) => void (await a.register(driverboxApiRoutes, { store, apiKeys: [KEY] })) });
});

afterAll(async () => {
  await app?.close();
  await noHostApp?.close();
  await store?.close();
  await sim?.close();
});

describe('trial run', () => {
  it('runs the code as sent against the device and answers variables, tables, log and exchanges, masked', async () => {
    const { status, body } = await trial({ code: CODE, parameters: { site: 'lab 2' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ action: 'get_status', outcome: 'success', error_type: null, limit_exceeded: null });
    expect(body.variables.map((v) => [v.uid, v.value])).toEqual([
      ['temperature', '21.5'],
      ['site', 'lab 2'],
    ]);
    expect(body.tables).toEqual([{ label: 'Sensors', columnHeaders: [expect.objectContaining({ label: 'Celsius' })], rows: [['probe-1', '21.5']] }]);
    expect(body.log).toEqual([{ level: 'info', message: 'mode eco as ***' }]);
    expect(body.http).toHaveLength(1);
    expect(body.http[0]).toMatchObject({ method: 'GET', status: 200 });
    // The whole exchange is recorded, the credentials masked.
    expect(body.http[0]!.request?.headers.authorization).toBe('Basic ***');
    expect(JSON.stringify(body)).not.toContain('therm-pass');
    expect(body.http[0]!.response?.body).toContain('21.5');
  });

  it("takes a library driver's parameters: the association's values, else the driver's defaults", async () => {
    const unassociated = await trial({ code: CODE, custom_driver_id: driverId });
    expect(unassociated.body.variables.find((v) => v.uid === 'site')?.value).toBe('default site');
    const parameterId = (await getCustomDriver(store, driverId))!.parameters[0]!.id;
    await createAssociation(store, { customDriverId: driverId, agentId, deviceId, parameters: [{ parameterId, value: 'rack 4' }] });
    const associated = await trial({ code: CODE, custom_driver_id: driverId });
    expect(associated.body.variables.find((v) => v.uid === 'site')?.value).toBe('rack 4');
    expect((await trial({ code: CODE, custom_driver_id: 999 })).status).toBe(404);
  });

  it('reports a broken driver as a failed run, and stores nothing', async () => {
    const { status, body } = await trial({ code: 'function get_status() { D.success([D.createVariable("x", "X", undefinedThing)]); }' });
    expect(status).toBe(200);
    expect(body.outcome).toBe('failure');
    expect(body.error_message).toMatch(/undefinedThing/);
    const runs = await app.inject({ method: 'GET', url: `/driverbox-api/v1/agent/${agentId}/run`, headers: { 'x-api-key': KEY } });
    expect(runs.json()).toMatchObject({ total: 0, runs: [] });
    const variables = await app.inject({ method: 'GET', url: `/public-api/v1/agent/${agentId}/device/${deviceId}/variable`, headers: { 'x-api-key': KEY } });
    expect(variables.json()).toEqual([]);
  });

  it('refuses a wrong key, an unknown device, a bad action, and answers 503 without a host', async () => {
    expect((await trial({ code: CODE }, { key: 'nope' })).status).toBe(401);
    expect((await trial({ code: CODE }, { device: 9999 })).status).toBe(404);
    expect((await trial({ code: CODE, action: 'rm -rf' })).status).toBe(422);
    expect((await trial({ code: '' })).status).toBe(422);
    const none = await trial({ code: CODE }, { app: noHostApp });
    expect(none.status).toBe(503);
    expect(none.body.code).toBe('EXECUTION_UNAVAILABLE');
  });

  it('lists the simulated devices driverbox ships, and runs a trial against one (its simulator started for the run)', async () => {
    const list = await app.inject({ method: 'GET', url: '/driverbox-api/v1/simulated-device', headers: { 'x-api-key': KEY } });
    expect(list.statusCode).toBe(200);
    const devices = (list.json() as { devices: SimulatedDeviceInfo[] }).devices;
    expect(devices.find((d) => d.name === 'ups-status')).toEqual({
      name: 'ups-status',
      description: 'A UPS network card serving an HTML status page behind basic auth.',
      protocols: ['http'],
      parameters: {},
    });
    expect(devices.find((d) => d.name === 'linux-ssh')?.protocols).toEqual(['ssh']);
    // The example's own driver, against its simulated device: the fixture's credentials are used, and masked.
    const code = readFileSync(new URL('../../../drivers-examples/ups-status/driver.js', import.meta.url), 'utf8');
    const run = await app.inject({ method: 'POST', url: '/driverbox-api/v1/simulated-device/ups-status/trial-run', headers: { 'x-api-key': KEY }, payload: { code } });
    expect(run.statusCode).toBe(200);
    const body = run.json() as TrialRunAnswer;
    expect(body.outcome).toBe('success');
    expect(body.variables.map((v) => v.uid)).toEqual(['model', 'battery', 'runtime', 'load', 'input-voltage', 'on-battery']);
    expect(body.http[0]).toMatchObject({ method: 'GET', status: 200 });
    expect(body.http[0]!.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/status\.html$/);
    expect(body.http[0]!.request?.headers.authorization).toBe('Basic ***');
    expect(JSON.stringify(body)).not.toContain('ups-secret');
    // The simulator was stopped after the run: the port it served on no longer answers.
    await expect(fetch(body.http[0]!.url)).rejects.toThrow();
  });

  it("trusts the certificates of an HTTPS simulated device's simulators it started, and takes no CA from the client", async () => {
    const example = (name: string) => readFileSync(new URL(`../../../drivers-examples/${name}/driver.js`, import.meta.url), 'utf8');
    const post = (name: string, payload: object) => app.inject({ method: 'POST', url: `/driverbox-api/v1/simulated-device/${name}/trial-run`, headers: { 'x-api-key': KEY }, payload });
    const value = (answer: TrialRunAnswer, uid: string) => answer.variables.find((v) => v.uid === uid)?.value;
    // tls-expiry reads its device's certificate: the simulator's, made at its start, verifies.
    const tls = (await post('tls-expiry', { code: example('tls-expiry') })).json() as TrialRunAnswer;
    expect(tls.outcome, tls.error_message ?? '').toBe('success');
    expect([value(tls, 'valid'), value(tls, 'cert-error'), value(tls, 'issuer'), value(tls, 'expiring')]).toEqual(['true', 'none', 'driverbox simulator', 'true']);
    expect(Number(value(tls, 'days-to-expiry'))).toBeGreaterThanOrEqual(19);
    // cloud-energy reaches its vendor's cloud (the fixture's hosts/, HTTPS) by name.
    const cloud = (await post('cloud-energy', { code: example('cloud-energy') })).json() as TrialRunAnswer;
    expect(cloud.outcome, cloud.error_message ?? JSON.stringify(cloud.log)).toBe('success');
    expect(cloud.variables.map((v) => [v.uid, v.value])).toEqual([['power', '3650'], ['energy-today', '18.42'], ['energy-lifetime', '48213'], ['last-update', '2026-11-21 11:45:00']]);
    expect(cloud.http[0]).toMatchObject({ method: 'GET', status: 200 });
    expect(cloud.http[0]!.url).toMatch(/^https:\/\/api\.solar-cloud\.example:\d+\/v1\/sites\/4711\/overview\?api_key=/);
    // A client cannot bring a CA of its own: the body has no such field.
    const injected = await post('tls-expiry', { code: example('tls-expiry'), trustedCAs: ['-----BEGIN CERTIFICATE-----'] });
    expect(injected.statusCode).toBe(422);
    const storeDevice = await trial({ code: CODE, trustedCAs: ['-----BEGIN CERTIFICATE-----'] });
    expect(storeDevice.status).toBe(422);
  });

  it('refuses an unknown or badly named simulated device, and answers 503 without a host', async () => {
    const post = (name: string, target = app) => target.inject({ method: 'POST', url: `/driverbox-api/v1/simulated-device/${name}/trial-run`, headers: { 'x-api-key': KEY }, payload: { code: CODE } });
    expect((await post('no-such-device')).statusCode).toBe(404);
    expect((await post('..%2Fetc')).statusCode).toBe(422);
    expect((await post('ups-status', noHostApp)).statusCode).toBe(503);
    const refused = await app.inject({ method: 'GET', url: '/driverbox-api/v1/simulated-device' });
    expect(refused.statusCode).toBe(401);
  });
});
