// Devices through MonitoringClient against a real server: records per protocol, hiding,
// deleting, editing fields, external hosts, credentials and SNMP authentication.
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { MonitoringApiError, MonitoringClient, MonitoringNotFoundError, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { startMonitoringServer } from '../../../host/api/monitoring/server.js';
import { createAgentRecord, ensureLocalAgent } from '../../../host/store/fleet/agents.js';
import { getDeviceCredentials } from '../../../host/store/fleet/credentials.js';
import { createDevice, getDevice } from '../../../host/store/fleet/devices.js';
import { setDeviceStatus } from '../../../host/store/fleet/status-history.js';
import { openStore } from '../../../host/store/index.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';
import { openTestStore } from '../../helpers/store.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const agent = await ensureLocalAgent(store);
const other = await createAgentRecord(store, { displayName: 'other' });

const status = (error: unknown): number => (error as MonitoringApiError).status;

describe('device records', () => {
  it('shows IP devices with the IpDevice fields, external hosts with names.host, dummies with the common fields', async () => {
    const ip = await createDevice(store, agent.id, {
      displayName: 'nas',
      ip: '10.0.0.7',
      macAddress: 'aa:bb:cc:dd:ee:ff',
      vendor: 'Synology',
      model: 'DS920+',
      importance: 'VITAL',
      details: { room: 'rack', firmware_version: '7.2' },
    });
    const dummy = await createDevice(store, agent.id, { displayName: 'lamp', protocol: 'DUMMY' });
    await client.createExternalHost(agent.id, { host: 'example.org', name: 'web site' });
    const devices = await client.listDevices(agent.id);
    const external = devices.find((d) => d.protocol === 'IP_EXTERNAL');
    expect(devices.find((d) => d.id === ip.id)).toEqual({
      id: ip.id,
      main_id: ip.id,
      display_name: 'nas',
      protocol: 'IP',
      first_seen_on: '2026-01-15T12:00:00',
      authentication_status: 'NO_AUTHENTICATION',
      importance: 'VITAL',
      details: { room: 'rack', firmware_version: '7.2' },
      os: {},
      type: {},
      user_data: {},
      is_excluded: false,
      status: 'ONLINE',
      agent_reachable: true,
      ip_addresses: ['10.0.0.7'],
      last_status_change: '2026-01-15T12:00:00',
      model: 'DS920+',
      vendor: 'Synology',
      open_ports: { tcp: [], udp: [] },
      hw_address: 'aa:bb:cc:dd:ee:ff',
      is_jammed: false,
    });
    expect(external).toMatchObject({ display_name: 'web site', names: { host: 'example.org' }, status: 'ONLINE', ip_addresses: [] });
    expect(external).not.toHaveProperty('hw_address');
    const lamp = devices.find((d) => d.id === dummy.id)!;
    expect(lamp).toMatchObject({ protocol: 'DUMMY', display_name: 'lamp' });
    for (const field of ['status', 'ip_addresses', 'agent_reachable', 'names']) expect(lamp).not.toHaveProperty(field);
    expect(await client.getDevice(agent.id, ip.id)).toEqual(devices.find((d) => d.id === ip.id));
  });

  it('answers 404 for an unknown device, for a device of another agent, and for an unknown agent', async () => {
    const theirs = await createDevice(store, other.id, { displayName: 'theirs', ip: '10.1.1.1' });
    for (const call of [() => client.getDevice(agent.id, 9999), () => client.getDevice(agent.id, theirs.id), () => client.listDevices(9999)]) {
      await expect(call()).rejects.toBeInstanceOf(MonitoringNotFoundError);
    }
    const error = await client.getDevice(agent.id, theirs.id).catch((e: unknown) => e);
    expect((error as MonitoringApiError).body).toMatchObject({ message: `device ${theirs.id} not found` });
    await expect(client.deleteDevice(agent.id, theirs.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    expect(await getDevice(store, other.id, theirs.id)).toBeDefined();
  });
});

describe('hideDevice and show_hidden', () => {
  it('hides only DOWN devices; a hidden device is listed as HIDDEN only with show_hidden', async () => {
    const flaky = await createDevice(store, agent.id, { displayName: 'flaky', ip: '10.0.0.50' });
    const refused = await client.hideDevice(agent.id, flaky.id).catch((e: unknown) => e);
    expect(status(refused)).toBe(409);
    expect((refused as MonitoringApiError).body).toMatchObject({ code: 'CONFLICT', message: `device ${flaky.id} is ONLINE: only DOWN devices can be hidden` });

    await setDeviceStatus(store, flaky.id, 'DOWN');
    await client.hideDevice(agent.id, flaky.id);
    expect((await client.listDevices(agent.id)).map((d) => d.id)).not.toContain(flaky.id);
    expect((await client.listDevices(agent.id, { show_hidden: false })).map((d) => d.id)).not.toContain(flaky.id);
    const all = await client.listDevices(agent.id, { show_hidden: true });
    expect(all.find((d) => d.id === flaky.id)?.status).toBe('HIDDEN');
    expect((await client.getDevice(agent.id, flaky.id)).status).toBe('HIDDEN');

    // Coming back ONLINE makes it visible again.
    await setDeviceStatus(store, flaky.id, 'ONLINE');
    expect((await client.listDevices(agent.id)).find((d) => d.id === flaky.id)?.status).toBe('ONLINE');
  });

  it('refuses a show_hidden that is not a boolean', async () => {
    const error = await client.listDevices(agent.id, { show_hidden: 'maybe' as unknown as boolean }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MonitoringValidationError);
    expect((error as MonitoringValidationError).detail[0]?.loc).toEqual(['query', 'show_hidden']);
  });
});

describe('deleteDevice and deleteDownDevices', () => {
  it('deletes one device whatever its status', async () => {
    const gone = await createDevice(store, agent.id, { displayName: 'gone', ip: '10.0.0.60' });
    await client.deleteDevice(agent.id, gone.id);
    await expect(client.getDevice(agent.id, gone.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
  });

  it('deletes the DOWN devices of IP protocol only, hidden ones included', async () => {
    const site = await createAgentRecord(store, { displayName: 'cleanup site' });
    const downIp = await createDevice(store, site.id, { displayName: 'down ip', ip: '10.2.0.1', status: 'DOWN' });
    const hiddenDown = await createDevice(store, site.id, { displayName: 'hidden down', ip: '10.2.0.2', status: 'DOWN' });
    await client.hideDevice(site.id, hiddenDown.id);
    const upIp = await createDevice(store, site.id, { displayName: 'up ip', ip: '10.2.0.3' });
    const offline = await createDevice(store, site.id, { displayName: 'offline ip', ip: '10.2.0.4', status: 'OFFLINE' });
    const downExternal = await createDevice(store, site.id, { displayName: 'down ext', protocol: 'IP_EXTERNAL', hostName: 'x.example', status: 'DOWN' });
    const downDummy = await createDevice(store, site.id, { displayName: 'down dummy', protocol: 'DUMMY', status: 'DOWN' });
    const elsewhere = await createDevice(store, other.id, { displayName: 'down elsewhere', ip: '10.2.0.9', status: 'DOWN' });
    await client.deleteDownDevices(site.id);
    const left = (await client.listDevices(site.id, { show_hidden: true })).map((d) => d.id).sort((a, b) => a - b);
    expect(left).toEqual([upIp.id, offline.id, downExternal.id, downDummy.id]);
    expect(left).not.toContain(downIp.id);
    expect(await getDevice(store, other.id, elsewhere.id)).toBeDefined();
    await expect(client.deleteDownDevices(9999)).rejects.toBeInstanceOf(MonitoringNotFoundError);
  });
});

describe('editDevice', () => {
  it('changes importance, user_data and details, and user_data/name renames the device', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'cam', ip: '10.0.0.70', details: { serial: 'AUTO-1' } });
    await client.editDevice(agent.id, d.id, 'importance', 'VITAL');
    await client.editDevice(agent.id, d.id, 'user_data/name', 'Front door camera');
    await client.editDevice(agent.id, d.id, 'user_data/model', 'X100');
    await client.editDevice(agent.id, d.id, 'user_data/vendor', 'Axis');
    await client.editDevice(agent.id, d.id, 'user_data/type', '12');
    await client.editDevice(agent.id, d.id, 'details/room', 'Hall');
    await client.editDevice(agent.id, d.id, 'details/zone', 'North');
    await client.editDevice(agent.id, d.id, 'details/serial', 'SN-42');
    expect(await client.getDevice(agent.id, d.id)).toMatchObject({
      display_name: 'Front door camera',
      importance: 'VITAL',
      user_data: { name: 'Front door camera', model: 'X100', vendor: 'Axis', type: 12 },
      details: { room: 'Hall', zone: 'North', serial: 'SN-42' },
    });
    await client.editDevice(agent.id, d.id, 'user_data/type', 7);
    await client.editDevice(agent.id, d.id, 'details/serial', null);
    const after = await client.getDevice(agent.id, d.id);
    expect(after.user_data?.type).toBe(7);
    expect(after.details).toEqual({ room: 'Hall', zone: 'North' });
  });

  it('accepts the field as two path segments too (an unencoded slash)', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'printer', ip: '10.0.0.71' });
    const res = await request(`${api.server.url}/public-api/v1/agent/${agent.id}/device/${d.id}/user_data/model`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify('LaserJet'),
    });
    expect(res.statusCode).toBe(204);
    expect((await client.getDevice(agent.id, d.id)).user_data?.model).toBe('LaserJet');
  });

  it('refuses values a field does not take, and unknown fields, with 422 naming them', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'switch', ip: '10.0.0.72' });
    const cases: Array<[Parameters<typeof client.editDevice>[2], string | number | null, RegExp]> = [
      ['importance', 'CRITICAL', /importance must be VITAL or FLOATING, not "CRITICAL"/],
      ['importance', null, /importance cannot be null/],
      ['user_data/type', 'router', /user_data\/type must be an integer/],
      ['user_data/type', '1.5', /user_data\/type must be an integer/],
      ['user_data/name', '  ', /user_data\/name cannot be empty/],
      ['details/room', 'x'.repeat(256), /longer than 255/],
    ];
    for (const [field, value, message] of cases) {
      const error = await client.editDevice(agent.id, d.id, field, value).catch((e: unknown) => e);
      expect(error, field).toBeInstanceOf(MonitoringValidationError);
      expect((error as Error).message, field).toMatch(message);
      expect((error as MonitoringValidationError).detail[0]?.loc).toEqual(['body']);
    }
    const unknown = await client.editDevice(agent.id, d.id, 'user_data/colour' as 'user_data/name', 'red').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(MonitoringValidationError);
    expect((unknown as MonitoringValidationError).detail[0]).toMatchObject({ loc: ['path', 'field'] });
    const objectBody = await request(`${api.server.url}/public-api/v1/agent/${agent.id}/device/${d.id}/importance`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ value: 'VITAL' }),
    });
    expect(objectBody.statusCode).toBe(422);
    const noBody = await request(`${api.server.url}/public-api/v1/agent/${agent.id}/device/${d.id}/importance`, {
      method: 'PUT',
      headers: { 'x-api-key': TEST_API_KEY },
    });
    expect(noBody.statusCode).toBe(422);
    expect(await noBody.body.json()).toMatchObject({ detail: [{ loc: ['body'] }] });
    expect((await client.getDevice(agent.id, d.id)).importance).toBe('FLOATING');
  });
});

