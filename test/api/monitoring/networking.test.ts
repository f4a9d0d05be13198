// networking, topology, IP conflicts, camera snapshots, device types, API and sensor usage
// (reference 1.14.0) through MonitoringClient on a real server; every 2xx body is checked
// against the reference's schema.
import { networkInterfaces } from 'node:os';
import { describe, expect, it, vi } from 'vitest';
import { MonitoringApiError, MonitoringClient, MonitoringValidationError, type ApiErrorBody } from '../../../host/api/monitoring/client/index.js';
import { startMonitoringServer } from '../../../host/api/monitoring/server.js';
import { createAgentRecord, ensureLocalAgent } from '../../../host/store/fleet/agents.js';
import { flushApiUsage, USAGE_FLUSH_MS } from '../../../host/store/account/api-usage.js';
import { createAssociation } from '../../../host/store/drivers/associations.js';
import { recordCameraSnapshot } from '../../../host/store/monitoring/camera-snapshots.js';
import { createCustomDriver } from '../../../host/store/drivers/custom-drivers.js';
import { setDeviceType } from '../../../host/store/fleet/device-types.js';
import { createDevice, hideDevice } from '../../../host/store/fleet/devices.js';
import { setAgentLimits } from '../../../host/store/monitoring/monitoring-limits.js';
import { getNetworkSetting, setAgentInterfaces } from '../../../host/store/fleet/networking.js';
import { createSnmpSensor } from '../../../host/store/monitoring/sensors.js';
import { expectReferenceBody } from '../../helpers/reference-schema.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';
import { openTestStore } from '../../helpers/store.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const local = await ensureLocalAgent(store);
const site = await createAgentRecord(store, { displayName: 'site' });
const empty = await createAgentRecord(store, { displayName: 'empty' });
const locked = await createAgentRecord(store, { displayName: 'locked', apiEnabled: false });
// A server of its own for apiUsageInfo, so its counts are only that test's calls.
const own = await startMonitoringFixture({ start: Date.UTC(2026, 2, 1, 12, 0, 0) });

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

async function invalidAt(promise: Promise<unknown>): Promise<{ loc: Array<string | number>; message: string | undefined }> {
  const error = (await failure(promise)) as MonitoringValidationError;
  expect(error.status).toBe(422);
  return { loc: error.detail[0]!.loc, message: (error.body as ApiErrorBody).message };
}

