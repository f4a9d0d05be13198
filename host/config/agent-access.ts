// An agent's plan and access right as a person writes them (`driverbox agents --plan enterprise
// --access GRANTED`, or the server config's localAgent), checked and turned into a store change.
import { AGENT_ACCESS_STATUSES, type AgentAccessChange, type AgentAccessStatus } from '../store/fleet/agents.js';

export const AGENT_PLANS = ['enterprise', 'standard'] as const;

export interface AgentAccessInput {
  plan?: string;
  apiEnabled?: boolean;
  access?: string;
  grantingUser?: string;
}

/**
 * The change the input asks for; throws an Error naming the field (as `names` spells it: a flag
 * or a config field) for a value that is not accepted.
 */
export function agentAccessChange(input: AgentAccessInput, names: Record<keyof AgentAccessInput, string>): AgentAccessChange {
  const change: AgentAccessChange = {};
  if (input.plan !== undefined) {
    const plan = input.plan.trim().toLowerCase();
    if (!(AGENT_PLANS as readonly string[]).includes(plan)) throw new Error(`${names.plan} must be one of ${AGENT_PLANS.join(', ')} (got "${input.plan}")`);
    change.enterprisePlan = plan === 'enterprise';
  }
  if (input.apiEnabled !== undefined) change.apiEnabled = input.apiEnabled;
  if (input.access !== undefined) {
    const status = input.access.trim().toUpperCase() as AgentAccessStatus;
    if (!AGENT_ACCESS_STATUSES.includes(status)) throw new Error(`${names.access} must be one of ${AGENT_ACCESS_STATUSES.join(', ')} (got "${input.access}")`);
    change.accessStatus = status;
    // An owner was granted the agent by no one.
    if (status === 'OWNED' && input.grantingUser === undefined) change.grantingUser = null;
  }
  if (input.grantingUser !== undefined) {
    const user = input.grantingUser.trim();
    if (!/^[^@\s]+@[^@\s]+$/.test(user)) throw new Error(`${names.grantingUser} must be an e-mail address, as access_right.granting_user.name is (got "${input.grantingUser}")`);
    change.grantingUser = user;
  }
  return change;
}