describe('createExternalHost', () => {
  it('creates an IP_EXTERNAL device at an IP or a host name, named in the Location header', async () => {
    const res = await request(`${api.server.url}/public-api/v1/agent/${agent.id}/device/external-host`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ host: '8.8.8.8', name: 'dns' }),
    });
    expect(res.statusCode).toBe(201);
    expect(await res.body.text()).toBe('');
    const id = Number(String(res.headers.location).split('/').pop());
    expect(res.headers.location).toBe(`/public-api/v1/agent/${agent.id}/device/${id}`);
    expect(await client.getDevice(agent.id, id)).toMatchObject({ protocol: 'IP_EXTERNAL', display_name: 'dns', names: { host: '8.8.8.8' }, ip_addresses: ['8.8.8.8'] });
  });

  it('refuses a bad host, a missing name and a duplicate host', async () => {
    const bad = await client.createExternalHost(agent.id, { host: 'not a host!', name: 'x' }).catch((e: unknown) => e);
    expect((bad as MonitoringValidationError).detail).toEqual([{ loc: ['body', 'host'], msg: '"not a host!" is neither an IP address nor a host name', type: 'value_error' }]);
    const missing = await client.createExternalHost(agent.id, { host: 'a.example' } as { host: string; name: string }).catch((e: unknown) => e);
    expect((missing as MonitoringValidationError).detail[0]?.loc).toEqual(['body', 'name']);
    await client.createExternalHost(agent.id, { host: 'dup.example', name: 'first' });
    const dup = await client.createExternalHost(agent.id, { host: 'dup.example', name: 'second' }).catch((e: unknown) => e);
    expect(status(dup)).toBe(409);
    expect((dup as Error).message).toMatch(/already has external host dup\.example/);
  });
});

