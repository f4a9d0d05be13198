// `driverbox agents list | add | set`: the agents of the store and what their plan allows. The
// API answers the application operations only for agents under the Enterprise Plan, and every
// operation on an agent only when its plan gives API access: this is where a store filled
// through the CLI gets such agents, as the cloud's would be.
import { agentRecord } from '../../api/monitoring/routes/agents.js';
import { agentAccessChange } from '../../config/agent-access.js';
import { createAgentRecord, getAgent, listAgents, setAgentAccess, type AgentAccessChange, type AgentRow } from '../../store/fleet/agents.js';
import { openStore, resolveStorePath, type Store } from '../../store/index.js';
import { alignedTable } from '../format.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../../contract/errors.js';
import { closest, parseFlags } from '../flags.js';
import { terminalText } from '../../terminal-text.js';

export const agentsHelp = `Usage: driverbox agents list [options]
       driverbox agents add <display name> [access options] [options]
       driverbox agents set <id> [access options] [options]

The agents of the store (what \`driverbox serve\` lists as GET /agent) and what their plan
allows: the application operations answer only for agents under the Enterprise Plan, and an
agent whose plan gives no API access is only listed (every other operation on it answers 403).
list shows each agent's id, name, plan and access right; add makes an agent; set changes the
plan and access right of one (\`driverbox serve\` and \`driverbox demo\` make the agents
"driverbox" and "driverbox demo").

Access options:
  --plan <plan>              enterprise (applications answered) or standard (default for new agents)
  --api-enabled <yes|no>     whether the plan gives API access (access_right.api_enabled; default yes)
  --access <status>          access_right.status: OWNED (default), PROPOSED, GRANTED or ASSIGNED
  --granting-user <e-mail>   access_right.granting_user.name: who shared the agent (removed by
                             --access OWNED unless given with it)

Options:
  --store <file>             the store file (env DRIVERBOX_STORE; default: driverbox.db in
                             ${'$'}DRIVERBOX_DATA_DIR or the user's data folder)
  --json                     list: the records as listAgents answers them, with their plan
  -h, --help                 this help

Exit code: 0 done, 1 no such agent or the store cannot be used, 2 usage error.`;

const accessFlags = {
  plan: { type: 'string' },
  'api-enabled': { type: 'string' },
  access: { type: 'string' },
  'granting-user': { type: 'string' },
} as const;

export const agentsFlags = {
  ...accessFlags,
  store: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function parseYesNo(flag: string, value: string): boolean {
  const form = value.trim().toLowerCase();
  if (['yes', 'true', '1'].includes(form)) return true;
  if (['no', 'false', '0'].includes(form)) return false;
  throw new UsageError(`--${flag} must be yes or no (got "${value}")`);
}

const FLAG_NAMES = { plan: '--plan', apiEnabled: '--api-enabled', access: '--access', grantingUser: '--granting-user' };

/** The access flags given, as a change of the agent. */
function accessChange(values: { plan?: string; 'api-enabled'?: string; access?: string; 'granting-user'?: string }): AgentAccessChange {
  const apiEnabled = values['api-enabled'] === undefined ? undefined : parseYesNo('api-enabled', values['api-enabled']);
  try {
    return agentAccessChange({ plan: values.plan, apiEnabled, access: values.access, grantingUser: values['granting-user'] }, FLAG_NAMES);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function describeAgent(agent: AgentRow): string {
  const access = `access ${agent.accessStatus}${agent.grantingUser ? ` granted by ${terminalText(agent.grantingUser, { oneLine: true })}` : ''}`;
  return `agent ${agent.id} "${terminalText(agent.displayName, { oneLine: true })}": ${agent.enterprisePlan ? 'Enterprise' : 'standard'} plan, API ${agent.apiEnabled ? 'enabled' : 'disabled'}, ${access}`;
}

async function openAgents(io: CliIo, storeFlag: string | undefined): Promise<Store> {
  // Agents hold no secrets: no key is needed to list or change them.
  return await openStore({ path: resolveStorePath({ flag: storeFlag, env: io.env, cwd: io.cwd }), secretKey: null });
}

function noFlagsFor(sub: string, values: { json: boolean } & Record<string, unknown>, flags: readonly string[]): void {
  const given = flags.filter((flag) => values[flag] !== undefined && values[flag] !== false);
  if (given.length) throw new UsageError(`agents ${sub} takes no ${given.map((f) => `--${f}`).join(', ')}`);
}

async function list(io: CliIo, store: Store, json: boolean): Promise<number> {
  const agents = await listAgents(store);
  if (json) {
    io.stdout(JSON.stringify(agents.map((agent) => ({ ...agentRecord(agent), plan: agent.enterprisePlan ? 'enterprise' : 'standard' }))));
    return 0;
  }
  if (agents.length === 0) {
    io.stdout(`the store ${store.path} holds no agent; driverbox serve makes one, or add one with driverbox agents add <name>`);
    return 0;
  }
  const rows = agents.map((a) => [String(a.id), a.displayName, a.enterprisePlan ? 'enterprise' : 'standard', a.apiEnabled ? 'yes' : 'no', a.accessStatus, a.grantingUser ?? '']);
  io.stdout(alignedTable(['ID', 'NAME', 'PLAN', 'API', 'ACCESS', 'GRANTED BY'], rows).join('\n'));
  return 0;
}

export async function agentsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '-h' || sub === '--help' || rest.includes('--help') || rest.includes('-h')) {
    io.stdout(agentsHelp);
    return sub ? 0 : 2;
  }
  if (!['list', 'add', 'set'].includes(sub)) {
    const close = closest(sub, ['list', 'add', 'set']);
    throw new UsageError(`unknown agents command "${sub}"${close.length ? ` (did you mean ${close.join(' or ')}?)` : ''}: use agents list, agents add <name> or agents set <id>`);
  }
  const { values, positionals } = parseFlags(rest, agentsFlags);
  if (sub === 'list') {
    if (positionals.length) throw new UsageError(`agents list takes no arguments (got "${positionals.join(' ')}")`);
    noFlagsFor('list', values, Object.keys(accessFlags));
  } else {
    if (positionals.length !== 1) throw new UsageError(sub === 'add' ? 'agents add needs one display name: driverbox agents add "Branch office"' : 'agents set needs one agent id: driverbox agents set 1 --plan enterprise');
    noFlagsFor(sub, values, ['json']);
  }
  const change = accessChange(values);
  let id = 0;
  if (sub === 'set') {
    if (!/^\d+$/.test(positionals[0]!)) throw new UsageError(`agents set takes an agent id, a number (got "${positionals[0]}"); driverbox agents list shows them`);
    id = Number(positionals[0]);
    if (Object.keys(change).length === 0) throw new UsageError('agents set: nothing to change; give --plan, --api-enabled, --access or --granting-user');
  }
  if (sub === 'add' && positionals[0]!.trim() === '') throw new UsageError('agents add: the display name is empty');

  const store = await openAgents(io, values.store);
  try {
    if (sub === 'list') return await list(io, store, values.json);
    if (sub === 'add') {
      io.stdout(`added ${describeAgent(await createAgentRecord(store, { displayName: positionals[0]!.trim(), ...change }))}`);
      return 0;
    }
    if (!await getAgent(store, id)) {
      io.stderr(`driverbox agents set: the store ${store.path} has no agent ${id}; driverbox agents list shows them`);
      return 1;
    }
    io.stdout(`changed ${describeAgent((await setAgentAccess(store, id, change))!)}`);
    return 0;
  } finally {
    await store.close();
  }
}
