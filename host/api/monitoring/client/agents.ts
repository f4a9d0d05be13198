// Agents operations of MonitoringClient (tag "agent").
import type { Agent, AgentDetail, AgentListQuery } from '../schemas/agents.js';
import type { ClientCore } from './core.js';

export const agentOperations = {
  /** One page of agents (page_size 1–100, default 10); display_name filters case-insensitively. */
  listAgents(this: ClientCore, query?: AgentListQuery): Promise<Agent[]> {
    return this.call('listAgents', 'GET', '/agent', { query: { ...query } });
  },
  countAgents(this: ClientCore, query?: Pick<AgentListQuery, 'display_name' | 'team_name'>): Promise<number> {
    return this.count('countAgents', '/agent', { ...query });
  },
  getAgent(this: ClientCore, agentId: number): Promise<AgentDetail> {
    return this.call('getAgent', 'GET', this.fillPath('/agent/{agent_id}', { agent_id: agentId }));
  },
  deleteAgent(this: ClientCore, agentId: number): Promise<void> {
    return this.call('deleteAgent', 'DELETE', this.fillPath('/agent/{agent_id}', { agent_id: agentId }));
  },
};
