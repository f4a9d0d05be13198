// One device: its status, its variables with live values (re-read every 10 s while the tab is
// visible), and the history of the chosen variable over 1 h / 24 h / 7 d.
import { useMemo } from 'preact/hooks';
import { apiTime, EXTENSION_PREFIX, parseApiTime } from '../api.js';
import { ago, localTime } from '../format.js';
import { href, NO_RUN_FILTERS, WINDOW_LABELS, WINDOWS, type WindowName } from '../router.js';
import type { Device, DeviceTable, Variable, VariableHistorySample } from '../types.js';
import { useAgent, useApi } from '../use-api.js';
import { StatusHistory } from '../components/status-history.js';
import { ErrorNotice, LoadNotices, StatusBadge } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import { agentTrail, Breadcrumb } from '../components/breadcrumb.js';
import { ListTable } from '../components/list-table.js';
import { HistoryView, toSamples } from '../components/history-chart.js';
import { deviceAddress } from './agent.js';
import { DriverTable } from '../components/run-result.js';

const LIVE_MS = 10_000;

interface DeviceProps {
  apiKey: string;
  agentId: number;
  deviceId: number;
  variableId: number | null;
  window: WindowName;
}

function variableName(v: Variable): string {
  return v.label || v.path;
}

function HistoryPanel({ apiKey, agentId, deviceId, variable, window }: { apiKey: string; agentId: number; deviceId: number; variable: Variable; window: WindowName }) {
  // A new window is read when the window changes or the variable got a new value.
  const span = useMemo(() => {
    const to = Date.now();
    return { from: to - WINDOWS[window], to };
  }, [window, variable.id, variable.value_update_time]);
  const path = `/agent/${agentId}/device/${deviceId}/variable/${variable.id}/history?from=${apiTime(span.from)}&to=${apiTime(span.to + 1000)}`;
  const history = useApi<VariableHistorySample[]>(path, apiKey);
  const samples = useMemo(() => (history.data ? toSamples(history.data) : null), [history.data]);
  const name = variableName(variable);
  return (
    <section class="card history" aria-labelledby="history-title">
      <div class="section-head">
        <h2 id="history-title">
          History of <span class="var-name">{name}</span>
        </h2>
        <nav aria-label="Time window" class="segmented">
          {(Object.keys(WINDOWS) as WindowName[]).map((w) => (
            <a
              key={w}
              href={href({ page: 'device', agentId, deviceId, variableId: variable.id, window: w })}
              aria-current={w === window ? 'true' : undefined}
              aria-label={`Last ${WINDOW_LABELS[w]}`}
            >
              {w}
            </a>
          ))}
        </nav>
      </div>
      {variable.label ? <p class="meta mono">{variable.path}</p> : null}
      <LoadNotices of={{ data: samples, error: history.error }} what="the history" />
      {samples ? <HistoryView samples={samples} label={name} unit={variable.unit} from={span.from} to={span.to} /> : null}
    </section>
  );
}

/** The device's driver tables (extension API: the Public API has no table operation), re-read with the variables. */
function DeviceTables({ apiKey, agentId, deviceId }: { apiKey: string; agentId: number; deviceId: number }) {
  const tables = useApi<{ tables: DeviceTable[] }>(`${EXTENSION_PREFIX}/agent/${agentId}/device/${deviceId}/table`, apiKey, { refreshMs: LIVE_MS });
  if (tables.error) return <LoadNotices of={tables} what="the tables" />;
  if (!tables.data || tables.data.tables.length === 0) return null;
  return (
    <div class="device-tables">
      {tables.data.tables.map((t) => {
        const updated = parseApiTime(t.updated);
        return (
          <DriverTable key={t.id} id={`device-table-${t.id}`} table={{ label: t.label, columnHeaders: t.columns, rows: t.rows, ...(t.cell_metadata ? { cellMetadata: t.cell_metadata } : {}) }}>
            <p class="meta" title={localTime(updated)}>
              Reported {ago(updated)}; each run of its driver replaces it.
            </p>
          </DriverTable>
        );
      })}
    </div>
  );
}

