// TCP probes and the monitor prober against real listeners on loopback.
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createMonitorProber, dialTarget, probeDevicePort, probeTcp, summariseRoundTrips } from '../../host/monitor/index.js';
import { createAgentRecord } from '../../host/store/fleet/agents.js';
import { createDevice } from '../../host/store/fleet/devices.js';
import { openStore } from '../../host/store/index.js';
import { deviceRtdHistory } from '../../host/store/monitoring/rtd-speed.js';
import { createTcpSensor, deleteTcpSensor, getTcpSensor } from '../../host/store/monitoring/sensors.js';
import { openTestStore } from '../helpers/store.js';

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { server, port: (server.address() as { port: number }).port };
}

async function closedPort(): Promise<number> {
  const { server, port } = await listen();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('probeTcp', () => {
  it('is UP with a measured round trip when the port accepts', async () => {
    const { port } = await listen();
    const result = await probeTcp({ host: '127.0.0.1', port }, 2000);
    expect(result).toMatchObject({ status: 'UP', reason: 'connected', dialled: { host: '127.0.0.1', port } });
    expect(result.rttMs).toBeGreaterThanOrEqual(0);
  });

  it('is DOWN (refused) on a closed port, the refusal still timed', async () => {
    const port = await closedPort();
    const result = await probeTcp({ host: '127.0.0.1', port }, 2000);
    expect(result).toMatchObject({ status: 'DOWN', reason: 'refused' });
    expect(result.rttMs).toBeGreaterThanOrEqual(0);
  });

  it('resolves host names (localhost) and dials through the port map', async () => {
    const { port } = await listen();
    expect(dialTarget({ ip: null, hostName: 'localhost', portMap: { 80: port } }, 80)).toEqual({ host: 'localhost', port });
    expect(dialTarget({ ip: '10.0.0.1', hostName: 'x', portMap: {} }, 22)).toEqual({ host: '10.0.0.1', port: 22 });
    const result = await probeDevicePort({ ip: null, hostName: 'localhost', portMap: { 80: port } }, 80);
    expect(result.status).toBe('UP');
  });

  it('is DOWN without sending anything for a device with no address', async () => {
    expect(await probeDevicePort({ ip: null, hostName: null, portMap: {} }, 80)).toEqual({ status: 'DOWN', reason: 'no-address', rttMs: null, dialled: null });
  });
});

describe('summariseRoundTrips', () => {
  it('gives min, max, median, sent and lost', () => {
    expect(summariseRoundTrips([3, null, 1, 2])).toEqual({ minMs: 1, maxMs: 3, medianMs: 2, sentPacketCount: 4, lostPacketCount: 1 });
    expect(summariseRoundTrips([4, 1])).toMatchObject({ medianMs: 2.5 });
    expect(summariseRoundTrips([null, null])).toEqual({ minMs: null, maxMs: null, medianMs: null, sentPacketCount: 2, lostPacketCount: 2 });
  });
});

describe('the monitor prober', async () => {
  const clock = { now: Date.UTC(2026, 0, 15, 12, 0, 0) };
  const store = await openTestStore({ clock: () => clock.now });
  afterAll(async () => await store.close());
  const agent = await createAgentRecord(store, { displayName: 'probed' });

  it('probeNow writes each sensor status and one RTD sample per device', async () => {
    const open = await listen();
    const closed = await closedPort();
    const device = await createDevice(store, agent.id, { displayName: 'web', ip: '127.0.0.1' });
    const empty = await createDevice(store, agent.id, { displayName: 'no address' });
    // Created with the opposite of the truth, so the probe must change them.
    const upSensor = await createTcpSensor(store, device.id, { port: open.port, status: 'DOWN' });
    const downSensor = await createTcpSensor(store, device.id, { port: closed, status: 'UP' });
    const lonely = await createTcpSensor(store, empty.id, { port: 80, status: 'UP' });

    clock.now += 60_000;
    const prober = createMonitorProber(store, { timeoutMs: 2000 });
    const probes = await prober.probeNow();
    expect(probes.map((p) => [p.sensorId, p.status])).toEqual([
      [upSensor.id, 'UP'],
      [downSensor.id, 'DOWN'],
      [lonely.id, 'DOWN'],
    ]);
    expect(await getTcpSensor(store, device.id, upSensor.id)).toMatchObject({ status: 'UP', lastUpdate: clock.now });
    expect(await getTcpSensor(store, device.id, downSensor.id)).toMatchObject({ status: 'DOWN', lastUpdate: clock.now });
    expect(await getTcpSensor(store, empty.id, lonely.id)).toMatchObject({ status: 'DOWN' });
    const rtd = await deviceRtdHistory(store, device.id, 0, clock.now);
    expect(rtd).toHaveLength(1);
    expect(rtd[0]).toMatchObject({ timestamp: clock.now, sentPacketCount: 2, lostPacketCount: 0 });
    expect(rtd[0]!.minMs! <= rtd[0]!.medianMs! && rtd[0]!.medianMs! <= rtd[0]!.maxMs!).toBe(true);
    expect(await deviceRtdHistory(store, empty.id, 0, clock.now)).toEqual([]); // nothing was sent

    // One sensor only; a deleted one is skipped.
    expect((await prober.probeNow(upSensor.id)).map((p) => p.sensorId)).toEqual([upSensor.id]);
    await deleteTcpSensor(store, empty.id, lonely.id);
    expect(await prober.probeNow(lonely.id)).toEqual([]);
  });

  it('follows a port going down between scheduled rounds, and stops', async () => {
    const { server, port } = await listen();
    const device = await createDevice(store, agent.id, { displayName: 'flaky', ip: '127.0.0.1' });
    const sensor = await createTcpSensor(store, device.id, { port, status: 'DOWN' });
    const prober = createMonitorProber(store, { intervalMs: 50, timeoutMs: 2000 });
    expect(prober.running).toBe(false);
    prober.start();
    expect(prober.running).toBe(true);
    await expect.poll(async () => (await getTcpSensor(store, device.id, sensor.id))!.status, { timeout: 5000 }).toBe('UP');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect.poll(async () => (await getTcpSensor(store, device.id, sensor.id))!.status, { timeout: 5000 }).toBe('DOWN');
    await prober.stop();
    expect(prober.running).toBe(false);
    const samples = (await deviceRtdHistory(store, device.id, 0, clock.now)).length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await deviceRtdHistory(store, device.id, 0, clock.now)).toHaveLength(samples); // no round after stop
  });

  it('refuses a zero interval or timeout', () => {
    expect(() => createMonitorProber(store, { intervalMs: 0 })).toThrow(/intervalMs must be above 0/);
    expect(() => createMonitorProber(store, { timeoutMs: -1 })).toThrow(/timeoutMs must be above 0/);
  });
});
