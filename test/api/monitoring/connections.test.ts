// Connections through MonitoringClient: VPN sessions (text/plain configuration), direct
// device connections, and consumption against the agent's limit.
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringAuthError, MonitoringClient, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { addConnectionBytes } from '../../../host/store/monitoring/connections.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { setAgentLimits } from '../../../host/store/monitoring/monitoring-limits.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const agent = await createAgentRecord(store, { displayName: 'office' });
const other = await createAgentRecord(store, { displayName: 'depot' });
const nas = await createDevice(store, agent.id, { displayName: 'nas', ip: '192.168.1.20', portMap: { 443: 8443 } });
const named = await createDevice(store, agent.id, { displayName: 'cloud thing', hostName: 'thing.example.net' });
const nowhere = await createDevice(store, agent.id, { displayName: 'no address' });
const start = api.clock.now;

async function activity(type: string): Promise<Array<{ device_id: number | null; user: string; description: string }>> {
  return await store.statement('SELECT device_id, "user", description FROM activity_log WHERE type = ? ORDER BY id').all(type) as never;
}

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

describe('VPN sessions', () => {
  it('creates a session answering 201 text/plain, lists it ACTIVE, then EXPIRED after its ttl', async () => {
    const res = await request(`${api.server.url}/public-api/v1/agent/${agent.id}/connection/vpn-session`, {
      method: 'POST',
      headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json', accept: 'text/plain' },
      body: JSON.stringify({ allowed_ip: '203.0.113.7', routing_policy: 'global', ttl_hours: 2 }),
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = await res.body.text();
    expect(text).toContain(`emulated VPN session`);
    expect(text).toContain('allowed ip: 203.0.113.7');
    expect(text).toContain('redirect-gateway def1');
    expect(text).toContain('expires: 2026-01-15T14:00:00 UTC');

    const config = await client.createAgentVPNConnection(agent.id, { allowed_ip: '2001:db8::1', routing_policy: 'local' });
    expect(typeof config).toBe('string');
    expect(config).not.toContain('redirect-gateway');

    const sessions = await client.getAgentVPNActiveConnections(agent.id);
    expect(sessions).toEqual([
      { id: expect.any(Number), name: 'api', bytes: 0, creation_time: '2026-01-15T12:00:00', expiration_time: '2026-01-15T14:00:00', status: 'ACTIVE' },
      { id: expect.any(Number), name: 'api', bytes: 0, creation_time: '2026-01-15T12:00:00', expiration_time: '2026-01-15T13:00:00', status: 'ACTIVE' },
    ]);
    api.clock.now = start + 90 * 60_000;
    expect((await client.getAgentVPNActiveConnections(agent.id)).map((s) => s.status)).toEqual(['ACTIVE', 'EXPIRED']);
    api.clock.now = start;
    expect(await client.getAgentVPNActiveConnections(other.id)).toEqual([]);
    expect(await activity('vpn_session_start')).toHaveLength(2);
  });

  it('closes a session: gone from the list, logged, 404 the second time', async () => {
    const [first] = await client.getAgentVPNActiveConnections(agent.id);
    await client.deleteAgentVPNConnection(agent.id, first!.id);
    expect((await client.getAgentVPNActiveConnections(agent.id)).map((s) => s.id)).not.toContain(first!.id);
    expect(await activity('vpn_session_terminate')).toEqual([{ device_id: null, user: 'api', description: `VPN session ${first!.id} closed` }]);
    expect((await failure(client.deleteAgentVPNConnection(agent.id, first!.id))).status).toBe(404);
    expect((await failure(client.deleteAgentVPNConnection(other.id, first!.id))).status).toBe(404);
  });

  it('refuses bad requests with 422 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ allowed_ip: 'my laptop', routing_policy: 'global' }, 'allowed_ip'],
      [{ allowed_ip: '203.0.113.7', routing_policy: 'everything' }, 'routing_policy'],
      [{ allowed_ip: '203.0.113.7', routing_policy: 'local', ttl_hours: 0 }, 'ttl_hours'],
      [{ routing_policy: 'local' }, 'allowed_ip'],
    ];
    for (const [body, field] of cases) {
      const error = (await failure(client.createAgentVPNConnection(agent.id, body as never))) as MonitoringValidationError;
      expect(error.status).toBe(422);
      expect(error.detail[0]!.loc).toEqual(['body', field]);
    }
    expect((await failure(client.createAgentVPNConnection(999, { allowed_ip: '203.0.113.7', routing_policy: 'local' }))).status).toBe(404);
  });
});

