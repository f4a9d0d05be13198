// The device additions of reference 1.14.0 through MonitoringClient: monitoring state, excluded
// devices (and show_excluded), power outlets, device profiles, re-enabling associations; and the
// agent, which runs no driver on a device that is not monitored and picks re-enabled ones up.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentRunFinished } from '../../../host/agent/agent-types.js';
import { createAgent } from '../../../host/server/agent-server.js';
import { MonitoringApiError, MonitoringClient, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import type { RunExecutor } from '../../../host/contract/run-executor.js';
import type { RunRequest } from '../../../host/contract/run-request.js';
import type { RunResult } from '../../../host/contract/run-result.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { disableAssociation, disabledReason } from '../../../host/store/drivers/association-status.js';
import { createAssociation, getAssociation } from '../../../host/store/drivers/associations.js';
import { createCustomDriver } from '../../../host/store/drivers/custom-drivers.js';
import { setDeviceExcluded, setMonitoringState } from '../../../host/store/fleet/device-monitoring.js';
import { addDeviceProfile, deviceProfileApplication } from '../../../host/store/account/device-profiles.js';
import { createDevice, getDevice, listDevices } from '../../../host/store/fleet/devices.js';
import { openDatabase } from '../../../host/store/db/better-sqlite3.js';
import { openStore } from '../../../host/store/index.js';
import { migrations } from '../../../host/store/db/migrations.js';
import { defineDeviceOutlets, listOutletActions } from '../../../host/store/monitoring/outlets.js';
import { expectReferenceBody } from '../../helpers/reference-schema.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';
import { openTestStore, rawMigration } from '../../helpers/store.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const site = await createAgentRecord(store, { displayName: 'site' });
const other = await createAgentRecord(store, { displayName: 'elsewhere' });
const DRIVER_CODE = 'function validate() { D.success(); }\nfunction get_status() { D.success(); }';

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

/** The message of the error body (the error's own message also names the operation). */
const messageOf = (error: MonitoringApiError) => (error.body as { message?: string } | null)?.message;

const activity = async (deviceId: number) =>
  await store.statement('SELECT type, "user", description, details FROM activity_log WHERE device_id = ? ORDER BY id').all(deviceId) as Array<Record<string, string>>;

describe('monitoring state', async () => {
  const printer = await createDevice(store, site.id, { displayName: 'printer', ip: '10.0.0.20', macAddress: '00:11:22:33:44:55', vendor: 'HP', model: 'M404' });
  const bare = await createDevice(store, site.id, { displayName: 'bare', protocol: 'DUMMY' });
  const kept = await createDevice(store, site.id, { displayName: 'kept', ip: '10.0.0.21' });

  it('an UNMANAGED device leaves listDevices and is listed, minimally, by listUnmanagedDevices', async () => {
    expect(await client.listUnmanagedDevices(site.id)).toEqual([]);
    await client.updateDeviceMonitoringState(site.id, printer.id, { monitoring_state: 'UNMANAGED' });
    await client.updateDeviceMonitoringState(site.id, bare.id, { monitoring_state: 'UNMANAGED' });
    const listed = (await client.listDevices(site.id)).map((d) => d.id);
    expect(listed).toContain(kept.id);
    expect(listed).not.toContain(printer.id);
    expect(listed).not.toContain(bare.id);
    const unmanaged = await client.listUnmanagedDevices(site.id);
    expectReferenceBody('listUnmanagedDevices', unmanaged);
    expect(unmanaged).toEqual([
      {
        id: printer.id,
        display_name: 'printer',
        protocol: 'IP',
        first_seen_on: '2026-01-15T12:00:00',
        ip_addresses: ['10.0.0.20'],
        mac: '00:11:22:33:44:55',
        model: 'M404',
        vendor: 'HP',
      },
      // Unknown optional fields are left out, never null.
      { id: bare.id, display_name: 'bare', protocol: 'DUMMY', first_seen_on: '2026-01-15T12:00:00' },
    ]);
    // Still the agent's device: getDevice answers it.
    expect((await client.getDevice(site.id, printer.id)).display_name).toBe('printer');
  });

  it('MANAGED brings a device back to listDevices; setting the same state twice is harmless', async () => {
    await client.updateDeviceMonitoringState(site.id, printer.id, { monitoring_state: 'MANAGED' });
    await client.updateDeviceMonitoringState(site.id, printer.id, { monitoring_state: 'MANAGED' });
    expect((await client.listDevices(site.id)).map((d) => d.id)).toContain(printer.id);
    expect((await client.listUnmanagedDevices(site.id)).map((d) => d.id)).toEqual([bare.id]);
  });

  it('refuses a state that is not MANAGED / UNMANAGED (422), a missing body (422), unknown ids (404)', async () => {
    const bad = (await failure(client.updateDeviceMonitoringState(site.id, kept.id, { monitoring_state: 'PAUSED' as never }))) as MonitoringValidationError;
    expect(bad.status).toBe(422);
    expect(bad.detail[0]).toMatchObject({ loc: ['body', 'monitoring_state'], msg: 'must be one of MANAGED, UNMANAGED' });
    const missing = (await failure(client.updateDeviceMonitoringState(site.id, kept.id, {} as never))) as MonitoringValidationError;
    expect(missing.detail[0]!.loc).toEqual(['body', 'monitoring_state']);
    expect((await failure(client.updateDeviceMonitoringState(site.id, 9999, { monitoring_state: 'UNMANAGED' }))).status).toBe(404);
    const foreign = await createDevice(store, other.id, { displayName: 'theirs' });
    const notHere = await failure(client.updateDeviceMonitoringState(site.id, foreign.id, { monitoring_state: 'UNMANAGED' }));
    expect([notHere.status, messageOf(notHere)]).toEqual([404, `device ${foreign.id} not found`]);
    expect((await failure(client.listUnmanagedDevices(9999))).status).toBe(404);
  });
});

describe('excluded devices', async () => {
  const agent = await createAgentRecord(store, { displayName: 'excluding' });
  // Every optional field known: leaving out unknown ones is part A's (and monitoring-reference's) to check.
  const tv = await createDevice(store, agent.id, { displayName: 'tv', ip: '10.1.0.5', macAddress: '00:11:22:00:00:05', vendor: 'LG', model: 'OLED' });
  const nas = await createDevice(store, agent.id, { displayName: 'nas', ip: '10.1.0.6', macAddress: '00:11:22:00:00:06', vendor: 'QNAP', model: 'TS-453' });

  it('an excluded device stays in listDevices with is_excluded, unless show_excluded=false', async () => {
    await client.addExcludedDevice(agent.id, tv.id);
    const all = await client.listDevices(agent.id);
    expectReferenceBody('listDevices', all);
    expect(all.map((d) => [d.display_name, d.is_excluded])).toEqual([
      ['tv', true],
      ['nas', false],
    ]);
    expect((await client.listDevices(agent.id, { show_excluded: true })).map((d) => d.id)).toEqual([tv.id, nas.id]);
    expect((await client.listDevices(agent.id, { show_excluded: false })).map((d) => d.id)).toEqual([nas.id]);
    expect((await client.getDevice(agent.id, tv.id)).is_excluded).toBe(true);
  });

  it('listExcludedDevices lists them as devices; adding one twice changes nothing', async () => {
    await client.addExcludedDevice(agent.id, tv.id);
    const excluded = await client.listExcludedDevices(agent.id);
    expectReferenceBody('listExcludedDevices', excluded);
    expect(excluded).toHaveLength(1);
    expect(excluded[0]).toMatchObject({ id: tv.id, display_name: 'tv', is_excluded: true, ip_addresses: ['10.1.0.5'] });
  });

  it('deleteExcludedDevice takes it off the list; one not on it is a 404', async () => {
    await client.deleteExcludedDevice(agent.id, tv.id);
    expect(await client.listExcludedDevices(agent.id)).toEqual([]);
    expect((await client.getDevice(agent.id, tv.id)).is_excluded).toBe(false);
    const again = await failure(client.deleteExcludedDevice(agent.id, tv.id));
    expect([again.status, messageOf(again)]).toEqual([404, `device ${tv.id} is not on the excluded-device list of agent ${agent.id}`]);
  });

  it('unknown agents and devices are 404', async () => {
    expect((await failure(client.addExcludedDevice(agent.id, 9999))).status).toBe(404);
    expect((await failure(client.addExcludedDevice(9999, tv.id))).status).toBe(404);
    expect((await failure(client.listExcludedDevices(9999))).status).toBe(404);
    expect((await failure(client.deleteExcludedDevice(agent.id, 9999))).status).toBe(404);
  });
});

describe('power outlets', async () => {
  const pdu = await createDevice(store, site.id, { displayName: 'rack pdu', ip: '10.0.0.30' });
  const server = await createDevice(store, site.id, { displayName: 'server', ip: '10.0.0.31' });
  const router = await createDevice(store, site.id, { displayName: 'router', ip: '10.0.0.32' });
  const theirs = await createDevice(store, other.id, { displayName: 'not on this site' });
  await defineDeviceOutlets(store, pdu.id, [
    { id: '1', name: 'Outlet 1', power: 'ON' },
    { id: '2', name: 'Outlet 2', power: 'OFF' },
    { id: 'M', name: 'Meter', canWrite: false },
  ]);

  it('lists the outlets the store defines; a device without outlets has none', async () => {
    const outlets = await client.getDeviceOutlets(site.id, pdu.id);
    expectReferenceBody('getDeviceOutlets', outlets);
    expect(outlets).toEqual([
      { id: '1', device_id: pdu.id, name: 'Outlet 1', power: 'ON', can_write: true, links: [] },
      { id: '2', device_id: pdu.id, name: 'Outlet 2', power: 'OFF', can_write: true, links: [] },
      { id: 'M', device_id: pdu.id, name: 'Meter', power: 'unknown', can_write: false, links: [] },
    ]);
    expect(await client.getDeviceOutlets(site.id, server.id)).toEqual([]);
  });

  it('updateDeviceOutlet sets the custom name the next GET answers; no body or null removes it', async () => {
    await client.updateDeviceOutlet(site.id, pdu.id, '1', { custom_name: 'server PSU A' });
    expect((await client.getDeviceOutlets(site.id, pdu.id))[0]).toMatchObject({ id: '1', name: 'Outlet 1', custom_name: 'server PSU A' });
    await client.updateDeviceOutlet(site.id, pdu.id, '1');
    expect((await client.getDeviceOutlets(site.id, pdu.id))[0]).not.toHaveProperty('custom_name');
    await client.updateDeviceOutlet(site.id, pdu.id, '2', { custom_name: 'router' });
    await client.updateDeviceOutlet(site.id, pdu.id, '2', { custom_name: null });
    expect((await client.getDeviceOutlets(site.id, pdu.id))[1]).not.toHaveProperty('custom_name');
    const tooLong = (await failure(client.updateDeviceOutlet(site.id, pdu.id, '1', { custom_name: 'x'.repeat(256) }))) as MonitoringValidationError;
    expect([tooLong.status, tooLong.detail[0]!.loc]).toEqual([422, ['body', 'custom_name']]);
    const unknownField = await failure(client.updateDeviceOutlet(site.id, pdu.id, '1', { name: 'x' } as never));
    expect(unknownField.status).toBe(422);
    expect(messageOf(await failure(client.updateDeviceOutlet(site.id, pdu.id, '9', { custom_name: 'x' })))).toBe(`power outlet 9 of device ${pdu.id} not found`);
  });

  it('an action is accepted (202), recorded and logged, and the outlet answers the state it leaves', async () => {
    await client.triggerOutletAction(site.id, pdu.id, '2', 'on');
    await client.triggerOutletAction(site.id, pdu.id, '1', 'off');
    expect((await client.getDeviceOutlets(site.id, pdu.id)).map((o) => [o.id, o.power])).toEqual([
      ['1', 'OFF'],
      ['2', 'ON'],
      ['M', 'unknown'],
    ]);
    await client.triggerOutletAction(site.id, pdu.id, '1', 'cycle');
    expect((await client.getDeviceOutlets(site.id, pdu.id))[0]!.power).toBe('ON');
    expect((await listOutletActions(store, pdu.id)).map((a) => [a.outletId, a.action, a.user])).toEqual([
      ['2', 'on', 'api'],
      ['1', 'off', 'api'],
      ['1', 'cycle', 'api'],
    ]);
    expect((await activity(pdu.id)).map((e) => [e.type, JSON.parse(e.details!).power_outlet_id])).toEqual([
      ['power_on', '2'],
      ['power_off', '1'],
      ['power_cycle', '1'],
    ]);
  });

  it('refuses an action on a read-only outlet (409), an unknown action (422), an unknown outlet or device (404)', async () => {
    const readOnly = await failure(client.triggerOutletAction(site.id, pdu.id, 'M', 'off'));
    expect([readOnly.status, messageOf(readOnly)]).toEqual([409, `power outlet M of device ${pdu.id} is read-only (can_write false)`]);
    const bad = (await failure(client.triggerOutletAction(site.id, pdu.id, '1', 'explode' as never))) as MonitoringValidationError;
    expect([bad.status, bad.detail[0]!.loc]).toEqual([422, ['path', 'action']]);
    expect((await failure(client.triggerOutletAction(site.id, pdu.id, 'nine', 'on'))).status).toBe(404);
    expect((await failure(client.triggerOutletAction(site.id, 9999, '1', 'on'))).status).toBe(404);
    expect((await failure(client.getDeviceOutlets(other.id, pdu.id))).status).toBe(404);
    expect(await listOutletActions(store, pdu.id)).toHaveLength(3);
  });

  it('attaching devices shows them in links; detaching removes them', async () => {
    await client.attachDeviceToOutlet(site.id, pdu.id, '1', server.id);
    await client.attachDeviceToOutlet(site.id, pdu.id, '1', router.id);
    await client.attachDeviceToOutlet(site.id, pdu.id, '1', server.id); // already: nothing changes
    await client.attachDeviceToOutlet(site.id, pdu.id, '2', router.id);
    expect((await client.getDeviceOutlets(site.id, pdu.id)).map((o) => o.links)).toEqual([[server.id, router.id], [router.id], []]);
    await client.detachDeviceFromOutlet(site.id, pdu.id, '1', router.id);
    expect((await client.getDeviceOutlets(site.id, pdu.id)).map((o) => o.links)).toEqual([[server.id], [router.id], []]);
    const notAttached = await failure(client.detachDeviceFromOutlet(site.id, pdu.id, '1', router.id));
    expect([notAttached.status, messageOf(notAttached)]).toEqual([404, `device ${router.id} is not attached to power outlet 1 of device ${pdu.id}`]);
  });

  it('refuses attaching a device of another agent or an unknown one (404), or the PDU to itself (422)', async () => {
    const foreign = await failure(client.attachDeviceToOutlet(site.id, pdu.id, '2', theirs.id));
    expect([foreign.status, messageOf(foreign)]).toEqual([404, `device ${theirs.id} not found`]);
    expect((await failure(client.attachDeviceToOutlet(site.id, pdu.id, '2', 9999))).status).toBe(404);
    expect((await failure(client.attachDeviceToOutlet(site.id, pdu.id, 'nine', server.id))).status).toBe(404);
    const self = (await failure(client.attachDeviceToOutlet(site.id, pdu.id, '2', pdu.id))) as MonitoringValidationError;
    expect([self.status, self.detail[0]!.loc]).toEqual([422, ['path', 'attached_device_id']]);
  });

  it('redefining the outlets keeps the names and links of those kept; a deleted attached device leaves links', async () => {
    await defineDeviceOutlets(store, pdu.id, [
      { id: '1', name: 'Outlet 1', power: 'ON' },
      { id: '3', name: 'Outlet 3' },
    ]);
    await client.updateDeviceOutlet(site.id, pdu.id, '1', { custom_name: 'server' });
    await client.deleteDevice(site.id, server.id);
    expect(await client.getDeviceOutlets(site.id, pdu.id)).toEqual([
      { id: '1', device_id: pdu.id, name: 'Outlet 1', custom_name: 'server', power: 'ON', can_write: true, links: [] },
      { id: '3', device_id: pdu.id, name: 'Outlet 3', power: 'unknown', can_write: true, links: [] },
    ]);
  });
});

describe('device profiles', async () => {
  const cam = await createDevice(store, site.id, { displayName: 'cam', ip: '10.0.0.40' });
  const door = await createDevice(store, other.id, { displayName: 'door', ip: '10.9.0.1' });

  it('lists none until the store has some; then the catalogue as the reference shapes it', async () => {
    expect(await client.listDeviceProfiles()).toEqual([]);
    await addDeviceProfile(store, {
      name: 'Cameras',
      description: 'Alerts and sensors for cameras',
      modifiedBy: { id: 7, name: 'ops@example.com' },
      modules: [{ moduleType: 'SHARED_ALERT' }, { moduleType: 'TCP_SENSOR', applyMode: 'ADDITIVE', isActive: false }],
    });
    await addDeviceProfile(store, { name: 'Bare' });
    const profiles = await client.listDeviceProfiles();
    expectReferenceBody('listDeviceProfiles', profiles);
    expect(profiles).toEqual([
      {
        id: 1,
        name: 'Cameras',
        description: 'Alerts and sensors for cameras',
        creation_time: '2026-01-15T12:00:00',
        last_modified: '2026-01-15T12:00:00',
        modified_by: { id: 7, name: 'ops@example.com' },
        modules: [
          { id: 1, module_type: 'SHARED_ALERT', apply_mode: 'REPLACE', is_active: true, creation_time: '2026-01-15T12:00:00', last_modified: '2026-01-15T12:00:00' },
          { id: 2, module_type: 'TCP_SENSOR', apply_mode: 'ADDITIVE', is_active: false, creation_time: '2026-01-15T12:00:00', last_modified: '2026-01-15T12:00:00' },
        ],
      },
      { id: 2, name: 'Bare', description: '', creation_time: '2026-01-15T12:00:00', last_modified: '2026-01-15T12:00:00', modified_by: {}, modules: [] },
    ]);
  });

  it('applying records the profile each device follows (the last one applied) and logs it', async () => {
    await client.applyDeviceProfile(1, { device_ids: [cam.id, door.id, cam.id] });
    expect(await deviceProfileApplication(store, cam.id)).toMatchObject({ profileId: 1, user: 'api' });
    expect(await deviceProfileApplication(store, door.id)).toMatchObject({ profileId: 1 });
    await client.applyDeviceProfile(2, { device_ids: [cam.id] });
    expect(await deviceProfileApplication(store, cam.id)).toMatchObject({ profileId: 2 });
    expect((await activity(cam.id)).map((e) => e.description)).toEqual(['device profile "Cameras" applied to device "cam"', 'device profile "Bare" applied to device "cam"']);
  });

  it('refuses an unknown profile (404), and empty, unknown or malformed device ids (422, nothing applied)', async () => {
    const unknown = await failure(client.applyDeviceProfile(99, { device_ids: [cam.id] }));
    expect([unknown.status, messageOf(unknown)]).toEqual([404, 'device profile 99 not found']);
    const empty = (await failure(client.applyDeviceProfile(1, { device_ids: [] }))) as MonitoringValidationError;
    expect([empty.status, empty.detail[0]!.loc]).toEqual([422, ['body', 'device_ids']]);
    const missing = (await failure(client.applyDeviceProfile(1, {} as never))) as MonitoringValidationError;
    expect(missing.detail[0]!.loc).toEqual(['body', 'device_ids']);
    const strings = (await failure(client.applyDeviceProfile(1, { device_ids: ['cam'] as never }))) as MonitoringValidationError;
    expect(strings.detail[0]!.loc).toEqual(['body', 'device_ids', 0]);
    const ghost = (await failure(client.applyDeviceProfile(1, { device_ids: [cam.id, 9999] }))) as MonitoringValidationError;
    expect(ghost.detail).toEqual([{ loc: ['body', 'device_ids', 1], msg: 'device 9999 not found', type: 'value_error.not_found' }]);
    expect(await deviceProfileApplication(store, cam.id)).toMatchObject({ profileId: 2 });
  });
});

describe('reEnableCustomDriverAssociations', async () => {
  const driver = await createCustomDriver(store, { name: 're-enable', code: DRIVER_CODE, minimalSamplePeriod: 300, requiresCredentials: false });
  const associations = [];
  for (const name of ['failed', 'stuck', 'configured', 'running']) {
    const d = await createDevice(store, site.id, { displayName: name, ip: '10.0.0.50' });
    associations.push(await createAssociation(store, { customDriverId: driver.id, agentId: site.id, deviceId: d.id, samplePeriod: 300 }));
  }
  const [failed, stuck, configured, running] = associations;
  await disableAssociation(store, failed!.id, 'FAILURE');
  await disableAssociation(store, stuck!.id, 'UNRECOVERABLE');
  // As the inventory's `enabled: false` leaves it: disabled, no failure recorded.
  await store.statement(`UPDATE custom_driver_associations SET status = 'DISABLED' WHERE id = ?`).run(configured!.id);
  const statuses = async () => Object.fromEntries((await client.listCustomDriverAssociations(site.id)).filter((a) => a.custom_driver_id === driver.id).map((a) => [a.id, a.status]));

  it('re-enables those disabled by failure only, by default', async () => {
    expect(await statuses()).toEqual({ [failed!.id]: 'DISABLED', [stuck!.id]: 'DISABLED', [configured!.id]: 'DISABLED', [running!.id]: 'ENABLED' });
    await client.reEnableCustomDriverAssociations();
    expect(await statuses()).toEqual({ [failed!.id]: 'ENABLED', [stuck!.id]: 'DISABLED', [configured!.id]: 'DISABLED', [running!.id]: 'ENABLED' });
    expect(await disabledReason(store, failed!.id)).toBeNull();
  });

  it('with include_unrecoverable, those found unable to recover too; the inventory’s stay disabled', async () => {
    await client.reEnableCustomDriverAssociations({ include_unrecoverable: false });
    expect((await getAssociation(store, stuck!.id))!.status).toBe('DISABLED');
    await client.reEnableCustomDriverAssociations({ include_unrecoverable: true });
    expect(await statuses()).toEqual({ [failed!.id]: 'ENABLED', [stuck!.id]: 'ENABLED', [configured!.id]: 'DISABLED', [running!.id]: 'ENABLED' });
  });

  it('refuses an include_unrecoverable that is no boolean (422)', async () => {
    const bad = (await failure(client.call('reEnableCustomDriverAssociations', 'POST', '/custom-driver/association/re-enable', { query: { include_unrecoverable: 'perhaps' } }))) as MonitoringValidationError;
    expect([bad.status, bad.detail[0]!.loc]).toEqual([422, ['query', 'include_unrecoverable']]);
  });
});

describe('the agent and monitoring', () => {
  /** An executor that answers every run at once, recording which device it ran on. */
  function recordingExecutor(): RunExecutor & { devices: string[] } {
    const devices: string[] = [];
    return {
      devices,
      async run(request: RunRequest): Promise<RunResult> {
        devices.push(String(request.device?.ip ?? request.device?.host ?? '?'));
        const action = request.action ?? 'get_status';
        return { status: 'success', errorType: null, message: null, variables: [], tables: [], logs: [], warnings: [], http: [], action, limitExceeded: null, durationMs: 1 };
      },
      async close() {},
    };
  }

  async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('runs no driver on an UNMANAGED or excluded device, and picks devices and re-enabled associations up through the API', async () => {
    const agentStore = await openTestStore({ secretKey: 'agent-secret' });
    const executor = recordingExecutor();
    const agent = createAgent({ store: agentStore, executor, scheduler: { jitterMs: 50 }, storeRefreshMs: 0, api: { apiKeys: [TEST_API_KEY] } });
    const finished: AgentRunFinished[] = [];
    agent.on('runFinished', (run) => finished.push(run));
    afterAll(async () => {
      await agent.stop({ graceMs: 0 });
      await agentStore.close();
    });
    await agent.start();
    const agentId = agent.agentId!;
    const driver = await createCustomDriver(agentStore, { name: 'probe', code: DRIVER_CODE, minimalSamplePeriod: 300, requiresCredentials: false });
    const devices = [];
    for (const ip of ['10.7.0.1', '10.7.0.2', '10.7.0.3']) devices.push(await createDevice(agentStore, agentId, { displayName: ip, ip }));
    const [unmanaged, excluded, failing] = devices;
    const associations = [];
    for (const d of devices) associations.push(await createAssociation(agentStore, { customDriverId: driver.id, agentId, deviceId: d.id, samplePeriod: 300 }));
    await setMonitoringState(agentStore, agentId, unmanaged!.id, 'UNMANAGED');
    await setDeviceExcluded(agentStore, agentId, excluded!.id, true);
    await disableAssociation(agentStore, associations[2]!.id, 'FAILURE');
    await agent.refresh();
    expect(agent.stats().associations).toBe(0);
    await new Promise((r) => setTimeout(r, 300)); // past the jitter: nothing may run
    expect(executor.devices).toEqual([]);

    const agentClient = new MonitoringClient({ baseUrl: agent.url!, apiKey: TEST_API_KEY });
    afterAll(() => agentClient.close());
    await agentClient.updateDeviceMonitoringState(agentId, unmanaged!.id, { monitoring_state: 'MANAGED' });
    expect(agent.stats().associations).toBe(1);
    await agentClient.deleteExcludedDevice(agentId, excluded!.id);
    expect(agent.stats().associations).toBe(2);
    await agentClient.reEnableCustomDriverAssociations();
    expect(agent.stats().associations).toBe(3);
    await until('a run on each device', () => finished.length >= 3);
    expect([...executor.devices].sort()).toEqual(['10.7.0.1', '10.7.0.2', '10.7.0.3']);

    // Taken out of monitoring again: unscheduled at once.
    await agentClient.addExcludedDevice(agentId, failing!.id);
    await agentClient.updateDeviceMonitoringState(agentId, excluded!.id, { monitoring_state: 'UNMANAGED' });
    expect(agent.stats().associations).toBe(1);
    expect(agent.stats().scheduler!.jobs).toBe(1);
  });
});


describe('migration 5 (device additions)', () => {
  it('upgrades a version 3 store in place: its devices MANAGED and not excluded, its associations as they were', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'driverbox-migrate-5-')), 'v3.db');
    const raw = openDatabase(file);
        for (const m of migrations.filter((m) => m.version <= 3)) await m.up(rawMigration(raw));
    raw.pragma('user_version = 3');
    raw.prepare("INSERT INTO agents (display_name, creation_time, status_last_change) VALUES ('old site', 1000, 1000)").run();
    raw.prepare("INSERT INTO devices (agent_id, display_name, first_seen_on) VALUES (1, 'old device', 1000)").run();
    raw.close();
    const upgraded = await openStore({ path: file, secretKey: 'k' });
    try {
      expect(await getDevice(upgraded, 1, 1)).toMatchObject({ displayName: 'old device', monitoringState: 'MANAGED', excluded: false });
      expect((await listDevices(upgraded, 1, { managedOnly: true, showExcluded: false })).map((d) => d.id)).toEqual([1]);
      expect(await defineDeviceOutlets(upgraded, 1, [{ id: 'a', name: 'A' }])).toHaveLength(1);
    } finally {
      await upgraded.close();
    }
  });
});
