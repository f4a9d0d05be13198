// One agent's devices (listDevices).
import { href, NO_RUN_FILTERS } from '../router.js';
import { count } from '../format.js';
import type { Device } from '../types.js';
import { useAgent, useApi } from '../use-api.js';
import { ErrorNotice, LoadNotices, StatusBadge } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { Breadcrumb } from '../components/breadcrumb.js';
import { ListTable } from '../components/list-table.js';

export function deviceAddress(device: Device): string {
  return device.ip_addresses?.[0] ?? device.names?.host ?? '—';
}

export function AgentPage({ apiKey, agentId }: { apiKey: string; agentId: number }) {
  const agent = useAgent(agentId, apiKey);
  const devices = useApi<Device[]>(`/agent/${agentId}/device`, apiKey, { refreshMs: 30_000 });
  const name = agent.name;
  return (
    <>
      <Breadcrumb trail={[{ label: 'Agents', href: href({ page: 'agents' }) }]} current={name} />
      <PageHeading focusKey={`agent-${agentId}`}>{name}</PageHeading>
      <p class="meta">
        <a href={href({ page: 'runs', agentId, filters: NO_RUN_FILTERS })}>Runs of this agent</a>
        <a href={href({ page: 'schedule', agentId })}>Schedule</a>
      </p>
      {agent.error ? <ErrorNotice error={agent.error} what="The agent" /> : null}
      <LoadNotices of={devices} what="devices" />
      {devices.data && devices.data.length === 0 ? <p class="notice">This agent has no device.</p> : null}
      {devices.data && devices.data.length > 0 ? (
        <ListTable caption={count(devices.data.length, 'device')} columns={['Device', 'Status', 'Address', { label: 'Vendor / model', wide: true }]}>
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
        </ListTable>
      ) : null}
    </>
  );
}
