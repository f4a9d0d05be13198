// An agent's schedule (driverbox extension API: /driverbox-api/v1/agent/{id}/schedule): in
// `driverbox agent` mode, each association as the scheduler has it: next due time, state, last
// run, skipped due times by reason. In scale-out mode the same from the shared queue (next slot,
// period, last run and which agent ran it, this agent's skips) and who shares the queue. Re-read
// every 5 s while the tab is visible. `driverbox serve` schedules nothing, and the page says so.
import { EXTENSION_PREFIX, parseApiTime } from '../api.js';
import { ago, count, localTime, timeZoneName } from '../format.js';
import { href, NO_RUN_FILTERS } from '../router.js';
import type { Device, ScheduleAnswer, ScheduleEntry } from '../types.js';
import { useAgent, useApi } from '../use-api.js';
import { LoadNotices } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { agentTrail, Breadcrumb } from '../components/breadcrumb.js';
import { ListTable } from '../components/list-table.js';
import { duration, OutcomeBadge } from '../components/run-result.js';

const LIVE_MS = 5_000;

/** "in 12 s", "3 s late" for a due time relative to the server's clock. */
function dueIn(due: number, now: number): string {
  const s = Math.round((due - now) / 1000);
  if (s < 0) return `${-s} s overdue`;
  if (s === 0) return 'now';
  if (s < 120) return `in ${s} s`;
  if (s < 7200) return `in ${Math.round(s / 60)} min`;
  return `in ${Math.round(s / 3600)} h`;
}

function Skipped({ skipped, queue }: { skipped: ScheduleEntry['skipped']; queue: boolean }) {
  if (skipped.total === 0) return <span class="mono">0</span>;
  const parts = [
    skipped.running ? `${skipped.running} still running` : '',
    skipped.waiting ? `${skipped.waiting} waiting for a slot` : '',
    // A queue's worker skips a slot taken too late to finish within its period (the start rule).
    skipped.missed ? `${skipped.missed} ${queue ? 'taken too late' : 'missed (late timer)'}` : '',
  ].filter(Boolean);
  return (
    <>
      <span class="mono">{skipped.total}</span>
      <span class="path">{parts.join(', ')}</span>
    </>
  );
}

function Row({ entry, agentId, serverNow, deviceName, queue }: { entry: ScheduleEntry; agentId: number; serverNow: number; deviceName: string; queue: boolean }) {
  const due = entry.next_due ? parseApiTime(entry.next_due) : NaN;
  const last = entry.last_run;
  return (
    <tr data-association-id={entry.association_id}>
      <th scope="row">
        <a href={href({ page: 'runs', agentId, filters: { ...NO_RUN_FILTERS, device: entry.device_id } })}>{entry.name}</a>
        <span class="path">
          {deviceName} · every {entry.sample_period} s · {entry.actions.join(', ')}
        </span>
      </th>
      <td class="next-due">
        {Number.isFinite(due) ? (
          <>
            <span class="mono">{localTime(due).slice(11)}</span>
            <span class="path">{dueIn(due, serverNow)}</span>
          </>
        ) : (
          '—'
        )}
        {entry.state !== 'idle' ? <span class={`badge ${entry.state === 'running' ? 'badge-up' : 'badge-unknown'}`}>{entry.state}</span> : null}
      </td>
      <td class="last-run">
        {last ? (
          <>
            {last.run_id !== null ? (
              <a href={href({ page: 'run', agentId, runId: last.run_id })}>
                <OutcomeBadge outcome={last.outcome} />
              </a>
            ) : (
              <OutcomeBadge outcome={last.outcome} />
            )}
            {last.error_type ? <span class="mono"> {last.error_type}</span> : null}
            <span class="path" title={localTime(parseApiTime(last.started))}>
              {last.action}, {ago(parseApiTime(last.started), serverNow)}, {duration(last.elapsed_ms)}
              {last.runner ? `, by ${last.runner}` : ''}
            </span>
          </>
        ) : (
          <span class="meta">not yet</span>
        )}
      </td>
      <td class="skipped">
        <Skipped skipped={entry.skipped} queue={queue} />
      </td>
      <td class="wide-only mono">
        {entry.started ?? '—'} / {entry.due}
      </td>
      <td class="wide-only mono">{entry.lateness_ms ? `${entry.lateness_ms.p50} / ${entry.lateness_ms.p99} ms` : '—'}</td>
    </tr>
  );
}

