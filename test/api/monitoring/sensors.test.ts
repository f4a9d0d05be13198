// SNMP/TCP SENSORS through MonitoringClient: SNMP sensors and their samples, triggers and
// alerts, TCP sensors probed for real on loopback, and sensor usage against the limit.
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringAuthError, MonitoringClient, MonitoringNotFoundError, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { setAgentLimits } from '../../../host/store/monitoring/monitoring-limits.js';
import { deviceRtdHistory } from '../../../host/store/monitoring/rtd-speed.js';
import { recordSnmpSample } from '../../../host/store/monitoring/sensors.js';
import { startMonitoringFixture } from '../../helpers/monitoring.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const agent = await createAgentRecord(store, { displayName: 'sensor site' });
const other = await createAgentRecord(store, { displayName: 'other site' });
const device = await createDevice(store, agent.id, { displayName: 'switch', ip: '127.0.0.1' });
const device2 = await createDevice(store, agent.id, { displayName: 'printer', ip: '127.0.0.1' });
const foreign = await createDevice(store, other.id, { displayName: 'elsewhere', ip: '127.0.0.1' });

/** A TCP listener on loopback; its port is UP while it listens. */
async function listener(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const { server, port } = await listener();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function expectStatus(promise: Promise<unknown>, status: number, message?: RegExp): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  expect(error.status).toBe(status);
  if (message) expect(error.message).toMatch(message);
  return error;
}

describe('SNMP sensors', () => {
  it('creates, lists per device and per agent, and deletes', async () => {
    await client.createEyeSNMP(agent.id, device.id, { name: 'uptime', oid: '1.3.6.1.2.1.1.3.0', category: 'OTHER', value_type: 'NUMERIC' });
    await client.createEyeSNMP(agent.id, device2.id, { name: 'toner', oid: '.1.3.6.1.2.1.43.11.1.1.9.1.1', category: 'CONSUMABLE', value_type: 'STRING' });
    const eyes = await client.listEyesSNMP(agent.id, device.id);
    expect(eyes).toEqual([
      { id: expect.any(Number), device_id: device.id, name: 'uptime', oid: '1.3.6.1.2.1.1.3.0', category: 'OTHER', value_type: 'NUMERIC', last_update: null, latest_value: null },
    ]);
    const all = await client.listAgentEyesSNMP(agent.id);
    expect(all.map((e) => [e.device_id, e.name])).toEqual([[device.id, 'uptime'], [device2.id, 'toner']]);
    expect(all[0]).not.toHaveProperty('latest_value');
    expect(await client.listAgentEyesSNMP(other.id)).toEqual([]);

    await client.deleteEyeSNMP(agent.id, device2.id, all[1]!.id);
    expect(await client.listEyesSNMP(agent.id, device2.id)).toEqual([]);
    await expectStatus(client.deleteEyeSNMP(agent.id, device2.id, all[1]!.id), 404, /SNMP sensor \d+ not found/);
  });

  it('shows recorded samples as the latest value and in the history window', async () => {
    const [eye] = await client.listEyesSNMP(agent.id, device.id);
    const t0 = api.clock.now;
    await recordSnmpSample(store, eye!.id, { value: 100, timestamp: t0 - 8 * 24 * 3600_000 }); // outside the default week
    await recordSnmpSample(store, eye!.id, { value: '250', timestamp: t0 - 3600_000 });
    await recordSnmpSample(store, eye!.id, { value: 300, timestamp: t0 - 60_000 });
    await expect(async () => await recordSnmpSample(store, eye!.id, { value: 'high' })).rejects.toThrow(/NUMERIC; "high" is not a number/);

    const [latest] = await client.listEyesSNMP(agent.id, device.id);
    expect(latest).toMatchObject({ latest_value: '300', last_update: '2026-01-15T11:59:00' });
    const week = await client.getEyesSNMPHistory(agent.id, device.id, eye!.id);
    expect(week).toEqual([
      { timestamp: '2026-01-15T11:00:00', value: '250' },
      { timestamp: '2026-01-15T11:59:00', value: '300' },
    ]);
    const all = await client.getEyesSNMPHistory(agent.id, device.id, eye!.id, { from: '2026-01-01T00:00:00', to: '2026-01-15T11:30:00' });
    expect(all.map((s) => s.value)).toEqual(['100', '250']);
    expect(await client.getEyesSNMPHistory(agent.id, device.id, eye!.id, { from: '2026-01-01T01:00:00+01:00', to: '2026-01-15T11:30:00.000Z' })).toEqual(all);
    const bad = (await expectStatus(client.getEyesSNMPHistory(agent.id, device.id, eye!.id, { from: '2026-01-01T00:00:00Z+01' }), 422)) as MonitoringValidationError;
    expect(bad.detail[0]!.loc).toEqual(['query', 'from']);
  });

  it('refuses bad bodies with 422 naming the field, and unknown paths with 404', async () => {
    const bad = (await expectStatus(
      client.createEyeSNMP(agent.id, device.id, { name: 'x', oid: 'sysUpTime', category: 'OTHER', value_type: 'NUMERIC' }),
      422,
    )) as MonitoringValidationError;
    expect(bad.detail.map((d) => d.loc)).toEqual([['body', 'oid']]);
    const badEnum = (await expectStatus(
      client.createEyeSNMP(agent.id, device.id, { name: 'x', oid: '1.3.6', category: 'FAN' as never, value_type: 'NUMERIC' }),
      422,
    )) as MonitoringValidationError;
    expect(badEnum.detail[0]).toMatchObject({ loc: ['body', 'category'], msg: expect.stringContaining('TEMPERATURE') });
    await expectStatus(client.listEyesSNMP(agent.id, foreign.id), 404, /device \d+ not found/);
    await expectStatus(client.listEyesSNMP(9999, device.id), 404, /agent 9999 not found/);
    await expectStatus(client.listAgentEyesTCP(9999), 404);
  });
});

