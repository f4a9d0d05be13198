// Client methods of the variables operations.
import type { ClientCore, Query } from './core.js';
import type {
  AgentDeviceVariable,
  AgentDeviceVariableListQuery,
  Variable,
  VariableFilterQuery,
  VariableHistoryQuery,
  VariableHistorySample,
  VariableListQuery,
} from '../schemas/variables.js';

export const variableOperations = {
  listAgentDeviceVariables(this: ClientCore, agentId: number, query: AgentDeviceVariableListQuery = {}): Promise<AgentDeviceVariable[]> {
    return this.call('listAgentDeviceVariables', 'GET', this.fillPath('/agent/{agent_id}/device/variable', { agent_id: agentId }), { query: query as Query });
  },

  countAgentDeviceVariables(this: ClientCore, agentId: number, query: VariableFilterQuery = {}): Promise<number> {
    return this.count('countAgentDeviceVariables', this.fillPath('/agent/{agent_id}/device/variable', { agent_id: agentId }), query as Query);
  },

  listDeviceVariables(this: ClientCore, agentId: number, deviceId: number, query: VariableListQuery = {}): Promise<Variable[]> {
    return this.call('listDeviceVariables', 'GET', this.fillPath('/agent/{agent_id}/device/{device_id}/variable', { agent_id: agentId, device_id: deviceId }), {
      query: query as Query,
    });
  },

  countDeviceVariables(this: ClientCore, agentId: number, deviceId: number, query: VariableFilterQuery = {}): Promise<number> {
    return this.count('countDeviceVariables', this.fillPath('/agent/{agent_id}/device/{device_id}/variable', { agent_id: agentId, device_id: deviceId }), query as Query);
  },

  getVariableHistory(this: ClientCore, agentId: number, deviceId: number, variableId: number, query: VariableHistoryQuery = {}): Promise<VariableHistorySample[]> {
    const path = this.fillPath('/agent/{agent_id}/device/{device_id}/variable/{variable_id}/history', {
      agent_id: agentId,
      device_id: deviceId,
      variable_id: variableId,
    });
    return this.call('getVariableHistory', 'GET', path, { query: { ...query } });
  },

  listAgentVariables(this: ClientCore, agentId: number, query: VariableListQuery = {}): Promise<Variable[]> {
    return this.call('listAgentVariables', 'GET', this.fillPath('/agent/{agent_id}/variable', { agent_id: agentId }), { query: query as Query });
  },

  countAgentVariables(this: ClientCore, agentId: number, query: VariableFilterQuery = {}): Promise<number> {
    return this.count('countAgentVariables', this.fillPath('/agent/{agent_id}/variable', { agent_id: agentId }), query as Query);
  },

  getAgentVariableHistory(this: ClientCore, agentId: number, variableId: number, query: VariableHistoryQuery = {}): Promise<VariableHistorySample[]> {
    const path = this.fillPath('/agent/{agent_id}/variable/{variable_id}/history', { agent_id: agentId, variable_id: variableId });
    return this.call('getAgentVariableHistory', 'GET', path, { query: { ...query } });
  },
};
