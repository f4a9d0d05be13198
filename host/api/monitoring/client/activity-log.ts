// Client methods of the activity-log operation.
import type { ClientCore } from './core.js';
import type { ActivityLogEntry, ActivityLogQuery } from '../schemas/activity-log.js';

export const activityLogOperations = {
  /** GET /agent/{agent_id}/activity-log: entries from / to (default: the last week), optionally of some types. */
  getAgentActivityLog(this: ClientCore, agentId: number, query: ActivityLogQuery = {}): Promise<ActivityLogEntry[]> {
    return this.call('getAgentActivityLog', 'GET', this.fillPath('/agent/{agent_id}/activity-log', { agent_id: agentId }), {
      query: { from: query.from, to: query.to, type: query.type },
    });
  },
};
