// The agents of the store (listAgents), each a link to its devices.
import { href } from '../router.js';
import type { Agent } from '../types.js';
import { useApi } from '../use-api.js';
import { ErrorNotice, Loading, StatusBadge } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';

export function AgentsPage({ apiKey }: { apiKey: string }) {
  const agents = useApi<Agent[]>('/agent?page_size=100', apiKey);
  return (
    <>
      <PageHeading focusKey="agents">Agents</PageHeading>
      {agents.error ? <ErrorNotice error={agents.error} what="The agents" /> : null}
      {agents.data === null && !agents.error ? <Loading what="agents" /> : null}
      {agents.data && agents.data.length === 0 ? <p class="notice">No agent yet: run <code>npm start</code> (the demo) or <code>driverbox agent</code>.</p> : null}
      {agents.data && agents.data.length > 0 ? (
        <ul class="cards" aria-label="Agents">
          {agents.data.map((agent) => (
            <li key={agent.id} class="card">
              <h2>
                <a href={href({ page: 'agent', agentId: agent.id })}>{agent.display_name}</a>
              </h2>
              <p class="meta">
                <StatusBadge status={agent.status?.value} /> <span>id {agent.id}</span>
                {agent.version?.agent ? <span> · version {agent.version.agent}</span> : null}
              </p>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
