// Company and user operations of MonitoringClient.
import type { Area, Team, TeamCreation, User } from '../schemas/company.js';
import type { ClientCore } from './core.js';

export type { Area, Team, TeamCreation, User };

export const companyOperations = {
  listAreas(this: ClientCore): Promise<Area[]> {
    return this.call('listAreas', 'GET', '/area');
  },
  listTeams(this: ClientCore, areaId: number): Promise<Team[]> {
    return this.call('listTeams', 'GET', this.fillPath('/area/{area_id}/team', { area_id: areaId }));
  },
  /** Answers nothing (201): listTeams shows the new team. */
  createTeam(this: ClientCore, areaId: number, body: TeamCreation): Promise<void> {
    return this.call('createTeam', 'POST', this.fillPath('/area/{area_id}/team', { area_id: areaId }), { body });
  },
  moveAgent(this: ClientCore, agentId: number, teamId: number): Promise<void> {
    return this.call('moveAgent', 'PUT', this.fillPath('/agent/{agent_id}/ownership/team/{team_id}', { agent_id: agentId, team_id: teamId }));
  },
  getUser(this: ClientCore): Promise<User> {
    return this.call('getUser', 'GET', '/user');
  },
};
