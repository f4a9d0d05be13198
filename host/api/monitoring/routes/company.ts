// The company (tag "company", reference 1.14.0): its areas, the teams of an area, making a team
// with its leader, and moving an agent under a team. An account starts with one area; the
// teams agents already name are listed (see host/store/account/company.ts). The cloud keeps these to
// Enterprise Plan users; the local server's user is a company user, so they are always served.
import type { FastifyInstance } from 'fastify';
import { createTeam, getArea, getTeam, listAreas, listTeams, moveAgentToTeam } from '../../../store/account/company.js';
import type { Store } from '../../../store/store.js';
import { requireAgent } from '../access.js';
import { conflict, notFound } from '../api-error.js';
import type { ApiContext } from '../context.js';
import { idParams, type ApiRouteSchema } from '../route-schema.js';
import { areaSchema, teamCreationSchema, teamSchema, type Area, type Team, type TeamCreation } from '../schemas/company.js';

const TAGS = ['company'];

async function requireArea(store: Store, areaId: number): Promise<void> {
  if (!await getArea(store, areaId)) throw notFound('area', areaId);
}

export function registerCompanyRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { store } = ctx;

  const areas: ApiRouteSchema = {
    operationId: 'listAreas',
    tags: TAGS,
    summary: 'Returns all the areas of the Company',
    description: 'By id. An account starts with one area (1, "Main area").',
    response: { 200: { type: 'array', items: areaSchema } },
  };
  app.get('/area', { schema: areas }, async (): Promise<Area[]> => (await listAreas(store)).map((a) => ({ id: a.id, name: a.name })));

  const teams: ApiRouteSchema = {
    operationId: 'listTeams',
    tags: TAGS,
    summary: 'Returns all the teams of an Area',
    description: 'By id.',
    params: idParams('area_id'),
    response: { 200: { type: 'array', items: teamSchema } },
  };
  app.get<{ Params: { area_id: number } }>('/area/:area_id/team', { schema: teams }, async (request): Promise<Team[]> => {
    await requireArea(store, request.params.area_id);
    return (await listTeams(store, request.params.area_id)).map((t) => ({ id: t.id, name: t.name }));
  });

  const create: ApiRouteSchema = {
    operationId: 'createTeam',
    tags: TAGS,
    summary: 'Creates a new Team, with a new user as its leader',
    description: "409 when the area has a team of that name, or a user has the leader's name (both case-insensitive). The password is checked, not kept.",
    params: idParams('area_id'),
    body: teamCreationSchema,
    response: { 201: { type: 'null' } },
  };
  app.post<{ Params: { area_id: number }; Body: TeamCreation }>('/area/:area_id/team', { schema: create }, async (request, reply) => {
    const areaId = request.params.area_id;
    await requireArea(store, areaId);
    const { name, leader } = request.body;
    const made = await createTeam(store, areaId, name, { name: leader.name, displayName: leader.details.display_name });
    if (!made.ok) {
      throw conflict(made.reason === 'TEAM_EXISTS' ? `area ${areaId} has a team named ${name}` : `a user named ${leader.name} exists`);
    }
    return reply.code(201).send();
  });

  const move: ApiRouteSchema = {
    operationId: 'moveAgent',
    tags: TAGS,
    summary: 'Moves an agent under the control of a different team',
    description: "The agent's `team` (area, id, leader_id, name) then names the team, and listAgents' team_name finds it.",
    params: idParams('agent_id', 'team_id'),
    response: { 204: { type: 'null' } },
  };
  app.put<{ Params: { agent_id: number; team_id: number } }>('/agent/:agent_id/ownership/team/:team_id', { schema: move }, async (request, reply) => {
    const agent = await requireAgent(store, request.params.agent_id);
    const team = await getTeam(store, request.params.team_id);
    if (!team) throw notFound('team', request.params.team_id);
    await moveAgentToTeam(store, agent.id, team);
    return reply.code(204).send();
  });
}
