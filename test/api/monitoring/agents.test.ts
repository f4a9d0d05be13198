// Agents through MonitoringClient against a real server: list paging and filters, counts,
// detail records, delete, and the 403 of agents without API access.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { listAll, MonitoringApiError, MonitoringNotFoundError, MonitoringValidationError } from '../../../host/api/monitoring/client/index.js';
import { createAgentRecord, ensureLocalAgent, type AgentRow } from '../../../host/store/fleet/agents.js';
import { createDevice } from '../../../host/store/fleet/devices.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';

const api = await startMonitoringFixture();
const { client, store } = api;

// 23 agents: the local one, 20 "site-NN", a "Warehouse" of team "Blue", and one without API access.
const local = await ensureLocalAgent(store);
const sites: AgentRow[] = [];
for (let i = 0; i < 20; i++) sites.push(await createAgentRecord(store, { displayName: `site-${String(i).padStart(2, '0')}` }));
const warehouse = await createAgentRecord(store, {
  displayName: 'Warehouse 100%_off',
  status: 'OFFLINE',
  accessStatus: 'GRANTED',
  grantingUser: 'owner@example.com',
  timezone: 'Europe/Rome',
  listenOn: '192.168.1.5:3000',
  agentVersion: '5.2.1',
  packageVersion: '5.2.1-2',
  extra: {
    installation_info: { contract_id: 'C-1', customer_id: 'K-9' },
    licence: { id: 77, code: 'LIC-77', activation_time: '2025-01-01T00:00:00', expiration_time: '2027-01-01T00:00:00', bound_mac_address: '00:11:22:33:44:55' },
    location: { latitude: '45.46', longitude: '9.19' },
    organization: { id: 3, name: 'Acme' },
    team: { id: 4, name: 'Blue', leader_id: 8, area: { id: 2 } },
  },
});
const locked = await createAgentRecord(store, { displayName: 'no-api site', apiEnabled: false });

describe('listAgents and countAgents', () => {
  it('pages 10 at a time by default, and a last short page, and an empty page past the end', async () => {
    const first = await client.listAgents();
    expect(first.map((a) => a.id)).toEqual([local.id, ...sites.slice(0, 9).map((a) => a.id)]);
    const third = await client.listAgents({ page_number: 2 });
    expect(third.map((a) => a.display_name)).toEqual(['site-19', 'Warehouse 100%_off', 'no-api site']);
    expect(await client.listAgents({ page_number: 3 })).toEqual([]);
    expect(await client.listAgents({ page_size: 100 })).toHaveLength(23);
    expect(await client.listAgents({ page_size: 1, page_number: 22 })).toMatchObject([{ id: locked.id }]);
  });

  it('counts what the list holds, with and without filters', async () => {
    expect(await client.countAgents()).toBe(23);
    expect((await listAll((q) => client.listAgents(q), {}, 7)).length).toBe(23);
    expect(await client.countAgents({ display_name: 'SITE-1' })).toBe(10);
    expect(await client.listAgents({ display_name: 'SITE-1', page_size: 100 })).toHaveLength(10);
    expect(await client.countAgents({ display_name: 'nothing like it' })).toBe(0);
  });

  it('matches display_name literally and case-insensitively, team_name by equality', async () => {
    expect((await client.listAgents({ display_name: '100%_' })).map((a) => a.id)).toEqual([warehouse.id]);
    expect(await client.listAgents({ display_name: '%' })).toHaveLength(1);
    expect((await client.listAgents({ team_name: 'blue' })).map((a) => a.id)).toEqual([warehouse.id]);
    expect(await client.countAgents({ team_name: 'Blu' })).toBe(0);
  });

  it('lists agents without API access, saying so in access_right', async () => {
    const [agent] = await client.listAgents({ display_name: 'no-api' });
    expect(agent?.access_right).toEqual({ api_enabled: false, status: 'OWNED' });
  });

  it('clamps a page size past 100 to 100; refuses one under 1 and negative pages with 422 naming the parameter', async () => {
    expect(await client.listAgents({ page_size: 101 })).toHaveLength(23);
    for (const query of [{ page_size: 0 }, { page_number: -1 }]) {
      const error = await client.listAgents(query).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MonitoringValidationError);
      expect((error as MonitoringValidationError).detail[0]?.loc).toEqual(['query', Object.keys(query)[0]]);
    }
    const text = await client.listAgents({ page_size: 'ten' as unknown as number }).catch((e: unknown) => e);
    expect((text as MonitoringValidationError).status).toBe(422);
  });
});

