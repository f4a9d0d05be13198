// Agents: the collectors devices belong to. A driverbox process is itself an agent (the
// "local agent"), which devices reported from `driverbox run --report` and the Public API
// belong to unless another is named.
import { readFileSync } from 'node:fs';
import { packagePath } from '../../package-path.js';
import { parseJsonColumn } from '../db/json-column.js';
import { jsonText } from '../db/sql-json.js';
import type { Store } from '../store.js';

export type AgentStatus = 'ONLINE' | 'OFFLINE';
export type AgentAccessStatus = 'OWNED' | 'PROPOSED' | 'GRANTED' | 'ASSIGNED';

export interface AgentRow {
  id: number;
  displayName: string;
  creationTime: number;
  status: AgentStatus;
  statusLastChange: number;
  apiEnabled: boolean;
  accessStatus: AgentAccessStatus;
  grantingUser: string | null;
  timezone: string;
  listenOn: string | null;
  agentVersion: string | null;
  packageVersion: string | null;
  enterprisePlan: boolean;
  /** installation_info, licence, location, organization, team, as the API shows them. */
  extra: Record<string, unknown>;
}

export interface NewAgent {
  displayName: string;
  status?: AgentStatus;
  apiEnabled?: boolean;
  accessStatus?: AgentAccessStatus;
  grantingUser?: string | null;
  timezone?: string;
  listenOn?: string | null;
  agentVersion?: string | null;
  packageVersion?: string | null;
  enterprisePlan?: boolean;
  extra?: Record<string, unknown>;
}

interface AgentDbRow {
  id: number;
  display_name: string;
  creation_time: number;
  status: AgentStatus;
  status_last_change: number;
  api_enabled: number;
  access_status: AgentAccessStatus;
  granting_user: string | null;
  timezone: string;
  listen_on: string | null;
  agent_version: string | null;
  package_version: string | null;
  enterprise_plan: number;
  extra: string;
}

export function agentFromDb(row: AgentDbRow): AgentRow {
  return {
    id: row.id,
    displayName: row.display_name,
    creationTime: row.creation_time,
    status: row.status,
    statusLastChange: row.status_last_change,
    apiEnabled: row.api_enabled === 1,
    accessStatus: row.access_status,
    grantingUser: row.granting_user,
    timezone: row.timezone,
    listenOn: row.listen_on,
    agentVersion: row.agent_version,
    packageVersion: row.package_version,
    enterprisePlan: row.enterprise_plan === 1,
    extra: parseJsonColumn<Record<string, unknown>>(row.extra, {}),
  };
}

export async function createAgentRecord(store: Store, input: NewAgent): Promise<AgentRow> {
  const now = store.now();
  const info = await store
    .statement(
      `INSERT INTO agents (display_name, creation_time, status, status_last_change, api_enabled, access_status,
         granting_user, timezone, listen_on, agent_version, package_version, enterprise_plan, extra)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .insert(
      input.displayName,
      now,
      input.status ?? 'ONLINE',
      now,
      input.apiEnabled === false ? 0 : 1,
      input.accessStatus ?? 'OWNED',
      input.grantingUser ?? null,
      input.timezone ?? 'UTC',
      input.listenOn ?? null,
      input.agentVersion ?? null,
      input.packageVersion ?? null,
      input.enterprisePlan ? 1 : 0,
      JSON.stringify(input.extra ?? {}),
    );
  return (await getAgent(store, info))!;
}

export async function getAgent(store: Store, id: number): Promise<AgentRow | undefined> {
  const row = await store.statement<[number], AgentDbRow>('SELECT * FROM agents WHERE id = ?').get(id);
  return row ? agentFromDb(row) : undefined;
}

/** driverbox's own version: the local agent's version.agent and version.package. */
function driverboxVersion(): string | null {
  const file = packagePath('package.json');
  if (!file) return null;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

/** The agent that stands for this driverbox process: made on first use, remembered in meta. */
export async function ensureLocalAgent(store: Store, displayName = 'driverbox'): Promise<AgentRow> {
  return await store.transaction(async () => {
    // Several agents starting on one shared store at once make one local agent between them.
    await store.lock('local-agent');
    const known = await store.statement<[], { value: string }>(`SELECT value FROM meta WHERE key = 'local_agent_id'`).get();
    if (known) {
      const agent = await getAgent(store, Number(known.value));
      if (agent) return agent;
    }
    const version = driverboxVersion();
    const agent = await createAgentRecord(store, { displayName, agentVersion: version, packageVersion: version });
    await store.statement(`INSERT INTO meta (key, value) VALUES ('local_agent_id', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(String(agent.id));
    return agent;
  });
}

