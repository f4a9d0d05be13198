// The company an account belongs to: its areas, their teams, the teams' leaders, and which team
// each agent is under. The API key's user is user 1 (the owner). An account starts with one
// area (1, "Main area"); teams and areas an embedder wrote into an agent's extra.team are listed
// beside those made through the API, so the agent list and the company always agree.
import { parseJsonColumn } from '../db/json-column.js';
import type { Store } from '../store.js';

/** The user the API key belongs to (it defines inventory fields, owns alert profiles). */
export const OWNER_USER_ID = 1;

export interface AreaRow {
  id: number;
  name: string;
}

export interface TeamRow {
  id: number;
  areaId: number;
  name: string;
  leaderId: number | null;
}

export interface NewTeamLeader {
  name: string;
  displayName: string;
}

export type CreateTeamResult =
  | { ok: true; team: TeamRow }
  | { ok: false; reason: 'TEAM_EXISTS' | 'LEADER_EXISTS' };

interface AgentTeam {
  id?: unknown;
  name?: unknown;
  leader_id?: unknown;
  area?: { id?: unknown };
}

const isId = (value: unknown): value is number => Number.isInteger(value);

/** The teams agents name in extra.team (an embedder's), by id; the first name seen wins. */
async function teamsNamedByAgents(store: Store): Promise<Map<number, TeamRow>> {
  const found = new Map<number, TeamRow>();
  const rows = await store.statement<[], { extra: string }>('SELECT extra FROM agents ORDER BY id').all();
  for (const row of rows) {
    const team = parseJsonColumn<{ team?: AgentTeam }>(row.extra, {}).team;
    if (!team || !isId(team.id) || found.has(team.id)) continue;
    found.set(team.id, {
      id: team.id,
      areaId: isId(team.area?.id) ? team.area.id : 1,
      name: typeof team.name === 'string' ? team.name : `Team ${team.id}`,
      leaderId: isId(team.leader_id) ? team.leader_id : null,
    });
  }
  return found;
}

async function allTeams(store: Store): Promise<TeamRow[]> {
  const teams = await teamsNamedByAgents(store);
  const made = await store
    .statement<[], { id: number; area_id: number; name: string; leader_id: number | null }>('SELECT id, area_id, name, leader_id FROM teams')
    .all();
  for (const t of made) teams.set(t.id, { id: t.id, areaId: t.area_id, name: t.name, leaderId: t.leader_id });
  return [...teams.values()].sort((a, b) => a.id - b.id);
}

/** The areas, by id: those stored and those the agents' teams are in. */
export async function listAreas(store: Store): Promise<AreaRow[]> {
  const areas = new Map<number, AreaRow>();
  for (const team of await allTeams(store)) areas.set(team.areaId, { id: team.areaId, name: `Area ${team.areaId}` });
  for (const area of await store.statement<[], AreaRow>('SELECT id, name FROM areas').all()) areas.set(area.id, area);
  return [...areas.values()].sort((a, b) => a.id - b.id);
}

export async function getArea(store: Store, areaId: number): Promise<AreaRow | undefined> {
  return (await listAreas(store)).find((a) => a.id === areaId);
}

/** The teams of an area, by id. */
export async function listTeams(store: Store, areaId: number): Promise<TeamRow[]> {
  return (await allTeams(store)).filter((t) => t.areaId === areaId);
}

export async function getTeam(store: Store, teamId: number): Promise<TeamRow | undefined> {
  return (await allTeams(store)).find((t) => t.id === teamId);
}

/**
 * Makes a team in an area with a new leader user. Team names are unique within an area and
 * user names in the account (case-insensitive); the caller checks that the area exists.
 */
export async function createTeam(store: Store, areaId: number, name: string, leader: NewTeamLeader): Promise<CreateTeamResult> {
  return await store.transaction(async () => {
    if ((await listTeams(store, areaId)).some((t) => t.name.toLowerCase() === name.toLowerCase())) return { ok: false, reason: 'TEAM_EXISTS' };
    if (await store.statement<[string], { id: number }>('SELECT id FROM users WHERE lower(name) = lower(?)').get(leader.name)) return { ok: false, reason: 'LEADER_EXISTS' };
    // An area only the agents name becomes a stored one, so the team can reference it.
    const area = await getArea(store, areaId);
    if (area) await store.statement('INSERT INTO areas (id, name) VALUES (?, ?) ON CONFLICT DO NOTHING').run(area.id, area.name);
    // User 1 is the owner; leaders come after it.
    const highest = (await store.statement<[], { id: number | null }>('SELECT max(id) AS id FROM users').get())?.id ?? 0;
    const leaderId = Math.max(OWNER_USER_ID, highest) + 1;
    await store.statement('INSERT INTO users (id, name, display_name, creation_time) VALUES (?, ?, ?, ?)').run(leaderId, leader.name, leader.displayName, store.now());
    // After every team id in use, those only agents name included.
    const teamId = Math.max(0, ...(await allTeams(store)).map((t) => t.id)) + 1;
    await store.statement('INSERT INTO teams (id, area_id, name, leader_id) VALUES (?, ?, ?, ?)').run(teamId, areaId, name, leaderId);
    return { ok: true, team: { id: teamId, areaId, name, leaderId } };
  });
}

/** Stores the teams (and areas) only agents name, so they outlive the agents leaving them. */
async function keepTeamsNamedByAgents(store: Store): Promise<void> {
  for (const team of (await teamsNamedByAgents(store)).values()) {
    await store.statement(`INSERT INTO areas (id, name) VALUES (?, 'Area ' || ?) ON CONFLICT DO NOTHING`).run(team.areaId, team.areaId);
    await store.statement('INSERT INTO teams (id, area_id, name, leader_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(team.id, team.areaId, team.name, team.leaderId);
  }
}

/** Puts an agent under a team: its extra.team (what the agent record shows) names the team. */
export async function moveAgentToTeam(store: Store, agentId: number, team: TeamRow): Promise<void> {
  await store.transaction(async () => await keepTeamsNamedByAgents(store));
  const shown = { area: { id: team.areaId }, id: team.id, ...(team.leaderId !== null ? { leader_id: team.leaderId } : {}), name: team.name };
  await store.transaction(async () => {
    const row = await store.statement<[number], { extra: string }>('SELECT extra FROM agents WHERE id = ?').get(agentId);
    if (!row) return;
    const extra = parseJsonColumn<Record<string, unknown>>(row.extra, {});
    await store.statement('UPDATE agents SET extra = ? WHERE id = ?').run(JSON.stringify({ ...extra, team: shown }), agentId);
  });
}
