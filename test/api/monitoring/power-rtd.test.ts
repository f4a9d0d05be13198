// Power actions, RTD statistics and history, and speed-test history through MonitoringClient.
import { describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringAuthError, MonitoringClient, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { listPowerActions, setPowerAvailability } from '../../../host/store/monitoring/power.js';
import { recordRtdSample, recordSpeedSample } from '../../../host/store/monitoring/rtd-speed.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const agent = await createAgentRecord(store, { displayName: 'plant' });
const other = await createAgentRecord(store, { displayName: 'elsewhere' });
const pump = await createDevice(store, agent.id, { displayName: 'pump controller', ip: '10.0.0.9' });
const camera = await createDevice(store, agent.id, { displayName: 'camera', ip: '10.0.0.10' });
const quiet = await createDevice(store, agent.id, { displayName: 'quiet', ip: '10.0.0.11' });
const now = api.clock.now;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

describe('power actions', () => {
  it('offers all four actions by default, and what setPowerAvailability leaves', async () => {
    expect(await client.getDevicePowerActions(agent.id, pump.id)).toEqual({ on: true, off: true, cycle: true, software_reboot: true });
    await setPowerAvailability(store, camera.id, { cycle: false, softwareReboot: false });
    expect(await client.getDevicePowerActions(agent.id, camera.id)).toEqual({ on: true, off: true, cycle: false, software_reboot: false });
  });

  it('records each action with its activity-log entry (software-reboot → device_reboot)', async () => {
    for (const field of ['off', 'on', 'cycle', 'software-reboot'] as const) await client.powerActionOnDevice(agent.id, pump.id, field);
    expect((await listPowerActions(store, pump.id)).map((a) => [a.action, a.user])).toEqual([
      ['off', 'api'],
      ['on', 'api'],
      ['cycle', 'api'],
      ['software-reboot', 'api'],
    ]);
    const log = await store.statement('SELECT agent_id, device_id, type, "user" FROM activity_log ORDER BY id').all();
    expect(log).toEqual(
      ['power_off', 'power_on', 'power_cycle', 'device_reboot'].map((type) => ({ agent_id: agent.id, device_id: pump.id, type, user: 'api' })),
    );
  });

  it('refuses an action the device does not offer (409), an unknown one (422), a foreign device (404)', async () => {
    const refused = await failure(client.powerActionOnDevice(agent.id, camera.id, 'cycle'));
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/power action cycle is not available on device/);
    expect(await listPowerActions(store, camera.id)).toEqual([]);
    const bad = (await failure(client.powerActionOnDevice(agent.id, camera.id, 'explode' as never))) as MonitoringValidationError;
    expect(bad.status).toBe(422);
    expect(bad.detail[0]!.loc).toEqual(['path', 'field']);
    expect((await failure(client.powerActionOnDevice(other.id, pump.id, 'on'))).status).toBe(404);
    expect((await failure(client.getDevicePowerActions(agent.id, 4242))).status).toBe(404);
  });
});