describe('getAgentInterfaces and createRoutedNetwork', () => {
  it("answers this machine's IPv4 interfaces for the local agent, loopback left out", async () => {
    const expected = Object.entries(networkInterfaces()).flatMap(([name, entries]) =>
      (entries ?? []).filter((e) => e.family === 'IPv4' && !e.internal).map((e) => ({ name, address: e.address })),
    );
    const answer = await client.getAgentInterfaces(local.id);
    expectReferenceBody('getAgentInterfaces', answer);
    expect(answer.attached.map((i) => ({ name: i.name, address: i.address }))).toEqual(expected);
    expect(answer.attached.every((i) => i.name !== 'lo' && i.address !== '127.0.0.1')).toBe(true);
    expect(answer.routed).toEqual([]);
  });

  it('answers the interfaces recorded for an agent, filtered by its interfaces policy; none recorded: none', async () => {
    await setAgentInterfaces(store, site.id, [
      { name: 'eth0', address: '192.168.1.2', netmask: 24, macAddress: '00:11:22:33:44:55' },
      { name: 'docker0', address: '172.17.0.1', netmask: 16 },
      { name: 'wlan0' },
    ]);
    const all = await client.getAgentInterfaces(site.id);
    expectReferenceBody('getAgentInterfaces', all);
    expect(all.attached).toEqual([
      { name: 'eth0', address: '192.168.1.2', netmask: 24, mac_address: '00:11:22:33:44:55' },
      { name: 'docker0', address: '172.17.0.1', netmask: 16 },
      { name: 'wlan0' },
    ]);
    await client.setAgentInterfacesPolicy(site.id, { policy: 'deny', rules: ['DOCKER*'] });
    expect((await client.getAgentInterfaces(site.id)).attached.map((i) => i.name)).toEqual(['eth0', 'wlan0']);
    await client.setAgentInterfacesPolicy(site.id, { policy: 'allow', rules: ['eth*', 'wlan0'] });
    expect((await client.getAgentInterfaces(site.id)).attached.map((i) => i.name)).toEqual(['eth0', 'wlan0']);
    await client.setAgentInterfacesPolicy(site.id, { policy: 'allow', rules: [] });
    expect((await client.getAgentInterfaces(site.id)).attached).toEqual([]);
    await client.deleteAgentInterfacesPolicy(site.id);
    expect((await client.getAgentInterfaces(site.id)).attached).toHaveLength(3);
    expect(await client.getAgentInterfaces(empty.id)).toEqual({ attached: [], routed: [] });
  });

  it('adds routed networks (201), listed as routed; a second of the same name or network is 409', async () => {
    await client.createRoutedNetwork(site.id, { name: 'plant floor', address: '10.20.0.0', netmask: 16 });
    await client.createRoutedNetwork(site.id, { name: 'office', address: '192.168.50.0', netmask: 24 });
    const answer = await client.getAgentInterfaces(site.id);
    expectReferenceBody('getAgentInterfaces', answer);
    expect(answer.routed).toEqual([
      { name: 'plant floor', address: '10.20.0.0', netmask: 16 },
      { name: 'office', address: '192.168.50.0', netmask: 24 },
    ]);
    const sameName = await failure(client.createRoutedNetwork(site.id, { name: 'office', address: '192.168.51.0', netmask: 24 }));
    expect([sameName.status, (sameName.body as ApiErrorBody).message]).toEqual([409, `agent ${site.id} already has the routed network "office" (192.168.50.0/24)`]);
    expect((await failure(client.createRoutedNetwork(site.id, { name: 'again', address: '10.20.0.0', netmask: 16 }))).status).toBe(409);
    expect((await client.getAgentInterfaces(site.id)).routed).toHaveLength(2);
  });

  it('refuses a malformed routed network (422, located) and unknown or locked agents', async () => {
    expect(await invalidAt(client.createRoutedNetwork(site.id, { name: 'x', address: '10.0.0.256', netmask: 24 }))).toEqual({
      loc: ['body', 'address'],
      message: 'body.address: "10.0.0.256" is not an IPv4 address in dotted decimal notation',
    });
    expect((await invalidAt(client.createRoutedNetwork(site.id, { name: 'x', address: '10.0.0.0', netmask: 33 }))).loc).toEqual(['body', 'netmask']);
    expect((await invalidAt(client.createRoutedNetwork(site.id, { address: '10.0.0.0', netmask: 8 } as never))).loc).toEqual(['body', 'name']);
    expect((await invalidAt(client.createRoutedNetwork(site.id, { name: '', address: '10.0.0.0', netmask: 8 }))).loc).toEqual(['body', 'name']);
    expect((await failure(client.createRoutedNetwork(4242, { name: 'x', address: '10.0.0.0', netmask: 8 }))).status).toBe(404);
    expect((await failure(client.getAgentInterfaces(4242))).status).toBe(404);
    expect((await failure(client.getAgentInterfaces(locked.id))).status).toBe(403);
  });
});