describe('SNMP triggers', () => {
  it('lists the functions for the sensor value type, with 2 = is greater than (one operand)', async () => {
    const [eye] = await client.listEyesSNMP(agent.id, device.id);
    const functions = await client.listEyesSNMPTriggerFunction(agent.id, device.id, eye!.id);
    expect(functions).toContainEqual({ id: 2, name: 'is greater than', cardinality: 1, value_types: 'NUMERIC' });
    expect(functions.every((f) => f.value_types === 'NUMERIC')).toBe(true);
  });

  it('creates triggers checked against the catalogue, switches alerts on and off, deletes', async () => {
    const [eye] = await client.listEyesSNMP(agent.id, device.id);
    const path = [agent.id, device.id, eye!.id] as const;
    await client.createEyeSNMPTrigger(...path, { name: 'too long up', function_id: 2, operands: ['1000'] });
    await expectStatus(client.createEyeSNMPTrigger(...path, { name: 'x', function_id: 99, operands: ['1'] }), 422, /function_id: 99 is not a trigger function/);
    await expectStatus(client.createEyeSNMPTrigger(...path, { name: 'x', function_id: 4, operands: ['1'] }), 422, /takes 2 operand\(s\), 1 given/);
    await expectStatus(client.createEyeSNMPTrigger(...path, { name: 'x', function_id: 2, operands: ['lots'] }), 422, /operands.0: "lots" is not a number/);
    await expectStatus(client.createEyeSNMPTrigger(...path, { name: 'x', function_id: 8, operands: ['a'] }), 422, /applies to STRING sensors/);

    const [trigger] = await client.listEyesSNMPTrigger(...path);
    expect(trigger).toEqual({
      id: expect.any(Number),
      name: 'too long up',
      function_id: 2,
      operands: ['1000'],
      creation_time: '2026-01-15T12:00:00',
      alert: { email: false, mobile: false },
    });
    await client.createEyeSNMPTriggerAlert(...path, trigger!.id, 'email');
    await expectStatus(client.createEyeSNMPTriggerAlert(...path, trigger!.id, 'email'), 409, /already on/);
    expect((await client.listEyesSNMPTrigger(...path))[0]!.alert).toEqual({ email: true, mobile: false });
    await expectStatus(client.createEyeSNMPTriggerAlert(...path, trigger!.id, 'sms' as never), 422);
    await expectStatus(client.deleteEyeSNMPTriggerAlert(...path, trigger!.id, 'mobile'), 404, /mobile alert/);
    await client.deleteEyeSNMPTriggerAlert(...path, trigger!.id, 'email');
    expect((await client.listEyesSNMPTrigger(...path))[0]!.alert).toEqual({ email: false, mobile: false });

    await client.deleteEyeSNMPTrigger(...path, trigger!.id);
    expect(await client.listEyesSNMPTrigger(...path)).toEqual([]);
    await expectStatus(client.deleteEyeSNMPTrigger(...path, trigger!.id), 404, /SNMP trigger/);
  });
});

