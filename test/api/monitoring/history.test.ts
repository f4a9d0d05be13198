// Uptime and status histories through MonitoringClient: events recorded by setAgentStatus /
// setDeviceStatus, windows (defaults, clipping to creation, open downtime), and bad windows.
import { describe, expect, it } from 'vitest';
import { MonitoringNotFoundError, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { computeUptime, formatPercentage, setAgentStatus, setDeviceIpAddresses, setDeviceStatus } from '../../../host/store/fleet/status-history.js';
import { API_TIME_FORMS, formatApiTime, WEEK_MS } from '../../../host/store/db/time.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const T0 = Date.UTC(2026, 0, 10, 0, 0, 0);
const api = await startMonitoringFixture({ start: T0 });
const { client, store } = api;
const MIN = 60_000;
const HOUR = 60 * MIN;
const at = (ms: number) => formatApiTime(T0 + ms);

describe('agent status history and uptime', async () => {
  const agent = await createAgentRecord(store, { displayName: 'branch office' });
  // Down 1:00–1:30 (stopped), link lost 3:00–3:10.
  await setAgentStatus(store, agent.id, 'OFFLINE', { at: T0 + HOUR });
  await setAgentStatus(store, agent.id, 'ONLINE', { at: T0 + 90 * MIN });
  await setAgentStatus(store, agent.id, 'OFFLINE', { at: T0 + 3 * HOUR, cause: 'connection' });
  await setAgentStatus(store, agent.id, 'ONLINE', { at: T0 + 190 * MIN, cause: 'connection' });

  it('records an event only when the status changes, typed by its cause', async () => {
    expect(await setAgentStatus(store, agent.id, 'ONLINE', { at: T0 + 4 * HOUR })).toBe(false);
    expect(await client.getAgentStatusHistory(agent.id, { from: at(0), to: at(4 * HOUR) })).toEqual([
      { timestamp: at(HOUR), type: 'DOWN' },
      { timestamp: at(90 * MIN), type: 'UP' },
      { timestamp: at(3 * HOUR), type: 'CONNECTION_LOST' },
      { timestamp: at(190 * MIN), type: 'CONNECTION_RECOVERED' },
    ]);
    expect(await client.getAgentStatusHistory(agent.id, { from: at(HOUR), to: at(90 * MIN) })).toHaveLength(2);
    expect(await client.getAgentStatusHistory(agent.id, { from: at(91 * MIN), to: at(2 * HOUR) })).toEqual([]);
  });

  it('computes online and total seconds, the percentage and the downtime intervals', async () => {
    expect(await client.getAgentUptime(agent.id, { from: at(0), to: at(4 * HOUR) })).toEqual({
      agent_id: agent.id,
      online_seconds: 4 * 3600 - 2400,
      total_seconds: 4 * 3600,
      uptime: '83.33',
      downtime_intervals: [
        { start: at(HOUR), end: at(90 * MIN) },
        { start: at(3 * HOUR), end: at(190 * MIN) },
      ],
    });
  });

  it('starts a window inside a downtime in the state of the last change before it', async () => {
    expect(await client.getAgentUptime(agent.id, { from: at(80 * MIN), to: at(100 * MIN) })).toMatchObject({
      online_seconds: 600,
      total_seconds: 1200,
      uptime: '50.00',
      downtime_intervals: [{ start: at(80 * MIN), end: at(90 * MIN) }],
    });
  });

  it('ends an open downtime at the window end', async () => {
    const down = await createAgentRecord(store, { displayName: 'down now' });
    await setAgentStatus(store, down.id, 'OFFLINE', { at: T0 + 2 * HOUR });
    expect(await client.getAgentUptime(down.id, { from: at(0), to: at(4 * HOUR) })).toMatchObject({
      online_seconds: 7200,
      total_seconds: 14400,
      uptime: '50.00',
      downtime_intervals: [{ start: at(2 * HOUR), end: at(4 * HOUR) }],
    });
  });

  it('does not count time before the agent existed, and answers 0.00 for a window before it', async () => {
    api.clock.now = T0 + 2 * 24 * HOUR;
    const late = await createAgentRecord(store, { displayName: 'late' });
    api.clock.now = T0 + 3 * 24 * HOUR;
    expect(await client.getAgentUptime(late.id, { from: at(0), to: at(3 * 24 * HOUR) })).toMatchObject({
      online_seconds: 24 * 3600,
      total_seconds: 24 * 3600,
      uptime: '100.00',
      downtime_intervals: [],
    });
    expect(await client.getAgentUptime(late.id, { from: at(0), to: at(HOUR) })).toEqual({
      agent_id: late.id,
      online_seconds: 0,
      total_seconds: 0,
      uptime: '0.00',
      downtime_intervals: [],
    });
  });

  it('defaults to the week before now', async () => {
    api.clock.now = T0 + 10 * 24 * HOUR;
    const defaults = await client.getAgentUptime(agent.id);
    const explicit = await client.getAgentUptime(agent.id, { from: formatApiTime(api.clock.now - WEEK_MS), to: formatApiTime(api.clock.now) });
    expect(defaults).toEqual(explicit);
    // The week back starts after the downtimes of day one.
    expect(defaults).toMatchObject({ total_seconds: 7 * 24 * 3600, uptime: '100.00', downtime_intervals: [] });
    expect(await client.getAgentStatusHistory(agent.id)).toEqual([]);
    expect(await client.getAgentStatusHistory(agent.id, { to: at(4 * HOUR) })).toHaveLength(4);
  });

  it('lists the uptime of every agent with API access', async () => {
    const locked = await createAgentRecord(store, { displayName: 'locked', apiEnabled: false });
    const all = await client.getAgentListUptime({ from: at(0), to: at(4 * HOUR) });
    expect(all.map((u) => u.agent_id)).toContain(agent.id);
    expect(all.map((u) => u.agent_id)).not.toContain(locked.id);
    expect(all.find((u) => u.agent_id === agent.id)).toEqual(await client.getAgentUptime(agent.id, { from: at(0), to: at(4 * HOUR) }));
  });

  it('refuses an impossible date or offset and from after to with 422, and unknown agents with 404', async () => {
    for (const query of [{ from: '2026-01-10T00:00:00+24:00' }, { to: '2026-02-30T00:00:00' }, { from: at(2 * HOUR), to: at(HOUR) }]) {
      const error = await client.getAgentUptime(agent.id, query).catch((e: unknown) => e);
      expect(error, JSON.stringify(query)).toBeInstanceOf(MonitoringValidationError);
      expect((error as MonitoringValidationError).detail[0]?.loc[0]).toBe('query');
    }
    const history = await client.getAgentStatusHistory(agent.id, { from: 'yesterday' }).catch((e: unknown) => e);
    expect((history as MonitoringValidationError).detail).toEqual([
      {
        loc: ['query', 'from'],
        msg: `"yesterday" is not a date-time: accepted forms are ${API_TIME_FORMS}`,
        type: 'value_error.datetime',
      },
    ]);
    await expect(client.getAgentUptime(4242)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getAgentStatusHistory(4242)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getAgentListUptime({ from: 'x' })).rejects.toBeInstanceOf(MonitoringValidationError);
  });
});

describe('device status history and uptime', () => {
  it('lists CREATED, UP / DOWN and IP_CHANGE events; OFFLINE and DOWN both count as down', async () => {
    api.clock.now = T0;
    const agent = await createAgentRecord(store, { displayName: 'devices site' });
    const device = await createDevice(store, agent.id, { displayName: 'tv', ip: '10.0.0.5' });
    await setDeviceStatus(store, device.id, 'OFFLINE', { at: T0 + HOUR });
    expect(await setDeviceStatus(store, device.id, 'DOWN', { at: T0 + 70 * MIN })).toBe(true);
    await setDeviceStatus(store, device.id, 'ONLINE', { at: T0 + 2 * HOUR });
    await setDeviceIpAddresses(store, device.id, ['10.0.0.6'], { at: T0 + 3 * HOUR });
    expect(await setDeviceIpAddresses(store, device.id, ['10.0.0.6'], { at: T0 + 3 * HOUR })).toBe(false);
    const window = { from: at(0), to: at(4 * HOUR) };
    expect(await client.getDeviceStatusHistory(agent.id, device.id, window)).toEqual([
      { timestamp: at(0), type: 'CREATED' },
      { timestamp: at(HOUR), type: 'DOWN' },
      { timestamp: at(2 * HOUR), type: 'UP' },
      { timestamp: at(3 * HOUR), type: 'IP_CHANGE', details: { new_ip: ['10.0.0.6'], old_ip: ['10.0.0.5'] } },
    ]);
    expect(await client.getDeviceUptime(agent.id, device.id, window)).toEqual({
      agent_uptime: '100.00',
      online_seconds: 3 * 3600,
      total_seconds: 4 * 3600,
      uptime: '75.00',
      downtime_intervals: [{ start: at(HOUR), end: at(2 * HOUR) }],
    });
    expect((await client.getDevice(agent.id, device.id)).ip_addresses).toEqual(['10.0.0.6']);
  });

  it('treats a device created DOWN as down until its first UP, and gives the agent uptime of the same window', async () => {
    api.clock.now = T0;
    const agent = await createAgentRecord(store, { displayName: 'flaky site' });
    await setAgentStatus(store, agent.id, 'OFFLINE', { at: T0 + 3 * HOUR });
    const device = await createDevice(store, agent.id, { displayName: 'ups', ip: '10.0.0.9', status: 'DOWN' });
    await setDeviceStatus(store, device.id, 'ONLINE', { at: T0 + HOUR });
    expect(await client.getDeviceUptime(agent.id, device.id, { from: at(0), to: at(4 * HOUR) })).toMatchObject({
      agent_uptime: '75.00',
      online_seconds: 3 * 3600,
      uptime: '75.00',
      downtime_intervals: [{ start: at(0), end: at(HOUR) }],
    });
    api.clock.now = T0 + 5 * HOUR;
    expect(await client.getDeviceUptime(agent.id, device.id)).toMatchObject({ total_seconds: 5 * 3600, online_seconds: 4 * 3600, uptime: '80.00' });
  });

  it('answers 404 for a device of another agent and 422 for a bad window', async () => {
    const a = await createAgentRecord(store, { displayName: 'a' });
    const b = await createAgentRecord(store, { displayName: 'b' });
    const device = await createDevice(store, b.id, { displayName: 'bs', ip: '10.0.0.1' });
    await expect(client.getDeviceStatusHistory(a.id, device.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getDeviceUptime(a.id, device.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    await expect(client.getDeviceUptime(b.id, device.id, { to: '2026-01-10T00:00:00+01:60' })).rejects.toBeInstanceOf(MonitoringValidationError);
  });
});

describe('the uptime arithmetic', () => {
  it('rounds the percentage down so that any downtime stays under 100.00', () => {
    expect(formatPercentage(999_999, 1_000_000)).toBe('99.99');
    expect(formatPercentage(1, 3)).toBe('33.33');
    expect(formatPercentage(2, 3)).toBe('66.66');
    expect(formatPercentage(5, 5)).toBe('100.00');
    expect(formatPercentage(0, 0)).toBe('0.00');
  });

  it('ignores repeated states, and lets changes before the clipped start set the starting state', () => {
    const u = computeUptime(
      true,
      [
        { timestamp: 500, up: false },
        { timestamp: 1500, up: false },
        { timestamp: 2000, up: true },
        { timestamp: 2500, up: true },
      ],
      { from: 0, to: 4000 },
      1000,
    );
    expect(u).toEqual({ onlineSeconds: 2, totalSeconds: 3, uptime: '66.66', downtimeIntervals: [{ start: 1000, end: 2000 }] });
  });
});