describe('scan policies', () => {
  it('interfaces policy: the default scans everything; PUT is what GET answers; DELETE restores the default', async () => {
    const agent = await createAgentRecord(store, { displayName: 'policies' });
    const initial = await client.getAgentInterfacesPolicy(agent.id);
    expectReferenceBody('getAgentInterfacesPolicy', initial);
    expect(initial).toEqual({ policy: 'deny', rules: [] });
    await client.setAgentInterfacesPolicy(agent.id, { policy: 'allow', rules: ['eth*', 'tun0'] });
    const put = await client.getAgentInterfacesPolicy(agent.id);
    expectReferenceBody('getAgentInterfacesPolicy', put);
    expect(put).toEqual({ policy: 'allow', rules: ['eth*', 'tun0'] });
    await client.deleteAgentInterfacesPolicy(agent.id);
    expect(await client.getAgentInterfacesPolicy(agent.id)).toEqual({ policy: 'deny', rules: [] });
    expect((await invalidAt(client.setAgentInterfacesPolicy(agent.id, { policy: 'maybe' as never, rules: [] }))).loc).toEqual(['body', 'policy']);
    expect((await invalidAt(client.setAgentInterfacesPolicy(agent.id, { policy: 'deny' } as never))).loc).toEqual(['body', 'rules']);
    expect((await invalidAt(client.setAgentInterfacesPolicy(agent.id, { policy: 'deny', rules: [''] }))).loc).toEqual(['body', 'rules', 0]);
    expect(await client.getAgentInterfacesPolicy(agent.id)).toEqual({ policy: 'deny', rules: [] });
    expect((await failure(client.getAgentInterfacesPolicy(4242))).status).toBe(404);
    expect((await failure(client.deleteAgentInterfacesPolicy(4242))).status).toBe(404);
  });

  it('IP scan policy: private addresses and ranges kept as given; DELETE empties it', async () => {
    const agent = await createAgentRecord(store, { displayName: 'ip scan' });
    expect(await client.getAgentIPScanPolicy(agent.id)).toEqual({ forced_ip_addresses: [], forced_ip_ranges: [] });
    const policy = {
      forced_ip_addresses: ['192.168.1.20', '10.1.2.3', '172.31.255.254'],
      forced_ip_ranges: [{ start: '192.168.1.1', end: '192.168.1.10' }, { start: '10.0.0.5', end: '10.0.0.5' }],
    };
    await client.setAgentIPScanPolicy(agent.id, policy);
    const answer = await client.getAgentIPScanPolicy(agent.id);
    expectReferenceBody('getAgentIPScanPolicy', answer);
    expect(answer).toEqual(policy);
    await client.deleteAgentIPScanPolicy(agent.id);
    expect(await client.getAgentIPScanPolicy(agent.id)).toEqual({ forced_ip_addresses: [], forced_ip_ranges: [] });
  });

  it('IP scan policy: refuses malformed, public and reversed addresses (422, located), leaving the policy as it was', async () => {
    const agent = await createAgentRecord(store, { displayName: 'ip scan bad' });
    await client.setAgentIPScanPolicy(agent.id, { forced_ip_addresses: ['10.0.0.1'], forced_ip_ranges: [] });
    const ok = { forced_ip_addresses: ['10.0.0.1'], forced_ip_ranges: [] as Array<{ start: string; end: string }> };
    expect(await invalidAt(client.setAgentIPScanPolicy(agent.id, { ...ok, forced_ip_addresses: ['10.0.0.1', '192.168.1.300'] }))).toEqual({
      loc: ['body', 'forced_ip_addresses', 1],
      message: 'body.forced_ip_addresses.1: "192.168.1.300" is not an IPv4 address in dotted decimal notation',
    });
    expect(await invalidAt(client.setAgentIPScanPolicy(agent.id, { ...ok, forced_ip_addresses: ['8.8.8.8'] }))).toEqual({
      loc: ['body', 'forced_ip_addresses', 0],
      message: 'body.forced_ip_addresses.0: 8.8.8.8 is not in a private network (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)',
    });
    expect((await invalidAt(client.setAgentIPScanPolicy(agent.id, { ...ok, forced_ip_addresses: ['10.0.0.0/24'] }))).loc).toEqual(['body', 'forced_ip_addresses', 0]);
    expect((await invalidAt(client.setAgentIPScanPolicy(agent.id, { ...ok, forced_ip_ranges: [{ start: '172.32.0.1', end: '172.32.0.9' }] }))).loc).toEqual([
      'body',
      'forced_ip_ranges',
      0,
      'start',
    ]);
    expect(await invalidAt(client.setAgentIPScanPolicy(agent.id, { ...ok, forced_ip_ranges: [{ start: '192.168.1.10', end: '192.168.1.1' }] }))).toEqual({
      loc: ['body', 'forced_ip_ranges', 0],
      message: 'body.forced_ip_ranges.0: start 192.168.1.10 is after end 192.168.1.1',
    });
    expect((await invalidAt(client.setAgentIPScanPolicy(agent.id, { ...ok, forced_ip_ranges: [{ start: '192.168.1.1' }] as never }))).loc).toEqual([
      'body',
      'forced_ip_ranges',
      0,
      'end',
    ]);
    expect((await invalidAt(client.setAgentIPScanPolicy(agent.id, { forced_ip_addresses: [] } as never))).loc).toEqual(['body', 'forced_ip_ranges']);
    expect(await client.getAgentIPScanPolicy(agent.id)).toEqual(ok);
  });

  it('external host scan policy: ICMP only by default; a method left out of a PUT is disabled; ports deduplicated', async () => {
    const agent = await createAgentRecord(store, { displayName: 'external' });
    const initial = await client.getAgentExternalHostScanPolicy(agent.id);
    expectReferenceBody('getAgentExternalHostScanPolicy', initial);
    expect(initial).toEqual({ icmp: { enabled: true }, tcp_syn: { enabled: false, ports: [] }, tcp_ack: { enabled: false, ports: [] } });
    await client.setAgentExternalHostScanPolicy(agent.id, { tcp_syn: { enabled: true, ports: [443, 22, 443] } });
    const put = await client.getAgentExternalHostScanPolicy(agent.id);
    expectReferenceBody('getAgentExternalHostScanPolicy', put);
    expect(put).toEqual({ icmp: { enabled: false }, tcp_syn: { enabled: true, ports: [22, 443] }, tcp_ack: { enabled: false, ports: [] } });
    const all = { icmp: { enabled: true }, tcp_syn: { enabled: false, ports: [] }, tcp_ack: { enabled: true, ports: [80] } };
    await client.setAgentExternalHostScanPolicy(agent.id, all);
    expect(await client.getAgentExternalHostScanPolicy(agent.id)).toEqual(all);
    await client.deleteAgentExternalHostScanPolicy(agent.id);
    expect(await client.getAgentExternalHostScanPolicy(agent.id)).toEqual(initial);
  });

  it('external host scan policy: refuses an enabled TCP method without ports, bad ports, a method without enabled (422)', async () => {
    const agent = await createAgentRecord(store, { displayName: 'external bad' });
    expect(await invalidAt(client.setAgentExternalHostScanPolicy(agent.id, { tcp_ack: { enabled: true, ports: [] } }))).toEqual({
      loc: ['body', 'tcp_ack', 'ports'],
      message: 'body.tcp_ack.ports: must list at least one TCP port when the method is enabled',
    });
    expect((await invalidAt(client.setAgentExternalHostScanPolicy(agent.id, { tcp_syn: { enabled: true, ports: [70000] } }))).loc).toEqual(['body', 'tcp_syn', 'ports', 0]);
    expect((await invalidAt(client.setAgentExternalHostScanPolicy(agent.id, { tcp_syn: { enabled: true } } as never))).loc).toEqual(['body', 'tcp_syn', 'ports']);
    expect((await invalidAt(client.setAgentExternalHostScanPolicy(agent.id, { icmp: {} } as never))).loc).toEqual(['body', 'icmp', 'enabled']);
    expect((await client.getAgentExternalHostScanPolicy(agent.id)).icmp).toEqual({ enabled: true });
    expect((await failure(client.setAgentExternalHostScanPolicy(4242, {}))).status).toBe(404);
  });

  it('DHCP device discovery: stored per agent; the body is checked', async () => {
    const agent = await createAgentRecord(store, { displayName: 'dhcp' });
    expect(await getNetworkSetting(store, agent.id, 'dhcp_device_discovery')).toBe(false);
    await client.setDHCPDeviceDiscovery(agent.id, { dhcp_device_discovery: true });
    expect(await getNetworkSetting(store, agent.id, 'dhcp_device_discovery')).toBe(true);
    expect(await getNetworkSetting(store, site.id, 'dhcp_device_discovery')).toBe(false);
    await client.setDHCPDeviceDiscovery(agent.id, { dhcp_device_discovery: false });
    expect(await getNetworkSetting(store, agent.id, 'dhcp_device_discovery')).toBe(false);
    expect((await invalidAt(client.setDHCPDeviceDiscovery(agent.id, {} as never))).loc).toEqual(['body', 'dhcp_device_discovery']);
    expect((await invalidAt(client.setDHCPDeviceDiscovery(agent.id, { dhcp_device_discovery: 'often' } as never))).loc).toEqual(['body', 'dhcp_device_discovery']);
    expect((await failure(client.setDHCPDeviceDiscovery(4242, { dhcp_device_discovery: true }))).status).toBe(404);
  });
});