describe('setCredentials', () => {
  it('seals the credentials under their scope and sets authentication_status PENDING', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'router', ip: '10.0.0.1' });
    await client.setCredentials(agent.id, d.id, { username: 'admin', password: 's3cret-pw' });
    await client.setCredentials(agent.id, d.id, { username: 'driver', password: 'other-pw', scope: 'CUSTOM_DRIVER_MANAGEMENT' });
    expect((await client.getDevice(agent.id, d.id)).authentication_status).toBe('PENDING');
    expect(await getDeviceCredentials(store, d.id, ['DEVICE_MANAGEMENT'])).toEqual({ scope: 'DEVICE_MANAGEMENT', username: 'admin', password: 's3cret-pw' });
    expect(await getDeviceCredentials(store, d.id)).toMatchObject({ scope: 'CUSTOM_DRIVER_MANAGEMENT', username: 'driver' });
    const raw = await store.statement('SELECT password_sealed FROM device_credentials WHERE device_id = ?').all(d.id) as Array<{ password_sealed: string }>;
    expect(raw.map((r) => r.password_sealed).join()).not.toMatch(/s3cret-pw|other-pw/);
  });

  it('refuses a missing password or an unknown scope', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'ap', ip: '10.0.0.2' });
    const noPassword = await client.setCredentials(agent.id, d.id, { username: 'u' } as { username: string; password: string }).catch((e: unknown) => e);
    expect((noPassword as MonitoringValidationError).detail[0]?.loc).toEqual(['body', 'password']);
    const badScope = await client.setCredentials(agent.id, d.id, { username: 'u', password: 'p', scope: 'ROOT' as 'OS_MANAGEMENT' }).catch((e: unknown) => e);
    expect((badScope as MonitoringValidationError).detail[0]).toMatchObject({ loc: ['body', 'scope'], msg: expect.stringContaining('DEVICE_MANAGEMENT') });
  });

  it('answers 503 when the server has no secret key to seal them with', async () => {
    const keyless = await openTestStore({ secretKey: null });
    const server = await startMonitoringServer({ store: keyless, apiKeys: [TEST_API_KEY] });
    const keylessClient = new MonitoringClient({ baseUrl: server.url, apiKey: TEST_API_KEY });
    const own = await ensureLocalAgent(keyless);
    const d = await createDevice(keyless, own.id, { displayName: 'x', ip: '10.0.0.3' });
    const error = await keylessClient.setCredentials(own.id, d.id, { username: 'u', password: 'p' }).catch((e: unknown) => e);
    expect(status(error)).toBe(503);
    expect((error as MonitoringApiError).code).toBe('SECRET_KEY_MISSING');
    expect((await getDevice(keyless, own.id, d.id))?.authenticationStatus).toBe('NO_AUTHENTICATION');
    await keylessClient.close();
    await server.close();
    await keyless.close();
  });
});

