// The company (areas, teams, moving agents) and the user (reference 1.14.0) through
// MonitoringClient against a real server, each 2xx answer validated against the reference.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MonitoringApiError, MonitoringClient } from '../../../host/api/monitoring/client/index.js';
import { startMonitoringServer } from '../../../host/api/monitoring/server.js';
import { createAgentRecord } from '../../../host/store/fleet/agents.js';
import { listAlertProfiles } from '../../../host/store/account/alert-profiles.js';
import { openDatabase } from '../../../host/store/db/better-sqlite3.js';
import { listAreas, listTeams } from '../../../host/store/account/company.js';
import { openStore } from '../../../host/store/index.js';
import { migrations, schemaVersion } from '../../../host/store/db/migrations.js';
import { startMonitoringFixture, TEST_API_KEY } from '../../helpers/monitoring.js';
import { expectReferenceBody, referenceErrors } from '../../helpers/reference-schema.js';
import { rawMigration } from '../../helpers/store.js';

const api = await startMonitoringFixture();
const { client, store } = api;
const branch = await createAgentRecord(store, { displayName: 'branch office' });
// An agent an embedder put in a team of its own: that team and its area are the company's too.
const noc = await createAgentRecord(store, { displayName: 'noc', extra: { team: { area: { id: 5 }, id: 40, leader_id: 9, name: 'NOC' } } });
const locked = await createAgentRecord(store, { displayName: 'no api', apiEnabled: false });

async function failure(promise: Promise<unknown>): Promise<MonitoringApiError> {
  const error = (await promise.catch((e: unknown) => e)) as MonitoringApiError;
  expect(error).toBeInstanceOf(MonitoringApiError);
  return error;
}

const leader = (name: string) => ({ name, password: 's3cret!', details: { display_name: `${name} (leader)` } });

describe('areas and teams', () => {
  it('listAreas: the main area, and the areas agents name', async () => {
    const areas = await client.listAreas();
    expect(areas).toEqual([
      { id: 1, name: 'Main area' },
      { id: 5, name: 'Area 5' },
    ]);
    expectReferenceBody('listAreas', areas);
  });

  it('listTeams: none in the main area yet; the team an agent names in its area', async () => {
    const main = await client.listTeams(1);
    expect(main).toEqual([]);
    expectReferenceBody('listTeams', main);
    const five = await client.listTeams(5);
    expect(five).toEqual([{ id: 40, name: 'NOC' }]);
    expectReferenceBody('listTeams', five);
  });

  it('createTeam answers 201; the team is listed in its area, after every team id in use', async () => {
    await expect(client.createTeam(1, { name: 'Field engineers', leader: leader('alice') })).resolves.toBeUndefined();
    await client.createTeam(5, { name: 'Night shift', leader: leader('bob') });
    expect(await client.listTeams(1)).toEqual([{ id: 41, name: 'Field engineers' }]);
    expect(await client.listTeams(5)).toEqual([
      { id: 40, name: 'NOC' },
      { id: 42, name: 'Night shift' },
    ]);
    // The leader is a user of the account, the password is not kept.
    expect(await store.statement('SELECT * FROM users ORDER BY id').all()).toEqual([
      { id: 2, name: 'alice', display_name: 'alice (leader)', creation_time: api.clock.now },
      { id: 3, name: 'bob', display_name: 'bob (leader)', creation_time: api.clock.now },
    ]);
    // An area only an agent named is a stored one now.
    expect(await client.listAreas()).toEqual([
      { id: 1, name: 'Main area' },
      { id: 5, name: 'Area 5' },
    ]);
  });

  it('409 for a team name the area has, or a leader name a user has (case-insensitive)', async () => {
    const team = await failure(client.createTeam(1, { name: 'FIELD ENGINEERS', leader: leader('carol') }));
    expect(team.status).toBe(409);
    expect(team.body).toEqual({ status: 409, code: 'CONFLICT', message: 'area 1 has a team named FIELD ENGINEERS' });
    const user = await failure(client.createTeam(1, { name: 'Other', leader: leader('Alice') }));
    expect(user.body).toEqual({ status: 409, code: 'CONFLICT', message: 'a user named Alice exists' });
    // The same team name in another area is another team.
    await client.createTeam(5, { name: 'Field engineers', leader: leader('carol') });
    expect((await client.listTeams(5)).map((t) => t.name)).toEqual(['NOC', 'Night shift', 'Field engineers']);
  });

  it('422 for a body without a leader, an empty name, a leader without details or password', async () => {
    const noLeader = await failure(client.createTeam(1, { name: 'x' } as never));
    expect(noLeader.status).toBe(422);
    expect((noLeader.body as { detail: unknown }).detail).toEqual([{ loc: ['body', 'leader'], msg: 'field required', type: 'required' }]);
    const bad = await failure(client.createTeam(1, { name: '', leader: { name: 'dave', details: {} } } as never));
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: Array<{ loc: unknown[] }> }).detail.map((d) => d.loc.join('.')).sort()).toEqual([
      'body.leader.details.display_name',
      'body.leader.password',
      'body.name',
    ]);
    expect((await client.listTeams(1)).map((t) => t.name)).toEqual(['Field engineers']);
  });

  it('404 for an unknown area', async () => {
    const e = await failure(client.listTeams(77));
    expect(e.status).toBe(404);
    expect(e.body).toEqual({ status: 404, code: 'NOT_FOUND', message: 'area 77 not found' });
    expect((await failure(client.createTeam(77, { name: 'x', leader: leader('erin') }))).status).toBe(404);
  });
});