describe('IP conflicts and topology', async () => {
  const lan = await createAgentRecord(store, { displayName: 'lan' });
  const router = await createDevice(store, lan.id, { displayName: 'router', ip: '192.168.1.254', macAddress: 'aa:aa:aa:aa:aa:01' });
  await setDeviceType(store, router.id, { id: 1, label: 'Router' });
  const nas = await createDevice(store, lan.id, { displayName: 'nas', ip: '192.168.1.20', macAddress: 'aa:aa:aa:aa:aa:02' });
  const clash = await createDevice(store, lan.id, { displayName: 'laptop', ip: '192.168.1.20' });
  const printer = await createDevice(store, lan.id, { displayName: 'printer', ip: '192.168.1.30', macAddress: 'aa:aa:aa:aa:aa:03' });
  const gone = await createDevice(store, lan.id, { displayName: 'old', ip: '192.168.1.30', status: 'DOWN' });
  await hideDevice(store, lan.id, gone.id);
  const gateway2 = await createDevice(store, lan.id, { displayName: 'plc gateway', ip: '10.9.0.1' });
  const plc = await createDevice(store, lan.id, { displayName: 'plc', ip: '10.9.0.7' });
  const lonelyA = await createDevice(store, lan.id, { displayName: 'lonely a', ip: '172.20.5.9' });
  await createDevice(store, lan.id, { displayName: 'lonely b', ip: '172.20.5.10' });
  await createDevice(store, lan.id, { displayName: 'cloud', protocol: 'IP_EXTERNAL', hostName: 'example.com' });
  const elsewhere = await createAgentRecord(store, { displayName: 'elsewhere' });
  await createDevice(store, elsewhere.id, { displayName: 'twin', ip: '192.168.1.20' });

  it('lists every address more than one device of the agent has, hidden devices included; mac only when known', async () => {
    const conflicts = await client.getAgentIPConflicts(lan.id);
    expectReferenceBody('getAgentIPConflicts', conflicts);
    expect(conflicts).toEqual([
      { ip: '192.168.1.20', conflicting_devices: [{ id: nas.id, mac: 'aa:aa:aa:aa:aa:02' }, { id: clash.id }] },
      { ip: '192.168.1.30', conflicting_devices: [{ id: printer.id, mac: 'aa:aa:aa:aa:aa:03' }, { id: gone.id }] },
    ]);
    expect(await client.getAgentIPConflicts(elsewhere.id)).toEqual([]);
    expect((await failure(client.getAgentIPConflicts(4242))).status).toBe(404);
  });

  it('emulates the topology: per /24, edges from the router (or the .1) to the visible devices', async () => {
    const topology = await client.getNetworkTopology(lan.id);
    expectReferenceBody('getNetworkTopology', topology);
    expect(topology.edges).toEqual([
      { from: gateway2.id, to: plc.id },
      { from: router.id, to: nas.id },
      { from: router.id, to: clash.id },
      { from: router.id, to: printer.id },
    ]);
    expect(topology.edges.some((e) => e.to === lonelyA.id || e.to === gone.id)).toBe(false);
    expect(await client.getNetworkTopology(empty.id)).toEqual({ edges: [] });
    expect((await failure(client.getNetworkTopology(locked.id))).status).toBe(403);
  });
});

