// One run's result, as the run page shows a stored run and the editor a trial run: its outcome
// (with the error), the variables and tables a trial run reported, the log with its levels, the
// warnings and every HTTP exchange (headers and bodies when they were recorded, masked as stored).
import type { ComponentChildren } from 'preact';
import type { HttpExchange, RunDetail, TrialRunAnswer } from '../types.js';
import { count } from '../format.js';
import { ListTable } from './list-table.js';

export function OutcomeBadge({ outcome }: { outcome: string }) {
  return <span class={`badge badge-${outcome === 'success' ? 'up' : 'down'}`}>{outcome}</span>;
}

export function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function Headers({ headers }: { headers: Record<string, string | string[]> }) {
  const entries = Object.entries(headers);
  if (entries.length === 0) return <p class="meta">No header.</p>;
  return (
    <pre class="code">
      {entries.map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : value}`).join('\n')}
    </pre>
  );
}

function Recorded({ title, message }: { title: string; message: NonNullable<HttpExchange['response']> }) {
  return (
    <>
      <h4>{title}</h4>
      <Headers headers={message.headers} />
      {message.body !== null ? <pre class="code">{message.body}</pre> : null}
    </>
  );
}

function Exchange({ exchange, index }: { exchange: HttpExchange; index: number }) {
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
            {exchange.request ? <Recorded title="Request" message={exchange.request} /> : null}
            {exchange.response ? <Recorded title="Response" message={exchange.response} /> : null}
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

function Variables({ prefix, variables }: { prefix: string; variables: TrialRunAnswer['variables'] }) {
  return (
    <section class="card" aria-labelledby={`${prefix}-variables`}>
      <h2 id={`${prefix}-variables`}>Variables ({variables.length})</h2>
      {variables.length === 0 ? (
        <p class="meta">No variable.</p>
      ) : (
        <ListTable class="trial-variables" caption="Variables the run reported" hiddenCaption columns={['Variable', 'Value', { label: 'Type', wide: true }]}>
          {variables.map((v) => (
            <tr key={v.uid}>
              <th scope="row">
                {v.label}
                <span class="path mono">{v.uid}</span>
              </th>
              <td class="mono value">
                {v.value ?? '—'}
                {v.unit ? <span class="unit"> {v.unit}</span> : null}
              </td>
              <td class="wide-only">{v.valueType}</td>
            </tr>
          ))}
        </ListTable>
      )}
    </section>
  );
}

/** A link only to a web page: a driver's `url` metadata is device data, never a javascript: or data: URL. */
function webLink(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

/** A cell's value, as a link when addMetrics gave it a `url` metadata (a web page's). */
function CellValue({ value, url }: { value: string | null; url: string | undefined }) {
  const href = webLink(url);
  if (!href) return <>{value ?? '—'}</>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer">
      {value || href}
    </a>
  );
}

/** A driver's table (D.createTable): a trial run's, or a device's latest (`children`: when and by what). */
export function DriverTable({ id, table, children }: { id: string; table: TrialRunAnswer['tables'][number]; children?: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>
        Table: {table.label} ({count(table.rows.length, 'row')})
      </h2>
      {children}
      <ListTable
        class="driver-table"
        caption={`Table ${table.label}`}
        hiddenCaption
        columns={[
          'Record',
          ...table.columnHeaders.map((c) => (
            <>
              {c.label}
              {c.unit ? <span class="unit"> ({c.unit})</span> : null}
            </>
          )),
        ]}
      >
        {table.rows.map((row, ri) => (
          <tr key={ri}>
            <th scope="row" class="mono">
              {row[0]}
            </th>
            {row.slice(1).map((cell, ci) => (
              <td key={ci} class="mono">
                <CellValue value={cell} url={table.cellMetadata?.[ri]?.[ci]?.url} />
              </td>
            ))}
          </tr>
        ))}
      </ListTable>
    </section>
  );
}

/** The result of a stored run or of a trial run (which adds its variables and tables). */
type Result = Pick<RunDetail, 'outcome' | 'error_type' | 'error_message' | 'limit_exceeded' | 'log' | 'warnings' | 'http'> & Partial<Pick<TrialRunAnswer, 'variables' | 'tables'>>;

/**
 * `prefix` names the sections' ids (`run-summary`, `trial-log`…); `summary` is the first
 * section's heading, `facts` what it tells after the outcome and the error message.
 */
export function RunResult({ result, prefix, summary, facts, monoMessage }: { result: Result; prefix: string; summary: string; facts: ComponentChildren; monoMessage?: boolean }) {
  return (
    <>
      <section class="card" aria-labelledby={`${prefix}-summary`}>
        <h2 id={`${prefix}-summary`}>{summary}</h2>
        <dl class="facts">
          <dt>Outcome</dt>
          <dd>
            <OutcomeBadge outcome={result.outcome} />
            {result.error_type ? <span class="mono"> {result.error_type}</span> : null}
            {result.limit_exceeded ? <span> (limit: {result.limit_exceeded})</span> : null}
          </dd>
          {result.error_message ? (
            <>
              <dt>Message</dt>
              <dd class={monoMessage ? 'mono' : undefined}>{result.error_message}</dd>
            </>
          ) : null}
          {facts}
        </dl>
      </section>
      {result.variables ? <Variables prefix={prefix} variables={result.variables} /> : null}
      {result.tables?.map((t, ti) => <DriverTable key={ti} id={`${prefix}-table-${ti}`} table={t} />)}
      <section class="card" aria-labelledby={`${prefix}-log`}>
        <h2 id={`${prefix}-log`}>Log ({result.log.length})</h2>
        {result.log.length === 0 ? (
          <p class="meta">The driver logged nothing.</p>
        ) : (
          <ol class="log">
            {result.log.map((line, i) => (
              <li key={i} class={`log-${line.level}`}>
                <span class="level">{line.level}</span> <span class="mono">{line.message}</span>
              </li>
            ))}
          </ol>
        )}
        {result.warnings.length ? (
          <>
            <h3>Warnings ({result.warnings.length})</h3>
            <ul class="warnings">
              {result.warnings.map((w, i) => (
                <li key={i}>{w}</li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
      <section class="card" aria-labelledby={`${prefix}-http`}>
        <h2 id={`${prefix}-http`}>HTTP exchanges ({result.http.length})</h2>
        {result.http.length === 0 ? (
          <p class="meta">No HTTP exchange.</p>
        ) : (
          <ListTable
            class="exchanges"
            caption="HTTP exchanges of this run, in order"
            hiddenCaption
            columns={['#', 'Request', 'Status', { label: 'Headers after', wide: true }, 'Took', { label: 'Received', wide: true }]}
          >
            {result.http.map((exchange, i) => (
              <Exchange key={i} exchange={exchange} index={i} />
            ))}
          </ListTable>
        )}
      </section>
    </>
  );
}