describe('TCP sensors', () => {
  it('probes a new sensor at creation: UP on a listening port, DOWN on a closed one, with RTD samples', async () => {
    const up = await listener();
    servers.push(up.server);
    const down = await closedPort();
    await client.createEyeTCP(agent.id, device2.id, { port: up.port });
    await client.createEyeTCP(agent.id, device2.id, { port: down });
    const eyes = await client.listEyesTCP(agent.id, device2.id);
    expect(eyes).toEqual([
      { id: expect.any(Number), device_id: device2.id, port: up.port, status: 'UP', last_update: '2026-01-15T12:00:00' },
      { id: expect.any(Number), device_id: device2.id, port: down, status: 'DOWN', last_update: '2026-01-15T12:00:00' },
    ]);
    expect((await client.listAgentEyesTCP(agent.id)).map((e) => e.id)).toEqual(eyes.map((e) => e.id));
    // Both probes got an answer (an accept, a refusal): two measured round trips, none lost.
    const rtd = await deviceRtdHistory(store, device2.id, 0, api.clock.now);
    expect(rtd.map((s) => [s.sentPacketCount, s.lostPacketCount])).toEqual([[1, 0], [1, 0]]);
    expect(rtd.every((s) => s.medianMs !== null && s.medianMs >= 0)).toBe(true);

    await expectStatus(client.createEyeTCP(agent.id, device2.id, { port: up.port }), 409, /already has a TCP sensor on port/);
    await expectStatus(client.createEyeTCP(agent.id, device2.id, { port: 70000 }), 422);
    await client.deleteEyeTCP(agent.id, device2.id, eyes[1]!.id);
    await expectStatus(client.deleteEyeTCP(agent.id, device2.id, eyes[1]!.id), 404, /TCP sensor/);
  });

  it('dials through the device port map', async () => {
    const real = await listener();
    servers.push(real.server);
    const mapped = await createDevice(store, agent.id, { displayName: 'mapped', hostName: 'localhost', portMap: { 80: real.port } });
    await client.createEyeTCP(agent.id, mapped.id, { port: 80 });
    expect((await client.listEyesTCP(agent.id, mapped.id))[0]).toMatchObject({ port: 80, status: 'UP' });
  });
});

describe('sensor usage', () => {
  it('counts SNMP and TCP sensors and refuses a sensor past the limit with 409', async () => {
    const usage = await client.eyesUsageInfo(agent.id);
    expect(usage).toEqual({ limit: 50, usage: { snmp: 1, tcp: 2, total: 3 } });
    await setAgentLimits(store, agent.id, { sensorLimit: 3 });
    await expectStatus(
      client.createEyeSNMP(agent.id, device.id, { name: 'cpu', oid: '1.3.6.1.4.1.9.2.1.58.0', category: 'CPU', value_type: 'NUMERIC' }),
      409,
      /already has 3 sensors .* limit is 3/,
    );
    await expectStatus(client.createEyeTCP(agent.id, device.id, { port: 22 }), 409, /limit is 3/);
    expect(await client.eyesUsageInfo(agent.id)).toEqual({ limit: 3, usage: { snmp: 1, tcp: 2, total: 3 } });
    expect(await client.eyesUsageInfo(other.id)).toEqual({ limit: 50, usage: { snmp: 0, tcp: 0, total: 0 } });
    await expect(client.eyesUsageInfo(424242)).rejects.toBeInstanceOf(MonitoringNotFoundError);
  });
});

describe('authentication', () => {
  it('answers 401 to every sensor operation without a valid key, before looking anything up', async () => {
    const stranger = new MonitoringClient({ baseUrl: api.server.url, apiKey: 'not-a-key' });
    await expect(stranger.eyesUsageInfo(agent.id)).rejects.toBeInstanceOf(MonitoringAuthError);
    await expect(stranger.createEyeTCP(agent.id, device.id, { port: 1 })).rejects.toBeInstanceOf(MonitoringAuthError);
    await expect(stranger.listAgentEyesSNMP(9999)).rejects.toBeInstanceOf(MonitoringAuthError);
    await stranger.close();
    expect((await client.listAgentEyesTCP(agent.id)).map((e) => e.port)).not.toContain(1);
  });
});