export function DevicePage({ apiKey, agentId, deviceId, variableId, window }: DeviceProps) {
  const agent = useAgent(agentId, apiKey);
  const device = useApi<Device>(`/agent/${agentId}/device/${deviceId}`, apiKey, { refreshMs: 30_000 });
  const variables = useApi<Variable[]>(`/agent/${agentId}/device/${deviceId}/variable?page_size=1000&sort_by=path`, apiKey, { refreshMs: LIVE_MS });
  const selected = variableId === null ? undefined : variables.data?.find((v) => v.id === variableId);
  const name = device.data?.display_name ?? `Device ${deviceId}`;

  return (
    <>
      <Breadcrumb trail={agentTrail(agentId, agent.name)} current={name} />
      <PageHeading focusKey={`device-${agentId}-${deviceId}`}>{name}</PageHeading>
      {device.error ? <ErrorNotice error={device.error} what="The device" /> : null}
      {device.data ? (
        <p class="meta device-meta">
          <StatusBadge status={device.data.status} />
          <span class="mono">{deviceAddress(device.data)}</span>
          {device.data.last_status_change ? <span>status since {localTime(parseApiTime(device.data.last_status_change))}</span> : null}
          <span>id {deviceId}</span>
          <a href={href({ page: 'runs', agentId, filters: { ...NO_RUN_FILTERS, device: deviceId } })}>Runs of this device</a>
        </p>
      ) : null}

      {variableId !== null && variables.data && !selected ? (
        <p class="notice notice-error" role="alert">
          This device has no variable {variableId}.
        </p>
      ) : null}
      {selected ? <HistoryPanel apiKey={apiKey} agentId={agentId} deviceId={deviceId} variable={selected} window={window} /> : null}

      <section class="card" aria-labelledby="variables-title">
        <div class="section-head">
          <h2 id="variables-title">Variables</h2>
          <p class="meta live">
            {variables.at ? <span>Live, re-read every {LIVE_MS / 1000} s · last at {localTime(variables.at).slice(11)}</span> : null}
            <button type="button" onClick={variables.reload} disabled={variables.loading}>
              {variables.loading ? 'Reading…' : 'Refresh'}
            </button>
          </p>
        </div>
        <LoadNotices of={variables} what="variables" />
        {variables.data && variables.data.length === 0 ? <p class="notice">No variable yet: this device's drivers have not reported.</p> : null}
        {variables.data && variables.data.length > 0 ? (
          <ListTable class="variables" caption={`Variables of ${name}; choose one to see its history`} hiddenCaption columns={['Variable', 'Value', { label: 'Updated', wide: true }]}>
            {variables.data.map((v) => {
              const current = v.id === variableId;
              const updated = v.value_update_time ? parseApiTime(v.value_update_time) : NaN;
              return (
                <tr key={v.id} class={current ? 'selected' : undefined} data-variable-id={v.id}>
                  <th scope="row">
                    {v.has_history ? (
                      <a href={href({ page: 'device', agentId, deviceId, variableId: v.id, window })} aria-current={current ? 'true' : undefined}>
                        {variableName(v)}
                      </a>
                    ) : (
                      variableName(v)
                    )}
                    {v.label ? <span class="path mono">{v.path}</span> : null}
                  </th>
                  <td class="value mono">
                    {v.value === undefined ? <em>no value</em> : v.value}
                    {v.unit && v.value !== undefined ? <span class="unit"> {v.unit}</span> : null}
                  </td>
                  <td class="wide-only" title={Number.isFinite(updated) ? localTime(updated) : undefined}>
                    {Number.isFinite(updated) ? ago(updated) : '—'}
                  </td>
                </tr>
              );
            })}
          </ListTable>
        ) : null}
      </section>

      <DeviceTables apiKey={apiKey} agentId={agentId} deviceId={deviceId} />

      <StatusHistory apiKey={apiKey} agentId={agentId} deviceId={deviceId} window={window} />
    </>
  );
}
