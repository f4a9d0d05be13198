// Alert profiles and their bindings (reference 1.14.0) through MonitoringClient against a real
// server: the catalogue, binding and unbinding to agents and devices (what is bound is what is
// listed, an empty list when nothing is), each 2xx answer validated against the reference.
import { describe, expect, it } from 'vitest';
import { MonitoringApiError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord, deleteAgent } from '../../../host/store/fleet/agents.js';
import { createAlertProfile } from '../../../host/store/account/alert-profiles.js';
import { createDevice, deleteDevice } from '../../../host/store/fleet/devices.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';
import { expectReferenceBody } from '../../helpers/reference-schema.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const agent = await createAgentRecord(store, { displayName: 'warehouse' });
const other = await createAgentRecord(store, { displayName: 'elsewhere' });
const locked = await createAgentRecord(store, { displayName: 'no api', apiEnabled: false });
const camera = await createDevice(store, agent.id, { displayName: 'camera', ip: '10.1.0.2' });
const sw = await createDevice(store, agent.id, { displayName: 'switch', ip: '10.1.0.3' });
const remote = await createDevice(store, other.id, { displayName: 'remote', ip: '10.2.0.2' });

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

describe('the profiles', () => {
  it('getAlertProfiles2: the built-in catalogue, then profiles the store was given', async () => {
    const builtIn = await client.getAlertProfiles2();
    expect(builtIn.map((p) => [p.id, p.name, p.tag, p.is_enabled])).toEqual([
      [1, 'Agent alerts', 'agent', true],
      [2, 'Device status', 'device', true],
      [3, 'Device discovery and changes', 'device', true],
      [4, 'Device monitors', 'device', true],
    ]);
    expect(builtIn[1]!.events).toEqual(['device_status_down', 'device_status_up']);
    expectReferenceBody('getAlertProfiles2', builtIn);
    // Optional fields the profile lacks are left out, never null.
    await createAlertProfile(store, { name: 'Webhook to on-call', events: ['device_status_down'], isEnabled: false });
    const all = await client.getAlertProfiles2();
    expect(all[4]).toEqual({ id: 5, name: 'Webhook to on-call', events: ['device_status_down'], is_enabled: false });
    expectReferenceBody('getAlertProfiles2', all);
  });

  it("getAlertProfiles (deprecated) answers the same list for the key's user; 404 for another user", async () => {
    const user = await client.getUser();
    const list = await client.getAlertProfiles(user.id!);
    expect(list).toEqual(await client.getAlertProfiles2());
    expectReferenceBody('getAlertProfiles', list);
    const e = await failure(client.getAlertProfiles(2));
    expect(e.body).toEqual({ status: 404, code: 'NOT_FOUND', message: 'user 2 not found' });
  });
});

describe('agent bindings', () => {
  it('an agent with no binding answers an empty list (never null)', async () => {
    const bindings = await client.getAgentAlertProfile(agent.id);
    expect(bindings).toEqual([]);
    expectReferenceBody('getAgentAlertProfile', bindings);
  });

  it('bind answers 204; what is bound is listed by profile id; binding again changes nothing', async () => {
    await expect(client.bindAlertProfileToAgent(3, agent.id)).resolves.toBeUndefined();
    await client.bindAlertProfileToAgent(1, agent.id);
    await client.bindAlertProfileToAgent(1, agent.id);
    const bindings = await client.getAgentAlertProfile(agent.id);
    expect(bindings).toEqual([{ alert_profile_id: 1 }, { alert_profile_id: 3 }]);
    expectReferenceBody('getAgentAlertProfile', bindings);
    expect(await client.getAgentAlertProfile(other.id)).toEqual([]);
  });

  it('unbind answers 204 and the binding is gone; 404 NOT_BOUND when it is not bound', async () => {
    await expect(client.unbindAlertProfileFromAgent(3, agent.id)).resolves.toBeUndefined();
    expect(await client.getAgentAlertProfile(agent.id)).toEqual([{ alert_profile_id: 1 }]);
    const e = await failure(client.unbindAlertProfileFromAgent(3, agent.id));
    expect(e.body).toEqual({ status: 404, code: 'NOT_BOUND', message: `alert profile 3 is not bound to agent ${agent.id}` });
  });

  it('404 for an unknown profile or agent; 403 for an agent without API access; 422 for an id that is not one', async () => {
    const profile = await failure(client.bindAlertProfileToAgent(99, agent.id));
    expect(profile.body).toEqual({ status: 404, code: 'NOT_FOUND', message: 'alert profile 99 not found' });
    expect((await failure(client.bindAlertProfileToAgent(1, 99999))).status).toBe(404);
    expect((await failure(client.getAgentAlertProfile(99999))).status).toBe(404);
    expect((await failure(client.unbindAlertProfileFromAgent(99, agent.id))).status).toBe(404);
    expect((await failure(client.bindAlertProfileToAgent(1, locked.id))).status).toBe(403);
    expect((await failure(client.getAgentAlertProfile(locked.id))).status).toBe(403);
    const bad = await failure(client.bindAlertProfileToAgent('one' as unknown as number, agent.id));
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: Array<{ loc: unknown }> }).detail[0]!.loc).toEqual(['path', 'alert_profile_id']);
  });
});