describe('SNMP authentication', () => {
  it('answers V2 public/private until set, then what was set, sealed at rest', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'ups', ip: '10.0.0.90' });
    expect(await client.getSNMPAuthentication(agent.id, d.id)).toEqual({ version: 'V2', snmp_read_community: 'public', snmp_write_community: 'private' });
    const v3 = {
      version: 'V3_AUTH_PRIV',
      username: 'monitor',
      authentication_protocol: 'SHA-256',
      authentication_key: 'auth-key-123',
      encryption_protocol: 'AES',
      encryption_key: 'priv-key-456',
    } as const;
    await client.setSNMPAuthentication(agent.id, d.id, v3);
    expect(await client.getSNMPAuthentication(agent.id, d.id)).toEqual(v3);
    const raw = await store.statement('SELECT snmp_authentication FROM devices WHERE id = ?').get(d.id) as { snmp_authentication: string };
    expect(raw.snmp_authentication).not.toMatch(/auth-key-123|monitor/);
  });

  it('keeps only the fields the version uses', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'pdu', ip: '10.0.0.91' });
    await client.setSNMPAuthentication(agent.id, d.id, { version: 'V2', snmp_read_community: 'ro', username: 'ignored', authentication_key: 'ignored' });
    expect(await client.getSNMPAuthentication(agent.id, d.id)).toEqual({ version: 'V2', snmp_read_community: 'ro' });
    await client.setSNMPAuthentication(agent.id, d.id, { version: 'V3_NO_AUTH', username: 'u', snmp_read_community: 'dropped' });
    expect(await client.getSNMPAuthentication(agent.id, d.id)).toEqual({ version: 'V3_NO_AUTH', username: 'u' });
  });

  it('names every field a V3 version is missing, and refuses unknown versions and protocols', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'sw', ip: '10.0.0.92' });
    const missing = await client.setSNMPAuthentication(agent.id, d.id, { version: 'V3_AUTH_PRIV', username: 'u' }).catch((e: unknown) => e);
    expect((missing as MonitoringValidationError).detail.map((x) => x.loc)).toEqual([
      ['body', 'authentication_protocol'],
      ['body', 'authentication_key'],
      ['body', 'encryption_protocol'],
      ['body', 'encryption_key'],
    ]);
    const noUser = await client.setSNMPAuthentication(agent.id, d.id, { version: 'V3_NO_AUTH' }).catch((e: unknown) => e);
    expect((noUser as Error).message).toMatch(/SNMP version V3_NO_AUTH needs username/);
    const badVersion = await client.setSNMPAuthentication(agent.id, d.id, { version: 'V4' as 'V2' }).catch((e: unknown) => e);
    expect((badVersion as MonitoringValidationError).detail[0]?.loc).toEqual(['body', 'version']);
    const badProtocol = await client
      .setSNMPAuthentication(agent.id, d.id, { version: 'V3_AUTH_NO_PRIV', username: 'u', authentication_protocol: 'CRC32' as 'MD5', authentication_key: 'k' })
      .catch((e: unknown) => e);
    expect((badProtocol as MonitoringValidationError).detail[0]?.loc).toEqual(['body', 'authentication_protocol']);
    expect(await client.getSNMPAuthentication(agent.id, d.id)).toMatchObject({ version: 'V2', snmp_read_community: 'public' });
  });

  it('setSnmpCommunity (deprecated) sets V2 communities, write defaulting to read', async () => {
    const d = await createDevice(store, agent.id, { displayName: 'printer', ip: '10.0.0.93' });
    await client.setSnmpCommunity(agent.id, d.id, { read: 'r0' });
    expect(await client.getSNMPAuthentication(agent.id, d.id)).toEqual({ version: 'V2', snmp_read_community: 'r0', snmp_write_community: 'r0' });
    await client.setSNMPAuthentication(agent.id, d.id, { version: 'V1', snmp_read_community: 'a' });
    await client.setSnmpCommunity(agent.id, d.id, { read: 'r1', write: 'w1' });
    expect(await client.getSNMPAuthentication(agent.id, d.id)).toEqual({ version: 'V1', snmp_read_community: 'r1', snmp_write_community: 'w1' });
    const empty = await client.setSnmpCommunity(agent.id, d.id, { read: '' }).catch((e: unknown) => e);
    expect((empty as MonitoringValidationError).detail[0]?.loc).toEqual(['body', 'read']);
  });
});
