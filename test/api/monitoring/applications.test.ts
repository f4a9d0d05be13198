// Applications through MonitoringClient: Enterprise Plan only, paging, filters, counts.
import { describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringAuthError, MonitoringClient, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { recordApplications } from '../../../host/store/monitoring/applications.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const enterprise = await createAgentRecord(store, { displayName: 'hq', enterprisePlan: true });
const basic = await createAgentRecord(store, { displayName: 'branch' });
const laptop = await createDevice(store, enterprise.id, { displayName: 'laptop', ip: '10.0.0.5' });
const server = await createDevice(store, enterprise.id, { displayName: 'server', ip: '10.0.0.6' });
const basicPc = await createDevice(store, basic.id, { displayName: 'pc', ip: '10.1.0.5' });

const start = api.clock.now;
await recordApplications(store, laptop.id, [
  { applicationId: 'firefox', name: 'Mozilla Firefox', publisher: 'Mozilla', version: '133.0', installDate: Date.UTC(2025, 5, 1) },
  { applicationId: 'vlc', name: 'VLC media player', publisher: 'VideoLAN', version: '3.0.21' },
]);
const serverApps = Array.from({ length: 150 }, (_, i) => ({ applicationId: `pkg-${String(i).padStart(3, '0')}`, name: `package ${i}` }));
await recordApplications(store, server.id, serverApps);
await recordApplications(store, basicPc.id, [{ applicationId: 'x', name: 'x' }]);

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

describe('applications of an Enterprise Plan agent', () => {
  it('lists the agent-level records with device_id as a string, default page 100', async () => {
    const first = await client.listAgentDeviceApplications(enterprise.id);
    expect(first).toHaveLength(100);
    expect(first[0]).toEqual({
      application_id: 'firefox',
      device_id: String(laptop.id),
      first_time_seen: '2026-01-15T12:00:00',
      name: 'Mozilla Firefox',
      publisher: 'Mozilla',
      version: '133.0',
      install_date: '2025-06-01T00:00:00',
      last_update: '2026-01-15T12:00:00',
    });
    const second = await client.listAgentDeviceApplications(enterprise.id, { page_number: 1 });
    expect(second).toHaveLength(52);
    expect(await client.listAgentDeviceApplications(enterprise.id, { page_number: 2 })).toEqual([]);
    expect(await client.countAgentDeviceApplications(enterprise.id)).toBe(152);
    const whole = await client.listAgentDeviceApplications(enterprise.id, { page_size: 1000 });
    expect(whole).toHaveLength(152);
    expect(new Set(whole.map((a) => `${a.device_id}/${a.application_id}`)).size).toBe(152);
  });

  it('filters by name (case-insensitive part) and device_ids, in lists and counts alike', async () => {
    const named = await client.listAgentDeviceApplications(enterprise.id, { name: 'MEDIA' });
    expect(named.map((a) => a.application_id)).toEqual(['vlc']);
    expect(await client.countAgentDeviceApplications(enterprise.id, { name: 'MEDIA' })).toBe(1);
    expect(await client.countAgentDeviceApplications(enterprise.id, { name: '%' })).toBe(0);
    expect(await client.countAgentDeviceApplications(enterprise.id, { device_ids: String(laptop.id) })).toBe(2);
    expect(await client.countAgentDeviceApplications(enterprise.id, { device_ids: `${laptop.id}, ${server.id}` })).toBe(152);
    expect(await client.countAgentDeviceApplications(enterprise.id, { device_ids: String(basicPc.id) })).toBe(0);
    const error = (await failure(client.listAgentDeviceApplications(enterprise.id, { device_ids: 'laptop' }))) as MonitoringValidationError;
    expect(error.status).toBe(422);
    expect(error.detail[0]!.loc).toEqual(['query', 'device_ids']);
  });

  it('lists and counts one device, with paging', async () => {
    const apps = await client.listDeviceApplications(enterprise.id, laptop.id);
    expect(apps.map((a) => a.application_id)).toEqual(['firefox', 'vlc']);
    expect(apps[0]).not.toHaveProperty('device_id');
    expect(await client.countDeviceApplications(enterprise.id, laptop.id)).toBe(2);
    const pageOf = await client.listDeviceApplications(enterprise.id, server.id, { page_size: 7, page_number: 21 });
    expect(pageOf.map((a) => a.application_id)).toEqual(['pkg-147', 'pkg-148', 'pkg-149']);
    expect(await client.countDeviceApplications(enterprise.id, server.id, { name: 'package 1' })).toBe(61); // 1, 10-19, 100-149
  });

  it('keeps first_time_seen across inventories and drops applications no longer installed', async () => {
    api.clock.now = start + 3600_000;
    await recordApplications(store, laptop.id, [{ applicationId: 'firefox', name: 'Mozilla Firefox', version: '134.0' }]);
    const apps = await client.listDeviceApplications(enterprise.id, laptop.id);
    expect(apps).toMatchObject([{ application_id: 'firefox', version: '134.0', first_time_seen: '2026-01-15T12:00:00', last_update: '2026-01-15T13:00:00' }]);
    api.clock.now = start;
  });

  it('checks page_size bounds: under 1 is refused, past 1000 is clamped to 1000', async () => {
    expect(await client.listAgentDeviceApplications(enterprise.id, { page_size: 1001 })).toEqual(await client.listAgentDeviceApplications(enterprise.id, { page_size: 1000 }));
    for (const page_size of [0, -3]) {
      const error = (await failure(client.listAgentDeviceApplications(enterprise.id, { page_size }))) as MonitoringValidationError;
      expect(error.status).toBe(422);
      expect(error.detail[0]!.loc).toEqual(['query', 'page_size']);
    }
    expect(await client.listAgentDeviceApplications(enterprise.id, { page_size: 1 })).toHaveLength(1);
  });
});

describe('applications elsewhere', () => {
  it('answers 403 with a JSON body for an agent not under the Enterprise Plan', async () => {
    // Each call gets its handler at once: one refused before its turn is not an unhandled rejection.
    for (const refused of [
      client.listAgentDeviceApplications(basic.id),
      client.countAgentDeviceApplications(basic.id),
      client.listDeviceApplications(basic.id, basicPc.id),
    ].map((call) => failure(call))) {
      const error = await refused;
      expect(error.status).toBe(403);
    }
    const error = await failure(client.listDeviceApplications(basic.id, basicPc.id));
    expect(error.code).toBe('ENTERPRISE_PLAN_REQUIRED');
    expect(error.message).toMatch(/not under the Enterprise Plan/);
    // HEAD has no body: the status alone tells.
    expect((await failure(client.countDeviceApplications(basic.id, basicPc.id))).status).toBe(403);
  });

  it('answers 404 for an unknown agent or a device of another agent', async () => {
    expect((await failure(client.listAgentDeviceApplications(777))).status).toBe(404);
    expect((await failure(client.listDeviceApplications(enterprise.id, basicPc.id))).status).toBe(404);
    expect((await failure(client.countDeviceApplications(enterprise.id, 5555))).status).toBe(404);
  });
});

describe('authentication', () => {
  it('answers 401 to lists and HEAD counts without a valid key', async () => {
    const stranger = new MonitoringClient({ baseUrl: api.server.url, apiKey: 'wrong' });
    await expect(stranger.listAgentDeviceApplications(enterprise.id)).rejects.toBeInstanceOf(MonitoringAuthError);
    await expect(stranger.countDeviceApplications(enterprise.id, laptop.id)).rejects.toBeInstanceOf(MonitoringAuthError);
    await stranger.close();
  });
});