describe('onvifSnapshot', async () => {
  const camera = await createDevice(store, site.id, { displayName: 'gate camera', ip: '192.168.1.60' });
  const other = await createDevice(store, site.id, { displayName: 'switch', ip: '192.168.1.61' });
  // A 1×1 PNG.
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4280000000049454e44ae426082', 'hex');

  it('answers the recorded image with its content type, a device connection counted in consumption, logged as camera_snapshot', async () => {
    await recordCameraSnapshot(store, camera.id, { contentType: 'image/png', image: png });
    const before = (await client.getConnectionConsumption(site.id)).current;
    const image = await client.onvifSnapshot(site.id, camera.id);
    expect(image.contentType).toBe('image/png');
    expect(image.data.equals(png)).toBe(true);
    expect((await client.getConnectionConsumption(site.id)).current).toBe(before + png.length);
    const log = await store.statement(`SELECT device_id, "user" FROM activity_log WHERE type = 'camera_snapshot'`).all();
    expect(log).toEqual([{ device_id: camera.id, user: 'api' }]);
  });

  it('refuses a snapshot once the agent has used up its connection bytes (409)', async () => {
    const agent = await createAgentRecord(store, { displayName: 'metered' });
    const cam = await createDevice(store, agent.id, { displayName: 'cam', ip: '192.168.7.7' });
    await recordCameraSnapshot(store, cam.id, { contentType: 'image/jpeg', image: png });
    await setAgentLimits(store, agent.id, { connectionLimitBytes: png.length });
    await client.onvifSnapshot(agent.id, cam.id);
    const refused = await failure(client.onvifSnapshot(agent.id, cam.id));
    expect(refused.status).toBe(409);
    expect(refused.message).toMatch(/has consumed \d+ of its \d+ connection bytes/);
  });

  it('answers 404 NO_SNAPSHOT for a device without one, 404 for an unknown device', async () => {
    const none = await failure(client.onvifSnapshot(site.id, other.id));
    expect([none.status, none.code]).toEqual([404, 'NO_SNAPSHOT']);
    expect(none.message).toMatch(/has no camera snapshot/);
    const unknown = await failure(client.onvifSnapshot(site.id, 4242));
    expect([unknown.status, unknown.code]).toEqual([404, 'NOT_FOUND']);
    expect((await failure(client.onvifSnapshot(empty.id, camera.id))).status).toBe(404);
  });

  it('refuses to record what is not an image', async () => {
    await expect(async () => await recordCameraSnapshot(store, camera.id, { contentType: 'text/html', image: png })).rejects.toThrow(/image\/<subtype>/);
    await expect(async () => await recordCameraSnapshot(store, camera.id, { contentType: 'image/jpeg', image: new Uint8Array() })).rejects.toThrow(/needs image bytes/);
  });
});

