// One agent's devices (listDevices).
import { href, NO_RUN_FILTERS } from '../router.js';
import type { Agent, Device } from '../types.js';
import { useApi } from '../use-api.js';
import { ErrorNotice, Loading, StatusBadge } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';

export function deviceAddress(device: Device): string {
  return device.ip_addresses?.[0] ?? device.names?.host ?? '—';
}

export function AgentPage({ apiKey, agentId }: { apiKey: string; agentId: number }) {
  const agent = useApi<Agent>(`/agent/${agentId}`, apiKey);
  const devices = useApi<Device[]>(`/agent/${agentId}/device`, apiKey, { refreshMs: 30_000 });
  const name = agent.data?.display_name ?? `Agent ${agentId}`;
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <ol>
          <li>
            <a href={href({ page: 'agents' })}>Agents</a>
          </li>
          <li aria-current="page">{name}</li>
        </ol>
      </nav>
      <PageHeading focusKey={`agent-${agentId}`}>{name}</PageHeading>
      <p class="meta">
        <a href={href({ page: 'runs', agentId, filters: NO_RUN_FILTERS })}>Runs of this agent</a>
      </p>
      {agent.error ? <ErrorNotice error={agent.error} what="The agent" /> : null}
      {devices.error ? <ErrorNotice error={devices.error} what="The devices" /> : null}
      {devices.data === null && !devices.error ? <Loading what="devices" /> : null}
      {devices.data && devices.data.length === 0 ? <p class="notice">This agent has no device.</p> : null}
      {devices.data && devices.data.length > 0 ? (
        <div class="table-wrap">
          <table class="list">
            <caption>
              {devices.data.length} device{devices.data.length === 1 ? '' : 's'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Status</th>
                <th scope="col">Address</th>
                <th scope="col" class="wide-only">Vendor / model</th>
              </tr>
            </thead>
            <tbody>
              {devices.data.map((device) => (
                <tr key={device.id}>
                  <th scope="row">
                    <a href={href({ page: 'device', agentId, deviceId: device.id, variableId: null, window: '24h' })}>{device.display_name}</a>
                  </th>
                  <td>
                    <StatusBadge status={device.status} />
                  </td>
                  <td class="mono">{deviceAddress(device)}</td>
                  <td class="wide-only">{[device.vendor ?? device.user_data?.vendor, device.model ?? device.user_data?.model].filter(Boolean).join(' ') || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