describe('RTD', async () => {
  // pump: an old sample outside the week, three inside; camera: one sample, all lost.
  await recordRtdSample(store, pump.id, { timestamp: now - 9 * DAY, minMs: 100, maxMs: 100, medianMs: 100, sentPacketCount: 1, lostPacketCount: 0 });
  await recordRtdSample(store, pump.id, { timestamp: now - 2 * DAY, minMs: 1, maxMs: 3, medianMs: 2, sentPacketCount: 3, lostPacketCount: 0 });
  await recordRtdSample(store, pump.id, { timestamp: now - DAY, minMs: 2, maxMs: 5, medianMs: 4, sentPacketCount: 3, lostPacketCount: 0 });
  await recordRtdSample(store, pump.id, { timestamp: now - HOUR, minMs: 1.5, maxMs: 1.5, medianMs: 1.5, sentPacketCount: 2, lostPacketCount: 1 });
  await recordRtdSample(store, camera.id, { timestamp: now - HOUR, minMs: null, maxMs: null, medianMs: null, sentPacketCount: 2, lostPacketCount: 2 });

  it('gives per device the week averages and the latest sample; devices without samples are left out', async () => {
    const stats = await client.getAgentRTDStats(agent.id);
    expect(stats).toEqual([
      {
        device_id: pump.id,
        timestamp: '2026-01-15T11:00:00',
        avg_min: '1.5',
        avg_max: '3.167',
        avg_median: '2.5',
        latest_median: '1.5',
        latest_sent_packet_count: 2,
        latest_lost_packet_count: 1,
      },
      {
        device_id: camera.id,
        timestamp: '2026-01-15T11:00:00',
        latest_sent_packet_count: 2,
        latest_lost_packet_count: 2,
      },
    ]);
    expect(stats.map((s) => s.device_id)).not.toContain(quiet.id);
    expect(await client.getAgentRTDStats(other.id)).toEqual([]);
  });

  it('answers the history of the default week, or of from / to', async () => {
    const week = await client.getDeviceRTDHistory(agent.id, pump.id);
    expect(week.map((s) => s.timestamp)).toEqual(['2026-01-13T12:00:00', '2026-01-14T12:00:00', '2026-01-15T11:00:00']);
    expect(week[0]).toEqual({ timestamp: '2026-01-13T12:00:00', min: '1', max: '3', median: '2', sent_packet_count: 3, lost_packet_count: 0 });
    const old = await client.getDeviceRTDHistory(agent.id, pump.id, { from: '2026-01-01T00:00:00', to: '2026-01-10T00:00:00' });
    expect(old.map((s) => s.median)).toEqual(['100']);
    // to alone: from defaults to one week before it.
    const before = await client.getDeviceRTDHistory(agent.id, pump.id, { to: '2026-01-13T12:00:00' });
    expect(before.map((s) => s.median)).toEqual(['100', '2']);
    expect(await client.getDeviceRTDHistory(agent.id, quiet.id)).toEqual([]);
  });

  it('refuses bad windows with 422 and unknown devices with 404', async () => {
    const zone = (await failure(client.getDeviceRTDHistory(agent.id, pump.id, { to: '2026-01-13T12:00:00 UTC' }))) as MonitoringValidationError;
    expect(zone.status).toBe(422);
    expect(zone.detail[0]!.loc).toEqual(['query', 'to']);
    const reversed = (await failure(client.getDeviceRTDHistory(agent.id, pump.id, { from: '2026-01-14T00:00:00', to: '2026-01-13T00:00:00' }))) as MonitoringValidationError;
    expect(reversed.message).toMatch(/is after to/);
    expect((await failure(client.getDeviceRTDHistory(other.id, pump.id))).status).toBe(404);
    expect((await failure(client.getAgentRTDStats(999))).status).toBe(404);
  });
});

describe('speed tests', () => {
  it('answers [download, upload] samples of the window', async () => {
    await recordSpeedSample(store, agent.id, { timestamp: now - 8 * DAY, downloadBps: 1, uploadBps: 1 });
    await recordSpeedSample(store, agent.id, { timestamp: now - 2 * HOUR, downloadBps: 94_000_000, uploadBps: 12_500_000 });
    await recordSpeedSample(store, agent.id, { timestamp: now - HOUR, downloadBps: 91_000_000, uploadBps: 11_000_000 });
    await expect(async () => await recordSpeedSample(store, agent.id, { downloadBps: -5, uploadBps: 1 })).rejects.toThrow(/downloadBps must be a non-negative integer/);
    expect(await client.getSpeedTestHistory(agent.id)).toEqual([
      { timestamp: '2026-01-15T10:00:00', values: [94_000_000, 12_500_000] },
      { timestamp: '2026-01-15T11:00:00', values: [91_000_000, 11_000_000] },
    ]);
    expect(await client.getSpeedTestHistory(agent.id, { from: '2026-01-15T10:30:00' })).toHaveLength(1);
    expect(await client.getSpeedTestHistory(other.id)).toEqual([]);
    expect((await failure(client.getSpeedTestHistory(agent.id, { from: 'yesterday' }))).status).toBe(422);
    expect((await failure(client.getSpeedTestHistory(12345))).status).toBe(404);
  });
});

describe('authentication', () => {
  it('answers 401 without a valid key and performs no power action', async () => {
    const before = (await listPowerActions(store, quiet.id)).length;
    const stranger = new MonitoringClient({ baseUrl: api.server.url, apiKey: 'wrong' });
    await expect(stranger.powerActionOnDevice(agent.id, quiet.id, 'off')).rejects.toBeInstanceOf(MonitoringAuthError);
    await expect(stranger.getDeviceRTDHistory(agent.id, quiet.id)).rejects.toBeInstanceOf(MonitoringAuthError);
    await stranger.close();
    expect(await listPowerActions(store, quiet.id)).toHaveLength(before);
  });
});
