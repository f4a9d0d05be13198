// A device's status over the page's time window (getDeviceUptime, getDeviceStatusHistory): the
// uptime with its agent's beside it, the downtime intervals, and the status changes newest first.
import { useMemo } from 'preact/hooks';
import { apiTime, parseApiTime } from '../api.js';
import { count, localTime } from '../format.js';
import { WINDOW_LABELS, WINDOWS, type WindowName } from '../router.js';
import type { DeviceHistoryEvent, DeviceUptime } from '../types.js';
import { useApi } from '../use-api.js';
import { ErrorNotice, Loading } from './status.js';
import { ListTable } from './list-table.js';

const EVENT_TEXT: Record<DeviceHistoryEvent['type'], string> = { UP: 'up', DOWN: 'down', CREATED: 'added', IP_CHANGE: 'address changed' };

function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

export function StatusHistory({ apiKey, agentId, deviceId, window }: { apiKey: string; agentId: number; deviceId: number; window: WindowName }) {
  const query = useMemo(() => {
    const to = Date.now();
    return `from=${apiTime(to - WINDOWS[window])}&to=${apiTime(to + 1000)}`;
  }, [window, deviceId]);
  const uptime = useApi<DeviceUptime>(`/agent/${agentId}/device/${deviceId}/uptime?${query}`, apiKey);
  const events = useApi<DeviceHistoryEvent[]>(`/agent/${agentId}/device/${deviceId}/history/network/event?${query}`, apiKey);
  const newestFirst = useMemo(() => [...(events.data ?? [])].sort((a, b) => parseApiTime(b.timestamp) - parseApiTime(a.timestamp)), [events.data]);
  const u = uptime.data;
  return (
    <section class="card status-history" aria-labelledby="status-title">
      <h2 id="status-title">Status over the last {WINDOW_LABELS[window]}</h2>
      {uptime.error ? <ErrorNotice error={uptime.error} what="The uptime" /> : null}
      {events.error ? <ErrorNotice error={events.error} what="The status history" /> : null}
      {!u && !uptime.error ? <Loading what="the uptime" /> : null}
      {u ? (
        <dl class="facts uptime">
          <dt>Uptime</dt>
          <dd>
            <strong class="mono">{u.uptime} %</strong> ({span(u.online_seconds * 1000)} online of {span(u.total_seconds * 1000)}); its agent {u.agent_uptime} %
          </dd>
          <dt>Down</dt>
          <dd>
            {u.downtime_intervals?.length ? (
              <ul class="plain downtimes">
                {u.downtime_intervals.map((d, i) => (
                  <li key={i}>
                    {localTime(parseApiTime(d.start))} – {localTime(parseApiTime(d.end))} ({span(parseApiTime(d.end) - parseApiTime(d.start))})
                  </li>
                ))}
              </ul>
            ) : (
              'never'
            )}
          </dd>
        </dl>
      ) : null}
      {events.data ? (
        newestFirst.length === 0 ? (
          <p class="meta">No status change in this window.</p>
        ) : (
          <ListTable class="status-events" caption={`${count(newestFirst.length, 'status change')}, newest first`} columns={['When', 'Change']}>
            {newestFirst.map((e, i) => (
              <tr key={i}>
                <td class="mono">{localTime(parseApiTime(e.timestamp))}</td>
                <td>
                  <span class={`badge badge-${e.type === 'UP' ? 'up' : e.type === 'DOWN' ? 'down' : 'unknown'}`}>{EVENT_TEXT[e.type]}</span>
                  {e.details?.new_ip ? <span class="mono"> {e.details.old_ip?.join(', ') ?? '—'} → {e.details.new_ip.join(', ')}</span> : null}
                </td>
              </tr>
            ))}
          </ListTable>
        )
      ) : null}
    </section>
  );
}