describe('device types', () => {
  it('lists the base types, each with its id, identifier, label and vitality', async () => {
    const types = await client.listDeviceBaseTypes();
    expectReferenceBody('listDeviceBaseTypes', types);
    expect(types.length).toBeGreaterThan(20);
    expect(types.find((t) => t.identifier === 'ROUTER')).toEqual({ id: 1, identifier: 'ROUTER', label: 'Router', vital: true });
    expect(new Set(types.map((t) => t.id)).size).toBe(types.length);
  });

  it("lists the detected types: the catalogue's, then those the store's devices carry", async () => {
    const device = await createDevice(store, site.id, { displayName: 'odd thing', ip: '192.168.1.90' });
    await setDeviceType(store, device.id, { id: 28, detectedId: 900, label: 'Odd thing' });
    const types = await client.listDeviceDetectedTypes();
    expectReferenceBody('listDeviceDetectedTypes', types);
    expect(types.find((t) => t.identifier === 'ONVIF_CAMERA')).toEqual({ id: 101, identifier: 'ONVIF_CAMERA', label: 'ONVIF IP camera', type_id: 11, capabilities: ['snapshot'] });
    // Domotz's example programs find the cameras as the detected types with the 'snapshot' capability.
    expect(types.filter((t) => t.capabilities?.includes('snapshot')).map((t) => t.identifier)).toEqual(['ONVIF_CAMERA']);
    expect(types.at(-1)).toEqual({ id: 900, identifier: 'DETECTED_900', label: 'Odd thing', type_id: 28 });
    const base = new Set((await client.listDeviceBaseTypes()).map((t) => t.id));
    expect(types.every((t) => t.type_id === undefined || base.has(t.type_id))).toBe(true);
  });
});

