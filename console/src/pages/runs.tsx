// An agent's runs (driverbox extension API: /driverbox-api/v1/agent/{id}/run): failures first by
// default, filtered by device, driver and outcome; each a link to its log and exchanges.
import { useEffect, useState } from 'preact/hooks';
import { apiGet, ApiFailure, EXTENSION_PREFIX, parseApiTime } from '../api.js';
import { count, localTime, timeZoneName } from '../format.js';
import { href, navigate, type RunFilters } from '../router.js';
import type { Device, RunListAnswer, RunSummary } from '../types.js';
import { useAgent, useApi } from '../use-api.js';
import { LoadNotices } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { agentTrail, Breadcrumb } from '../components/breadcrumb.js';
import { ListTable } from '../components/list-table.js';
import { duration, OutcomeBadge } from '../components/run-result.js';

/** Runs per page: the first page is re-read every 30 s, the older ones are added on request. */
export const RUNS_PAGE = 200;

function query(filters: RunFilters, cursor: string | null = null): string {
  const q = new URLSearchParams({ order: filters.order, page_size: String(RUNS_PAGE) });
  if (cursor !== null) q.set('cursor', cursor);
  if (filters.device !== null) q.set('device_id', String(filters.device));
  if (filters.driver) q.set('driver', filters.driver);
  if (filters.outcome) q.set('outcome', filters.outcome);
  return q.toString();
}

export function RunsPage({ apiKey, agentId, filters }: { apiKey: string; agentId: number; filters: RunFilters }) {
  const agent = useAgent(agentId, apiKey);
  const devices = useApi<Device[]>(`/agent/${agentId}/device`, apiKey);
  const path = `${EXTENSION_PREFIX}/agent/${agentId}/run?`;
  const runs = useApi<RunListAnswer>(`${path}${query(filters)}`, apiKey, { refreshMs: 30_000 });
  // The pages after the first, loaded with "Older runs" by cursor (each starts right after the last
  // run listed, so a run recorded or pruned meanwhile shifts nothing). `cursor` undefined: none
  // loaded yet, the live first page's next_cursor applies; null: nothing more. A new filter starts
  // again from the first page.
  const empty = { runs: [] as RunSummary[], cursor: undefined as string | null | undefined, loading: false, error: null as ApiFailure | null };
  const [older, setOlder] = useState(empty);
  useEffect(() => setOlder(empty), [agentId, query(filters)]);
  const nextCursor = older.cursor === undefined ? (runs.data?.next_cursor ?? null) : older.cursor;
  async function loadOlder() {
    if (nextCursor === null) return;
    // What is listed now is kept as it is: the live first page, re-read every 30 s, may drop runs
    // that newer ones push down, and those come before the cursor.
    const shown = listed;
    setOlder((o) => ({ ...o, loading: true, error: null }));
    try {
      const answer = await apiGet<RunListAnswer>(`${path}${query(filters, nextCursor)}`, apiKey);
      setOlder((o) => ({ runs: [...(o.cursor === undefined ? shown : o.runs), ...answer.runs], cursor: answer.next_cursor, loading: false, error: null }));
    } catch (error) {
      setOlder((o) => ({ ...o, loading: false, error: error instanceof ApiFailure ? error : new ApiFailure(0, String(error)) }));
    }
  }
  // The live first page over the kept runs: a run in both is listed once, where the first page has it.
  const seen = new Set<number>();
  const listed = [...(runs.data?.runs ?? []), ...older.runs].filter((r) => !seen.has(r.id) && (seen.add(r.id), true));
  const agentName = agent.name;
  const deviceName = new Map((devices.data ?? []).map((d) => [d.id, d.display_name]));
  const set = (change: Partial<RunFilters>) => navigate({ page: 'runs', agentId, filters: { ...filters, ...change } }, { replace: true });

  return (
    <>
      <Breadcrumb trail={agentTrail(agentId, agentName)} current="Runs" />
      <PageHeading focusKey={`runs-${agentId}`}>Runs of {agentName}</PageHeading>
      <form class="card filters" aria-label="Filter the runs" onSubmit={(e) => e.preventDefault()}>
        <div class="field inline">
          <label for="run-device">Device</label>
          <select id="run-device" value={filters.device === null ? '' : String(filters.device)} onChange={(e) => set({ device: (e.target as HTMLSelectElement).value ? Number((e.target as HTMLSelectElement).value) : null })}>
            <option value="">All devices</option>
            {(devices.data ?? []).map((d) => (
              <option key={d.id} value={String(d.id)}>
                {d.display_name}
              </option>
            ))}
          </select>
        </div>
        <div class="field inline">
          <label for="run-driver">Driver</label>
          <select id="run-driver" value={filters.driver ?? ''} onChange={(e) => set({ driver: (e.target as HTMLSelectElement).value || null })}>
            <option value="">All drivers</option>
            {(runs.data?.drivers ?? (filters.driver ? [filters.driver] : [])).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div class="field inline">
          <label for="run-outcome">Outcome</label>
          <select id="run-outcome" value={filters.outcome ?? ''} onChange={(e) => set({ outcome: ((e.target as HTMLSelectElement).value || null) as RunFilters['outcome'] })}>
            <option value="">Any outcome</option>
            <option value="failure">Failures</option>
            <option value="success">Successes</option>
          </select>
        </div>
        <div class="field inline">
          <label for="run-order">Order</label>
          <select id="run-order" value={filters.order} onChange={(e) => set({ order: (e.target as HTMLSelectElement).value as RunFilters['order'] })}>
            <option value="failures_first">Failures first</option>
            <option value="newest">Newest first</option>
          </select>
        </div>
      </form>
      <LoadNotices of={runs} what="runs" />
      {runs.data && runs.data.runs.length === 0 ? <p class="notice">No run matches.</p> : null}
      {runs.data && listed.length > 0 ? (
        <>
        <ListTable
          class="runs"
          wrap="card"
          caption={
            <>
              {count(runs.data.total, 'run')}
              {runs.data.total > listed.length ? `, the first ${listed.length} shown` : ''}; times in {timeZoneName()}
            </>
          }
          columns={['Run', 'Outcome', { label: 'Device', wide: true }, { label: 'Duration', wide: true }, { label: 'HTTP', wide: true }]}
        >
          {listed.map((run) => (
            <tr key={run.id} data-run-id={run.id}>
              <th scope="row">
                <a href={href({ page: 'run', agentId, runId: run.id })}>
                  {run.driver ?? 'driver'} · {run.action}
                </a>
                <span class="path mono">{localTime(parseApiTime(run.started))}</span>
              </th>
              <td>
                <OutcomeBadge outcome={run.outcome} />
                {run.error_type ? <span class="path mono">{run.error_type}</span> : null}
              </td>
              <td class="wide-only">{run.device_id === null ? '—' : deviceName.get(run.device_id) ?? `device ${run.device_id}`}</td>
              <td class="wide-only mono">{duration(run.elapsed_ms)}</td>
              <td class="wide-only mono">{run.http_count}</td>
            </tr>
          ))}
        </ListTable>
        {older.error ? (
          <p class="notice notice-error" role="alert">
            The older runs could not be loaded: {older.error.message}
          </p>
        ) : null}
        {nextCursor !== null ? (
          <p class="meta">
            <button type="button" class="more-runs" onClick={() => void loadOlder()} disabled={older.loading}>
              {older.loading ? 'Loading…' : filters.order === 'newest' ? `Older runs (${RUNS_PAGE} more)` : `More runs (${RUNS_PAGE} more)`}
            </button>
          </p>
        ) : null}
        </>
      ) : null}
    </>
  );
}