export function SchedulePage({ apiKey, agentId }: { apiKey: string; agentId: number }) {
  const agent = useAgent(agentId, apiKey);
  const devices = useApi<Device[]>(`/agent/${agentId}/device`, apiKey);
  const schedule = useApi<ScheduleAnswer>(`${EXTENSION_PREFIX}/agent/${agentId}/schedule?page_size=500`, apiKey, { refreshMs: LIVE_MS });
  const deviceName = new Map((devices.data ?? []).map((d) => [d.id, d.display_name]));
  const data = schedule.data;
  const serverNow = data ? parseApiTime(data.now) : Date.now();
  const skippedTotal = data ? data.associations.reduce((n, a) => n + a.skipped.total, 0) : 0;
  // The API pages by association; the page is shown soonest due first.
  const dueOf = (e: ScheduleEntry) => (e.next_due ? parseApiTime(e.next_due) : Infinity);
  const rows = data ? [...data.associations].sort((a, b) => dueOf(a) - dueOf(b) || a.association_id - b.association_id) : [];

  return (
    <>
      <Breadcrumb trail={agentTrail(agentId, agent.name)} current="Schedule" />
      <PageHeading focusKey={`schedule-${agentId}`}>Schedule of {agent.name}</PageHeading>
      <LoadNotices of={schedule} what="the schedule" />
      {data && data.scheduler === 'none' ? (
        <p class="notice" data-scheduler="none">
          No scheduler runs this agent's drivers in this server: it is a <code>driverbox serve</code> (which answers the API and runs drivers on request
          only), or another process runs this agent. <code>driverbox agent</code> serves this page with its schedule.{' '}
          <a href={href({ page: 'runs', agentId, filters: NO_RUN_FILTERS })}>The runs it recorded</a> are still here.
        </p>
      ) : null}
      {data && data.queue ? (
        <p class="notice" data-scheduler="queue">
          Scheduled by the shared queue (Redis), one job scheduler per association, shared by {count(data.queue.agents.length, 'agent')}:{' '}
          {data.queue.agents.map((name, i) => (
            <span key={name} class="queue-agent">
              {i > 0 ? ', ' : ''}
              <code>{name}</code>
              {name === data.queue!.this_agent ? ' (this one)' : ''}
            </span>
          ))}
          . Any of them runs a slot; skipped counts are this one's, each agent's lateness is in its <code>/metrics</code>.
        </p>
      ) : null}
      {data && data.scheduler !== 'none' ? (
        <>
          <p class="meta live">
            <span>
              {count(data.total, 'association')} scheduled, {count(skippedTotal, 'skipped due time')} {data.queue ? 'by this agent ' : ''}since it started; re-read every {LIVE_MS / 1000} s
              {schedule.at ? ` · last at ${localTime(schedule.at).slice(11)}` : ''}
            </span>
            <button type="button" onClick={schedule.reload} disabled={schedule.loading}>
              {schedule.loading ? 'Reading…' : 'Refresh'}
            </button>
          </p>
          {data.associations.length === 0 ? <p class="notice">Nothing is scheduled: this agent has no enabled association on a monitored device.</p> : null}
          {data.associations.length > 0 ? (
            <ListTable
              class="schedule"
              wrap="card"
              caption={<>Soonest due first; times in {timeZoneName()}{data.total > data.associations.length ? `; ${data.associations.length} of ${data.total} shown (the lowest association ids)` : ''}</>}
              columns={['Association', 'Next due', 'Last run', 'Skipped', { label: 'Started / due', wide: true }, { label: 'Lateness p50 / p99', wide: true }]}
            >
              {rows.map((entry) => (
                <Row key={entry.association_id} entry={entry} agentId={agentId} serverNow={serverNow} deviceName={deviceName.get(entry.device_id) ?? `device ${entry.device_id}`} queue={data.scheduler === 'queue'} />
              ))}
            </ListTable>
          ) : null}
        </>
      ) : null}
    </>
  );
}
