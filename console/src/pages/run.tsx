// One run: outcome, error, duration, counts, the log with its levels, the warnings and every HTTP
// exchange (method, URL, status, timings; headers and bodies when they were recorded, masked).
import { EXTENSION_PREFIX, parseApiTime } from '../api.js';
import { localTime } from '../format.js';
import { href } from '../router.js';
import type { Agent, HttpExchange, RunDetail } from '../types.js';
import { useApi } from '../use-api.js';
import { ErrorNotice, Loading } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { duration, OutcomeBadge } from './runs.js';

function Headers({ headers }: { headers: Record<string, string | string[]> }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return <p class="meta">No header.</p>;
  return (
    <pre class="code">
      {entries.map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : value}`).join('\n')}
    </pre>
  );
}

export function Exchange({ exchange, index }: { exchange: HttpExchange; index: number }) {
  const recorded = exchange.request || exchange.response;
  return (
    <tr>
      <td class="mono">{index + 1}</td>
      <th scope="row" class="exchange-url">
        <span class="mono">{exchange.method}</span> <span class="mono url">{exchange.url}</span>
        {exchange.redirectedTo ? <span class="path mono">→ {exchange.redirectedTo}</span> : null}
        {exchange.hint ? <span class="path">{exchange.hint}</span> : null}
        {recorded ? (
          <details class="exchange-details">
            <summary>Headers and bodies</summary>
            {exchange.request ? (
              <>
                <h4>Request</h4>
                <Headers headers={exchange.request.headers} />
                {exchange.request.body !== null ? <pre class="code">{exchange.request.body}</pre> : null}
              </>
            ) : null}
            {exchange.response ? (
              <>
                <h4>Response</h4>
                <Headers headers={exchange.response.headers} />
                {exchange.response.body !== null ? <pre class="code">{exchange.response.body}</pre> : null}
              </>
            ) : null}
          </details>
        ) : null}
      </th>
      <td class="mono">
        {exchange.status ?? <span class="badge badge-down">{exchange.error ?? 'no answer'}</span>}
        {exchange.errorMessage ? <span class="path">{exchange.errorMessage}</span> : null}
      </td>
      <td class="mono wide-only">{exchange.headersMs === null ? '—' : `${Math.round(exchange.headersMs)} ms`}</td>
      <td class="mono">{Math.round(exchange.durationMs)} ms</td>
      <td class="mono wide-only">{exchange.responseBytes} B</td>
    </tr>
  );
}

export function RunPage({ apiKey, agentId, runId }: { apiKey: string; agentId: number; runId: number }) {
  const agent = useApi<Agent>(`/agent/${agentId}`, apiKey);
  const run = useApi<RunDetail>(`${EXTENSION_PREFIX}/agent/${agentId}/run/${runId}`, apiKey);
  const agentName = agent.data?.display_name ?? `Agent ${agentId}`;
  const r = run.data;
  const title = r ? `${r.driver ?? 'driver'} · ${r.action}` : `Run ${runId}`;
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <ol>
          <li>
            <a href={href({ page: 'agents' })}>Agents</a>
          </li>
          <li>
            <a href={href({ page: 'agent', agentId })}>{agentName}</a>
          </li>
          <li>
            <a href={href({ page: 'runs', agentId, filters: { device: null, driver: null, outcome: null, order: 'failures_first' } })}>Runs</a>
          </li>
          <li aria-current="page">Run {runId}</li>
        </ol>
      </nav>
      <PageHeading focusKey={`run-${agentId}-${runId}`}>{title}</PageHeading>
      {run.error ? <ErrorNotice error={run.error} what="The run" /> : null}
      {!r && !run.error ? <Loading what="the run" /> : null}
      {r ? (
        <>
          <section class="card" aria-labelledby="run-summary">
            <h2 id="run-summary">Summary</h2>
            <dl class="facts">
              <dt>Outcome</dt>
              <dd>
                <OutcomeBadge outcome={r.outcome} />
                {r.error_type ? <span class="mono"> {r.error_type}</span> : null}
                {r.limit_exceeded ? <span> (limit: {r.limit_exceeded})</span> : null}
              </dd>
              {r.error_message ? (
                <>
                  <dt>Message</dt>
                  <dd>{r.error_message}</dd>
                </>
              ) : null}
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
                {r.variable_count} variable{r.variable_count === 1 ? '' : 's'}, {r.table_count} table{r.table_count === 1 ? '' : 's'}
              </dd>
            </dl>
          </section>
          <section class="card" aria-labelledby="run-log">
            <h2 id="run-log">Log ({r.log.length})</h2>
            {r.log.length === 0 ? (
              <p class="meta">The driver logged nothing.</p>
            ) : (
              <ol class="log">
                {r.log.map((line, i) => (
                  <li key={i} class={`log-${line.level}`}>
                    <span class="level">{line.level}</span> <span class="mono">{line.message}</span>
                  </li>
                ))}
              </ol>
            )}
            {r.warnings.length ? (
              <>
                <h3>Warnings ({r.warnings.length})</h3>
                <ul class="warnings">
                  {r.warnings.map((w, i) => (
                    <li key={i}>{w}</li>
                  ))}
                </ul>
              </>
            ) : null}
          </section>
          <section class="card" aria-labelledby="run-http">
            <h2 id="run-http">HTTP exchanges ({r.http.length})</h2>
            {r.http.length === 0 ? (
              <p class="meta">No HTTP exchange.</p>
            ) : (
              <div class="table-wrap">
                <table class="list exchanges">
                  <caption class="visually-hidden">HTTP exchanges of this run, in order</caption>
                  <thead>
                    <tr>
                      <th scope="col">#</th>
                      <th scope="col">Request</th>
                      <th scope="col">Status</th>
                      <th scope="col" class="wide-only">Headers after</th>
                      <th scope="col">Took</th>
                      <th scope="col" class="wide-only">Received</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.http.map((exchange, i) => (
                      <Exchange key={i} exchange={exchange} index={i} />
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      ) : null}
    </>
  );
}