describe('getAgent', () => {
  it('answers the full record, with listen_on', async () => {
    const agent = await client.getAgent(warehouse.id);
    expect(agent).toEqual({
      id: warehouse.id,
      display_name: 'Warehouse 100%_off',
      creation_time: '2026-01-15T12:00:00',
      access_right: { api_enabled: true, granting_user: { name: 'owner@example.com' }, status: 'GRANTED' },
      status: { value: 'OFFLINE', last_change: '2026-01-15T12:00:00' },
      version: { agent: '5.2.1', package: '5.2.1-2' },
      timezone: 'Europe/Rome',
      installation_info: { contract_id: 'C-1', customer_id: 'K-9' },
      licence: { id: 77, code: 'LIC-77', activation_time: '2025-01-01T00:00:00', expiration_time: '2027-01-01T00:00:00', bound_mac_address: '00:11:22:33:44:55' },
      location: { latitude: '45.46', longitude: '9.19' },
      organization: { id: 3, name: 'Acme' },
      team: { id: 4, name: 'Blue', leader_id: 8, area: { id: 2 } },
      listen_on: '192.168.1.5:3000',
    });
  });

  it('answers the list item without listen_on; the local agent carries the driverbox version, others null when unknown', async () => {
    const [item] = await client.listAgents({ display_name: 'Warehouse' });
    expect(item).not.toHaveProperty('listen_on');
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    const detail = await client.getAgent(local.id);
    expect(detail).toMatchObject({ display_name: 'driverbox', version: { agent: version, package: version }, status: { value: 'ONLINE' } });
    expect(detail).not.toHaveProperty('listen_on'); // unknown: left out, never null (reference 1.14.0)
    expect((await client.getAgent(sites[0]!.id)).version).toEqual({});
  });

  it('answers 404 for an unknown agent and 422 for a non-integer id', async () => {
    const missing = await client.getAgent(999).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MonitoringNotFoundError);
    expect((missing as MonitoringNotFoundError).body).toEqual({ status: 404, code: 'NOT_FOUND', message: 'agent 999 not found' });
    const res = await request(`${api.server.url}/public-api/v1/agent/abc`, { headers: { 'x-api-key': TEST_API_KEY } });
    expect(res.statusCode).toBe(422);
    expect(await res.body.json()).toMatchObject({ code: 'VALIDATION_ERROR', detail: [{ loc: ['path', 'agent_id'] }] });
  });
});

describe('agents without API access', () => {
  it('answer 403 with a JSON body on every operation but the list and the count', async () => {
    const device = await createDevice(store, locked.id, { displayName: 'hidden behind the plan', ip: '10.9.9.9' });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getAgent', () => client.getAgent(locked.id)],
      ['deleteAgent', () => client.deleteAgent(locked.id)],
      ['listDevices', () => client.listDevices(locked.id)],
      ['getDevice', () => client.getDevice(locked.id, device.id)],
      ['getAgentUptime', () => client.getAgentUptime(locked.id)],
      ['getAgentStatusHistory', () => client.getAgentStatusHistory(locked.id)],
      ['editDevice', () => client.editDevice(locked.id, device.id, 'details/room', 'R1')],
    ];
    for (const [name, call] of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(MonitoringApiError);
      expect((error as MonitoringApiError).status, name).toBe(403);
      expect((error as MonitoringApiError).body, name).toEqual({
        status: 403,
        code: 'API_ACCESS_DISABLED',
        message: `agent ${locked.id} does not allow API access (access_right.api_enabled is false)`,
      });
    }
    expect((await client.listAgents({ display_name: 'no-api' })).length).toBe(1);
    expect(await client.countAgents({ display_name: 'no-api' })).toBe(1);
  });
});

describe('deleteAgent', () => {
  it('deletes the agent and its devices; then it is 404', async () => {
    const doomed = await createAgentRecord(store, { displayName: 'doomed' });
    const device = await createDevice(store, doomed.id, { displayName: 'goes too', ip: '10.0.0.1' });
    const before = await client.countAgents();
    await client.deleteAgent(doomed.id);
    expect(await client.countAgents()).toBe(before - 1);
    await expect(client.getAgent(doomed.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
    expect(await store.statement('SELECT count(*) AS n FROM devices WHERE id = ?').get(device.id)).toEqual({ n: 0 });
    await expect(client.deleteAgent(doomed.id)).rejects.toBeInstanceOf(MonitoringNotFoundError);
  });
});
