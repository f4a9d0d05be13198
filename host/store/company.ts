// The company an account belongs to: its areas, their teams, the teams' leaders, and which team
// each agent is under. The API key's user is user 1 (the owner). An account starts with one
// area (1, "Main area"); teams and areas an embedder wrote into an agent's extra.team are listed
// beside those made through the API, so the agent list and the company always agree.
import { parseJsonColumn } from './json-column.js';
import type { Store } from './store.js';

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
function teamsNamedByAgents(store: Store): Map<number, TeamRow> {
  const found = new Map<number, TeamRow>();
  const rows = store
    .statement<[], { extra: string }>(`SELECT extra FROM agents WHERE json_valid(extra) AND json_type(extra, '$.team.id') = 'integer' ORDER BY id`)
    .all();
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

function allTeams(store: Store): TeamRow[] {
  const teams = teamsNamedByAgents(store);
  const made = store
    .statement<[], { id: number; area_id: number; name: string; leader_id: number | null }>('SELECT id, area_id, name, leader_id FROM teams')
    .all();
  for (const t of made) teams.set(t.id, { id: t.id, areaId: t.area_id, name: t.name, leaderId: t.leader_id });
  return [...teams.values()].sort((a, b) => a.id - b.id);
}

/** The areas, by id: those stored and those the agents' teams are in. */
export function listAreas(store: Store): AreaRow[] {
  const areas = new Map<number, AreaRow>();
  for (const team of allTeams(store)) areas.set(team.areaId, { id: team.areaId, name: `Area ${team.areaId}` });
  for (const area of store.statement<[], AreaRow>('SELECT id, name FROM areas').all()) areas.set(area.id, area);
  return [...areas.values()].sort((a, b) => a.id - b.id);
}

export function getArea(store: Store, areaId: number): AreaRow | undefined {
  return listAreas(store).find((a) => a.id === areaId);
}

/** The teams of an area, by id. */
export function listTeams(store: Store, areaId: number): TeamRow[] {
  return allTeams(store).filter((t) => t.areaId === areaId);
}

export function getTeam(store: Store, teamId: number): TeamRow | undefined {
  return allTeams(store).find((t) => t.id === teamId);
}

/**
 * Makes a team in an area with a new leader user. Team names are unique within an area and
 * user names in the account (case-insensitive); the caller checks that the area exists.
 */
export function createTeam(store: Store, areaId: number, name: string, leader: NewTeamLeader): CreateTeamResult {
  return store.transaction(() => {
    if (listTeams(store, areaId).some((t) => t.name.toLowerCase() === name.toLowerCase())) return { ok: false, reason: 'TEAM_EXISTS' };
    if (store.statement<[string], { id: number }>('SELECT id FROM users WHERE name = ?').get(leader.name)) return { ok: false, reason: 'LEADER_EXISTS' };
    // An area only the agents name becomes a stored one, so the team can reference it.
    const area = getArea(store, areaId);
    if (area) store.statement('INSERT OR IGNORE INTO areas (id, name) VALUES (?, ?)').run(area.id, area.name);
    // User 1 is the owner; leaders come after it.
    const leaderId = Number(
      store
        .statement('INSERT INTO users (id, name, display_name, creation_time) VALUES ((SELECT max(?, coalesce(max(id), 0)) + 1 FROM users), ?, ?, ?)')
        .run(OWNER_USER_ID, leader.name, leader.displayName, store.now()).lastInsertRowid,
    );
    // After every team id in use, those only agents name included.
    const teamId = Math.max(0, ...allTeams(store).map((t) => t.id)) + 1;
    store.statement('INSERT INTO teams (id, area_id, name, leader_id) VALUES (?, ?, ?, ?)').run(teamId, areaId, name, leaderId);
    return { ok: true, team: { id: teamId, areaId, name, leaderId } };
  });
}

/** Stores the teams (and areas) only agents name, so they outlive the agents leaving them. */
function keepTeamsNamedByAgents(store: Store): void {
  for (const team of teamsNamedByAgents(store).values()) {
    store.statement(`INSERT OR IGNORE INTO areas (id, name) VALUES (?, 'Area ' || ?)`).run(team.areaId, team.areaId);
    store.statement('INSERT OR IGNORE INTO teams (id, area_id, name, leader_id) VALUES (?, ?, ?, ?)').run(team.id, team.areaId, team.name, team.leaderId);
  }
}

/** Puts an agent under a team: its extra.team (what the agent record shows) names the team. */
export function moveAgentToTeam(store: Store, agentId: number, team: TeamRow): void {
  store.transaction(() => keepTeamsNamedByAgents(store));
  const shown = { area: { id: team.areaId }, id: team.id, ...(team.leaderId !== null ? { leader_id: team.leaderId } : {}), name: team.name };
  store
    .statement(`UPDATE agents SET extra = json_set(CASE WHEN json_valid(extra) THEN extra ELSE '{}' END, '$.team', json(?)) WHERE id = ?`)
    .run(JSON.stringify(shown), agentId);
}