export interface AgentFilter {
  /** Case-insensitive "contains" on display_name. */
  displayName?: string;
  /** Equality (case-insensitive) on the team name kept in extra.team.name. */
  teamName?: string;
}

// One WHERE clause for both the list and its count, so the count is the list's length. The
// user's text is matched literally: '%', '_' and '\\' are escaped for LIKE.
function agentFilter(store: Store, filter: AgentFilter): { sql: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.displayName != null) {
    clauses.push("lower(display_name) LIKE lower(?) ESCAPE '\\'");
    params.push(`%${filter.displayName.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (filter.teamName != null) {
    clauses.push(`lower(${jsonText(store.dialect, 'extra', ['team', 'name'])}) = lower(?)`);
    params.push(filter.teamName);
  }
  return { sql: clauses.length ? clauses.join(' AND ') : '1 = 1', params };
}

export async function listAgents(store: Store, filter: AgentFilter = {}, page: { limit: number; offset: number } = { limit: Number.MAX_SAFE_INTEGER, offset: 0 }): Promise<AgentRow[]> {
  const where = agentFilter(store, filter);
  return (await store
    .statement<unknown[], AgentDbRow>(`SELECT * FROM agents WHERE ${where.sql} ORDER BY id LIMIT ? OFFSET ?`)
    .all(...where.params, page.limit, page.offset))
    .map(agentFromDb);
}

export async function countAgents(store: Store, filter: AgentFilter = {}): Promise<number> {
  const where = agentFilter(store, filter);
  return (await store.statement<unknown[], { n: number }>(`SELECT count(*) AS n FROM agents WHERE ${where.sql}`).get(...where.params))!.n;
}

/** Deletes an agent with everything it holds (devices, variables, histories… by cascade). */
export async function deleteAgent(store: Store, id: number): Promise<boolean> {
  return (await store.statement('DELETE FROM agents WHERE id = ?').run(id)).changes > 0;
}

/** What `driverbox agents set` may change: the plan and the access right the API shows. */
export interface AgentAccessChange {
  enterprisePlan?: boolean;
  apiEnabled?: boolean;
  accessStatus?: AgentAccessStatus;
  /** null removes it. */
  grantingUser?: string | null;
}

export const AGENT_ACCESS_STATUSES: readonly AgentAccessStatus[] = ['OWNED', 'PROPOSED', 'GRANTED', 'ASSIGNED'];

/** Changes the given fields of an agent's plan and access right; undefined when there is no such agent. */
export async function setAgentAccess(store: Store, id: number, change: AgentAccessChange): Promise<AgentRow | undefined> {
  const agent = await getAgent(store, id);
  if (!agent) return undefined;
  await store
    .statement('UPDATE agents SET enterprise_plan = ?, api_enabled = ?, access_status = ?, granting_user = ? WHERE id = ?')
    .run(
      (change.enterprisePlan ?? agent.enterprisePlan) ? 1 : 0,
      (change.apiEnabled ?? agent.apiEnabled) ? 1 : 0,
      change.accessStatus ?? agent.accessStatus,
      change.grantingUser === undefined ? agent.grantingUser : change.grantingUser,
      id,
    );
  return getAgent(store, id);
}