describe('MetricUsageInfo', () => {
  it("counts the agent's SNMP and TCP sensors and custom-driver associations against its limit", async () => {
    const agent = await createAgentRecord(store, { displayName: 'metrics' });
    const fresh = await client.MetricUsageInfo(agent.id);
    expectReferenceBody('MetricUsageInfo', fresh);
    expect(fresh).toEqual({ limit: 50, usage: { custom_driver: 0, snmp: 0, tcp: 0, total: 0 } });
    const device = await createDevice(store, agent.id, { displayName: 'ups', ip: '10.0.0.2' });
    await createSnmpSensor(store, device.id, { name: 'load', oid: '1.3.6.1.2.1.33.1.4.4.1.5.1', category: 'OTHER', valueType: 'NUMERIC' });
    await createSnmpSensor(store, device.id, { name: 'battery', oid: '1.3.6.1.2.1.33.1.2.4.0', category: 'OTHER', valueType: 'NUMERIC' });
    const driver = await createCustomDriver(store, { name: 'metrics driver', code: 'function validate() { D.success(); }\nfunction get_status() { D.success(); }' });
    await createAssociation(store, { customDriverId: driver.id, agentId: agent.id, deviceId: device.id });
    const used = await client.MetricUsageInfo(agent.id);
    expectReferenceBody('MetricUsageInfo', used);
    expect(used).toEqual({ limit: 50, usage: { custom_driver: 1, snmp: 2, tcp: 0, total: 3 } });
    expect((await failure(client.MetricUsageInfo(4242))).status).toBe(404);
    expect((await failure(client.MetricUsageInfo(locked.id))).status).toBe(403);
  });
});