describe('device bindings', () => {
  it("the agent's devices with no binding answer an empty list (never null)", async () => {
    const bindings = await client.getDevicesAlertProfile(agent.id);
    expect(bindings).toEqual([]);
    expectReferenceBody('getDevicesAlertProfile', bindings);
  });

  it("bind answers 204; the agent's device bindings are listed by device then profile", async () => {
    await client.bindAlertProfileToDevice(4, agent.id, sw.id);
    await client.bindAlertProfileToDevice(2, agent.id, sw.id);
    await client.bindAlertProfileToDevice(2, agent.id, camera.id);
    await client.bindAlertProfileToDevice(2, agent.id, camera.id);
    await client.bindAlertProfileToDevice(2, other.id, remote.id);
    const bindings = await client.getDevicesAlertProfile(agent.id);
    expect(bindings).toEqual([
      { alert_profile_id: 2, device_id: camera.id },
      { alert_profile_id: 2, device_id: sw.id },
      { alert_profile_id: 4, device_id: sw.id },
    ]);
    expectReferenceBody('getDevicesAlertProfile', bindings);
    expect(await client.getDevicesAlertProfile(other.id)).toEqual([{ alert_profile_id: 2, device_id: remote.id }]);
    // A device binding is not an agent binding.
    expect(await client.getAgentAlertProfile(other.id)).toEqual([]);
  });

  it('unbind answers 204 and the binding is gone; 404 NOT_BOUND when it is not bound', async () => {
    await client.unbindAlertProfileFromDevice(4, agent.id, sw.id);
    expect(await client.getDevicesAlertProfile(agent.id)).toEqual([
      { alert_profile_id: 2, device_id: camera.id },
      { alert_profile_id: 2, device_id: sw.id },
    ]);
    const e = await failure(client.unbindAlertProfileFromDevice(4, agent.id, sw.id));
    expect(e.body).toEqual({ status: 404, code: 'NOT_BOUND', message: `alert profile 4 is not bound to device ${sw.id}` });
  });

  it('404 for an unknown profile, device, or a device of another agent', async () => {
    expect((await failure(client.bindAlertProfileToDevice(99, agent.id, sw.id))).status).toBe(404);
    const unknown = await failure(client.bindAlertProfileToDevice(2, agent.id, 99999));
    expect(unknown.body).toEqual({ status: 404, code: 'NOT_FOUND', message: 'device 99999 not found' });
    expect((await failure(client.bindAlertProfileToDevice(2, agent.id, remote.id))).status).toBe(404);
    expect((await failure(client.unbindAlertProfileFromDevice(2, other.id, camera.id))).status).toBe(404);
    expect((await failure(client.getDevicesAlertProfile(99999))).status).toBe(404);
  });

  it("a deleted device's or agent's bindings go with it", async () => {
    await deleteDevice(store, agent.id, camera.id);
    expect(await client.getDevicesAlertProfile(agent.id)).toEqual([{ alert_profile_id: 2, device_id: sw.id }]);
    await deleteAgent(store, agent.id);
    expect(await store.statement('SELECT count(*) AS n FROM alert_profile_agent_bindings').get()).toEqual({ n: 0 });
    expect(await store.statement('SELECT count(*) AS n FROM alert_profile_device_bindings').get()).toEqual({ n: 1 });
  });
});
