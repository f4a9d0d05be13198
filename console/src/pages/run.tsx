// One run: outcome, error, duration, counts, the log with its levels, the warnings and every HTTP
// exchange (method, URL, status, timings; headers and bodies when they were recorded, masked).
import { EXTENSION_PREFIX, parseApiTime } from '../api.js';
import { count, localTime } from '../format.js';
import { href, NO_RUN_FILTERS } from '../router.js';
import type { RunDetail } from '../types.js';
import { useAgent, useApi } from '../use-api.js';
import { LoadNotices } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { agentTrail, Breadcrumb } from '../components/breadcrumb.js';
import { duration, RunResult } from '../components/run-result.js';

export function RunPage({ apiKey, agentId, runId }: { apiKey: string; agentId: number; runId: number }) {
  const agent = useAgent(agentId, apiKey);
  const run = useApi<RunDetail>(`${EXTENSION_PREFIX}/agent/${agentId}/run/${runId}`, apiKey);
  const r = run.data;
  const title = r ? `${r.driver ?? 'driver'} · ${r.action}` : `Run ${runId}`;
  return (
    <>
      <Breadcrumb trail={[...agentTrail(agentId, agent.name), { label: 'Runs', href: href({ page: 'runs', agentId, filters: NO_RUN_FILTERS }) }]} current={`Run ${runId}`} />
      <PageHeading focusKey={`run-${agentId}-${runId}`}>{title}</PageHeading>
      <LoadNotices of={run} what="the run" />
      {r ? (
        <RunResult
          result={r}
          prefix="run"
          summary="Summary"
          facts={
            <>
              <dt>Started</dt>
              <dd>{localTime(parseApiTime(r.started))}</dd>
              <dt>Duration</dt>
              <dd>{duration(r.elapsed_ms)}</dd>
              <dt>Device</dt>
              <dd>
                {r.device_id === null ? '—' : <a href={href({ page: 'device', agentId, deviceId: r.device_id, variableId: null, window: '24h' })}>device {r.device_id}</a>}
              </dd>
              <dt>Reported</dt>
              <dd>
                {count(r.variable_count, 'variable')}, {count(r.table_count, 'table')}
              </dd>
            </>
          }
        />
      ) : null}
    </>
  );
}