describe('moveAgent', () => {
  it("puts the agent under the team: its record names the team, and listAgents' team_name finds it", async () => {
    expect((await client.getAgent(branch.id)).team).toBeUndefined();
    await expect(client.moveAgent(branch.id, 41)).resolves.toBeUndefined();
    const agent = await client.getAgent(branch.id);
    expect(agent.team).toEqual({ area: { id: 1 }, id: 41, leader_id: 2, name: 'Field engineers' });
    // The team as the reference shapes it (the rest of the agent record is the agents group's).
    expect(referenceErrors('getAgent', agent).filter((e) => e.startsWith('/team'))).toEqual([]);
    expect((await client.listAgents({ team_name: 'field engineers' })).map((a) => a.id)).toEqual([branch.id]);
  });

  it('moves an agent between teams, to a team only agents name too', async () => {
    await client.moveAgent(noc.id, 42);
    expect((await client.getAgent(noc.id)).team).toEqual({ area: { id: 5 }, id: 42, leader_id: 3, name: 'Night shift' });
    // Team 40 was only named by that agent: it stays, though no agent is in it now.
    expect((await client.listTeams(5)).map((t) => t.id)).toEqual([40, 42, 43]);
    await client.moveAgent(branch.id, 42);
    expect((await client.listAgents({ team_name: 'Night shift' })).map((a) => a.id).sort()).toEqual([branch.id, noc.id]);
  });

  it('404 for an unknown team or agent; 403 for an agent without API access', async () => {
    const team = await failure(client.moveAgent(branch.id, 999));
    expect(team.body).toEqual({ status: 404, code: 'NOT_FOUND', message: 'team 999 not found' });
    expect((await failure(client.moveAgent(99999, 41))).status).toBe(404);
    expect((await failure(client.moveAgent(locked.id, 41))).status).toBe(403);
    expect((await client.getAgent(branch.id)).team?.id).toBe(42);
  });
});

describe('getUser', () => {
  it("answers the API key's user: id 1, named by the server's user option", async () => {
    const user = await client.getUser();
    expect(user).toEqual({ id: 1, name: 'api' });
    expectReferenceBody('getUser', user);
    const named = await startMonitoringServer({ store, apiKeys: [TEST_API_KEY], user: 'ops@example.com' });
    const namedClient = new MonitoringClient({ baseUrl: named.url, apiKey: TEST_API_KEY });
    try {
      expect(await namedClient.getUser()).toEqual({ id: 1, name: 'ops@example.com' });
    } finally {
      await namedClient.close();
      await named.close();
    }
  });
});

describe('migration 4 (inventory, company and alert profiles)', () => {
  it('upgrades a version 3 store in place: its agents keep their teams, which the company lists; the catalogue is there', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'driverbox-migrate-4-')), 'v3.db');
    const raw = openDatabase(file);
        for (const m of migrations.filter((m) => m.version <= 3)) await m.up(rawMigration(raw));
    raw.pragma('user_version = 3');
    raw
      .prepare("INSERT INTO agents (display_name, creation_time, status_last_change, extra) VALUES ('old site', 1000, 1000, ?)")
      .run(JSON.stringify({ team: { area: { id: 2 }, id: 7, name: 'Legacy' } }));
    raw.close();
    const store = await openStore({ path: file });
    try {
      expect((await schemaVersion(store.kysely, store.dialect))).toBeGreaterThanOrEqual(4);
      expect(await listAreas(store)).toEqual([
        { id: 1, name: 'Main area' },
        { id: 2, name: 'Area 2' },
      ]);
      expect(await listTeams(store, 2)).toEqual([{ id: 7, areaId: 2, name: 'Legacy', leaderId: null }]);
      expect((await listAlertProfiles(store)).map((p) => p.id)).toEqual([1, 2, 3, 4]);
    } finally {
      await store.close();
    }
  });
});
