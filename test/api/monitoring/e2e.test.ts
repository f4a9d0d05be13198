// End to end through MonitoringClient: register a driver, associate it with a device served by
// a local simulator, execute get_status through the API, read the variables and their history
// back, then delete the association and see its variables go.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { ensureLocalAgent } from '../../../host/store/fleet/agents.js';
import { startSimulator } from '../../../host/simulator/simulator.js';
import { formatApiTime } from '../../../host/store/db/time.js';
import { useHost } from '../../helpers/host.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const host = useHost();
const api = await startMonitoringFixture({ host });
const agent = await ensureLocalAgent(api.store);

// A thermometer whose reading changes between polls; basic auth from the association's credentials.
const thermometer = await startSimulator({
  fixture: 1,
  device: { username: 'reader', password: 'therm-pass' },
  routes: [{ path: '/reading', auth: 'device', responses: [{ json: { celsius: 21.5, mode: 'eco' } }, { json: { celsius: 23, mode: 'eco' } }] }],
});
const ups = await startSimulator(new URL('../../../drivers-examples/ups-status/device.json', import.meta.url).pathname);
afterAll(() => Promise.all([thermometer.close(), ups.close()]));

const thermometerDriver = `
function read(done) {
  D.device.http.get({ url: '/reading', auth: 'basic' }, function (error, response, body) {
    if (error) return D.failure(D.errorType.RESOURCE_UNAVAILABLE);
    if (response.statusCode === 401) return D.failure(D.errorType.AUTHENTICATION_ERROR);
    done(JSON.parse(body));
  });
}
function validate() { read(function () { D.success(); }); }
function get_status() {
  read(function (reading) {
    console.info('mode ' + reading.mode);
    D.success([
      D.createVariable('temperature', 'Temperature', reading.celsius, 'C', D.valueType.NUMBER),
      D.createVariable('mode', 'Mode', reading.mode),
      D.createVariable('site', 'Site', D.getParameter('site'))
    ]);
  });
}
`;

describe('a driver through the Monitoring API', () => {
  it('runs against its simulated device, and its variables and history read back through the client', async () => {
    const driver = await api.client.createCustomDriver({
      name: 'Thermometer',
      code: thermometerDriver,
      parameters: [{ name: 'site', value_type: 'STRING', default_value: 'lab' }],
    });
    expect(driver).toMatchObject({ is_valid: true, requires_credentials: true, code_inspection: { has_parameters: true, has_independent_variables: true, has_table: false } });
    const device = await createDevice(api.store, agent.id, { displayName: 'thermometer', ip: thermometer.device.ip, portMap: thermometer.portMap });
    const site = driver.parameters![0]!.id;
    const association = await api.client.createCustomDriverAssociation(driver.id, agent.id, device.id, {
      credentials: { username: 'reader', password: 'therm-pass' },
      parameters: [{ custom_driver_parameter_id: site, value: 'attic' }],
    });
    expect(association.result).toBeGreaterThan(0);

    const t1 = api.clock.now;
    const first = await api.client.executeCustomDriverAction(driver.id, agent.id, device.id, 0);
    expect(first).toMatchObject({ outcome: 'success' });
    expect(first.log).toContain('info: mode eco');
    api.clock.now += 60_000;
    const second = await api.client.executeCustomDriverAction(driver.id, agent.id, device.id, 0);
    expect(second.outcome).toBe('success');
    expect(thermometer.requests.map((r) => r.status)).toEqual([200, 200]);

    const variables = await api.client.listDeviceVariables(agent.id, device.id, { sort_by: 'path' });
    expect(variables.map((v) => [v.path, v.label, v.value, v.previous_value, v.unit])).toEqual([
      ['mode', 'Mode', 'eco', 'eco', undefined],
      ['site', 'Site', 'attic', 'attic', undefined],
      ['temperature', 'Temperature', '23', '21.5', 'C'],
    ]);
    expect(await api.client.countDeviceVariables(agent.id, device.id)).toBe(3);
    const temperature = variables.find((v) => v.path === 'temperature')!;
    expect(temperature).toMatchObject({ has_history: true, creation_time: formatApiTime(t1), value_update_time: formatApiTime(t1 + 60_000) });
    const history = await api.client.getVariableHistory(agent.id, device.id, temperature.id);
    expect(history).toEqual([
      { timestamp: formatApiTime(t1), value: '21.5' },
      { timestamp: formatApiTime(t1 + 60_000), value: '23' },
    ]);
    // The agent-wide list shows the same variables under this device.
    const agentWide = await api.client.listAgentDeviceVariables(agent.id, { path: 'temperature' });
    expect(agentWide).toEqual([expect.objectContaining({ id: temperature.id, device_id: device.id, value: '23' })]);
    // Each run is in the activity log with its outcome.
    const activity = await api.client.getAgentActivityLog(agent.id, { type: 'custom_driver_execute' });
    expect(activity.filter((a) => a.device_id === device.id)).toHaveLength(2);

    // Deleting the association deletes its variables, as the reference says.
    await api.client.deleteCustomDriverAssociation(driver.id, association.result!);
    expect(await api.client.listDeviceVariables(agent.id, device.id)).toEqual([]);
  });

  it('runs a shipped example driver unchanged, with credentials saved for the device', async () => {
    const driver = await api.client.createCustomDriver({ name: 'UPS status', code: readFileSync(new URL('../../../drivers-examples/ups-status/driver.js', import.meta.url), 'utf8') });
    const device = await createDevice(api.store, agent.id, { displayName: 'ups', ip: ups.device.ip, portMap: ups.portMap });
    const created = await api.client.createCustomDriverAssociation(driver.id, agent.id, device.id, { credentials: { username: 'admin', password: 'ups-secret' } });
    expect(created.error).toBeUndefined();
    const result = await api.client.executeCustomDriverAction(driver.id, agent.id, device.id, 0);
    expect(result).toMatchObject({ outcome: 'success' });
    const byPath = Object.fromEntries((await api.client.listDeviceVariables(agent.id, device.id)).map((v) => [v.path, v.value]));
    expect(byPath).toEqual({ model: 'SmartCell 1500', battery: '97.5', runtime: '42', load: '31.2', 'input-voltage': '229.8', 'on-battery': 'false' });

    // Wrong saved credentials: the run fails, the API says why, the variables stay as they were.
    await api.store.statement('DELETE FROM device_credentials WHERE device_id = ?').run(device.id);
    const { setDeviceCredentials } = await import('../../../host/store/fleet/credentials.js');
    await setDeviceCredentials(api.store, device.id, 'CUSTOM_DRIVER_MANAGEMENT', { username: 'admin', password: 'wrong' });
    const failed = await api.client.executeCustomDriverAction(driver.id, agent.id, device.id, 0);
    expect(failed).toMatchObject({ outcome: 'failure', errorType: 'AUTHENTICATION_ERROR' });
    expect(await api.client.countDeviceVariables(agent.id, device.id)).toBe(6);
  });
});