describe('apiUsageInfo', () => {
  it('counts the calls answered with an accepted key, by key, IP and resource, over the last 24 hours', async () => {
    const agent = await createAgentRecord(own.store, { displayName: 'counted' });
    const first = await own.client.apiUsageInfo();
    expectReferenceBody('apiUsageInfo', first);
    // The call itself is counted once answered, so the first answer shows none.
    expect(first).toEqual({ by_ip: [], by_key: [], by_resource: [], concurrent_allowed: 300, daily_limit: 50000, daily_usage: 0 });
    await own.client.getAgent(agent.id);
    await own.client.listAgents();
    await failure(own.client.getAgent(4242));
    await own.client.listDeviceBaseTypes();
    const stranger = new MonitoringClient({ baseUrl: own.server.url, apiKey: 'not-a-key' });
    expect((await failure(stranger.listAgents())).status).toBe(401);
    await stranger.close();
    const usage = await own.client.apiUsageInfo();
    expectReferenceBody('apiUsageInfo', usage);
    expect(usage.daily_usage).toBe(5);
    expect(usage.by_key).toEqual([{ id: 1, name: 'key 1', count: 5 }]);
    expect(usage.by_ip).toEqual([{ name: '127.0.0.1', count: 5 }]);
    expect(usage.by_resource).toEqual([
      { name: 'agent', count: 3 },
      { name: 'meta', count: 1 },
      { name: 'type', count: 1 },
    ]);
    // A day later, only the calls since count, and the older ones are pruned.
    own.clock.now += 24 * 3600_000;
    await own.client.listAgents();
    const later = await own.client.apiUsageInfo();
    expect([later.daily_usage, later.by_resource]).toEqual([1, [{ name: 'agent', count: 1 }]]);
    // The table itself: the last call is still counted in memory until written (a second, or now).
    await flushApiUsage(own.store);
    expect(await own.store.statement('SELECT minute * 60000 AS at, resource, count FROM api_usage ORDER BY resource').all()).toEqual([
      { at: own.clock.now, resource: 'agent', count: 1 },
      { at: own.clock.now, resource: 'meta', count: 1 },
    ]);
  });

  it('shows the limits the server was given, and counts per key', async () => {
    const server = await startMonitoringServer({ store, apiKeys: ['first-key', TEST_API_KEY], apiUsageLimits: { dailyLimit: 1000, perMinute: 10 } });
    const second = new MonitoringClient({ baseUrl: server.url, apiKey: TEST_API_KEY });
    const first = new MonitoringClient({ baseUrl: server.url, apiKey: 'first-key' });
    try {
      const before = (await second.apiUsageInfo()).daily_usage;
      await first.listAgents();
      await first.listAgents();
      const usage = await second.apiUsageInfo();
      expect([usage.daily_limit, usage.concurrent_allowed, usage.daily_usage - before]).toEqual([1000, 10, 3]);
      expect(usage.by_key.find((k) => k.id === 1)).toEqual({ id: 1, name: 'key 1', count: 2 });
      expect(usage.by_key.find((k) => k.id === 2)!.count).toBeGreaterThanOrEqual(1);
    } finally {
      await first.close();
      await second.close();
      await server.close();
    }
  });

  it('counts calls in memory: N calls take fewer than N writes, and a clean close or a second writes them', async () => {
    const mine = await openTestStore();
    const writes = () => statements.mock.calls.filter(([sql]) => sql.startsWith('INSERT INTO api_usage')).length;
    const stored = async () => Number((await mine.statement<[], { n: number | null }>('SELECT SUM(count) AS n FROM api_usage').get())!.n ?? 0);
    const statements = vi.spyOn(mine, 'statement');
    try {
      const server = await startMonitoringServer({ store: mine, apiKeys: [TEST_API_KEY] });
      const caller = new MonitoringClient({ baseUrl: server.url, apiKey: TEST_API_KEY });
      const n = 40;
      const started = Date.now();
      for (let i = 0; i < n; i++) await caller.listAgents();
      const seconds = Math.ceil((Date.now() - started) / USAGE_FLUSH_MS);
      // At most one write a second (one statement each), never one per call.
      expect(writes()).toBeLessThan(n);
      expect(writes()).toBeLessThanOrEqual(seconds);
      await caller.close();
      await server.close();
      // The close wrote what was pending: none lost.
      expect(await stored()).toBe(n);
      expect(writes()).toBeGreaterThan(0);
      expect(writes()).toBeLessThanOrEqual(seconds + 1);

      // Without a close or a read, the timer writes them within about a second.
      const again = await startMonitoringServer({ store: mine, apiKeys: [TEST_API_KEY] });
      const next = new MonitoringClient({ baseUrl: again.url, apiKey: TEST_API_KEY });
      try {
        await next.listAgents();
        await next.listAgents();
        const deadline = Date.now() + 5 * USAGE_FLUSH_MS;
        while ((await stored()) < n + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(await stored()).toBe(n + 2);
        // And apiUsageInfo shows them all, its own call not yet.
        expect((await next.apiUsageInfo()).daily_usage).toBe(n + 2);
      } finally {
        await next.close();
        await again.close();
      }
      expect(await stored()).toBe(n + 3);
    } finally {
      statements.mockRestore();
      await mine.close();
    }
  });
});