describe('direct device connections', () => {
  it("answers 201 with a session whose link is the device's address through its port map", async () => {
    const https = await client.connectToDevice(agent.id, nas.id, { allowed_ip: '203.0.113.7', port: 443, protocol: 'https' });
    expect(https).toEqual({ id: expect.any(Number), allowed_ip: '203.0.113.7', link: 'https://192.168.1.20:8443/', port: 443, protocol: 'https', expiration: '2026-01-15T13:00:00' });
    const ssh = await client.connectToDevice(agent.id, named.id, { allowed_ip: '203.0.113.7', port: 22, protocol: 'tcp', ttl_hours: 3 });
    expect(ssh).toMatchObject({ link: 'tcp://thing.example.net:22', expiration: '2026-01-15T15:00:00' });
    expect((await activity('remote_session_start')).map((a) => a.device_id)).toEqual([nas.id, named.id]);
  });

  it('refuses a device without an address (409), of another agent (404), bad protocol (422)', async () => {
    const noAddress = await failure(client.connectToDevice(agent.id, nowhere.id, { allowed_ip: '203.0.113.7', port: 80, protocol: 'http' }));
    expect(noAddress.status).toBe(409);
    expect(noAddress.message).toMatch(/no IP address or host name/);
    expect((await failure(client.connectToDevice(other.id, nas.id, { allowed_ip: '203.0.113.7', port: 80, protocol: 'http' }))).status).toBe(404);
    const bad = (await failure(client.connectToDevice(agent.id, nas.id, { allowed_ip: '203.0.113.7', port: 80, protocol: 'gopher' as never }))) as MonitoringValidationError;
    expect(bad.detail[0]!.loc).toEqual(['body', 'protocol']);
  });
});

describe('connection consumption', () => {
  it('sums the bytes of sessions and connections against the limit; refuses new ones once it is reached', async () => {
    expect(await client.getConnectionConsumption(agent.id)).toEqual({ current: 0, limit: 1024 * 1024 * 1024 });
    const [session] = await client.getAgentVPNActiveConnections(agent.id);
    await addConnectionBytes(store, 'vpn', session!.id, 4000);
    const conn = await client.connectToDevice(agent.id, nas.id, { allowed_ip: '203.0.113.7', port: 80, protocol: 'http' });
    await addConnectionBytes(store, 'device', conn.id, 1000);
    expect(await client.getConnectionConsumption(agent.id)).toEqual({ current: 5000, limit: 1024 * 1024 * 1024 });
    expect((await client.getAgentVPNActiveConnections(agent.id)).find((s) => s.id === session!.id)!.bytes).toBe(4000);

    await setAgentLimits(store, agent.id, { connectionLimitBytes: 5000 });
    const vpn = await failure(client.createAgentVPNConnection(agent.id, { allowed_ip: '203.0.113.7', routing_policy: 'local' }));
    expect(vpn.status).toBe(409);
    expect(vpn.message).toMatch(/consumed 5000 of its 5000 connection bytes/);
    expect((await failure(client.connectToDevice(agent.id, nas.id, { allowed_ip: '203.0.113.7', port: 80, protocol: 'http' }))).status).toBe(409);
    expect((await failure(client.getConnectionConsumption(31337))).status).toBe(404);
  });
});

describe('authentication', () => {
  it('answers 401 without a valid key and opens nothing', async () => {
    const before = (await activity('vpn_session_start')).length;
    const stranger = new MonitoringClient({ baseUrl: api.server.url, apiKey: 'wrong' });
    await expect(stranger.createAgentVPNConnection(agent.id, { allowed_ip: '203.0.113.7', routing_policy: 'local' })).rejects.toBeInstanceOf(MonitoringAuthError);
    await expect(stranger.getConnectionConsumption(agent.id)).rejects.toBeInstanceOf(MonitoringAuthError);
    await stranger.close();
    expect(await activity('vpn_session_start')).toHaveLength(before);
  });
});
