// The driver editor: a library driver's code in CodeMirror 6 (loaded on demand), run against a
// device of the store or a simulated device driverbox ships with the driverbox extension API's
// trial run (the code as edited, with the association's parameters or the fixture's; nothing
// stored), its variables, tables, log, warnings and HTTP exchanges shown together; "Save as a new
// version" sends the code with updateCustomDriver.
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiSend, ApiFailure, EXTENSION_PREFIX } from '../api.js';
import { href, navigate } from '../router.js';
import type { Agent, CustomDriverDetails, Device, SimulatedDeviceInfo, TrialRunAnswer } from '../types.js';
import { useApi } from '../use-api.js';
import { LoadNotices, Loading } from '../components/status.js';
import { PageHeading } from '../components/page-heading.js';
import type { MountedEditor } from '../editor/code-editor.js';
import { DriverBreadcrumb } from './driver.js';
import { duration, RunResult } from '../components/run-result.js';

function CodeArea({ code, onChange, onRun }: { code: string; onChange(code: string): void; onRun(): void }) {
  const host = useRef<HTMLDivElement>(null);
  const handlers = useRef({ onChange, onRun });
  handlers.current = { onChange, onRun };
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let mounted: MountedEditor | null = null;
    let gone = false;
    import('../editor/code-editor.js').then(
      ({ mountEditor }) => {
        if (gone || !host.current) return;
        mounted = mountEditor(host.current, {
          doc: code,
          label: 'Driver code',
          describedBy: 'editor-keys',
          onChange: (c) => handlers.current.onChange(c),
          onRun: () => handlers.current.onRun(),
        });
        setState('ready');
      },
      () => setState('failed'),
    );
    return () => {
      gone = true;
      mounted?.destroy();
    };
    // The document is the driver's code when the page opened; edits live in the view.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <div class="code-area">
      {state === 'loading' ? <Loading what="the editor" /> : null}
      {state === 'failed' ? (
        <p class="notice notice-error" role="alert">
          The editor could not be loaded. Reload the page.
        </p>
      ) : null}
      <div ref={host} class="code-host" data-ready={state === 'ready' ? 'true' : undefined} />
      <p class="hint" id="editor-keys">
        Type <kbd>D.</kbd> for the driver API's members (<kbd>Ctrl</kbd>+<kbd>Space</kbd> asks for them); <kbd>Ctrl</kbd>+<kbd>Enter</kbd> runs;{' '}
        <kbd>Tab</kbd> leaves the editor.
      </p>
    </div>
  );
}

/** The agent's select's value for the simulated devices driverbox ships (agent ids are numbers). */
const SIMULATED = 'simulated';

/**
 * Where to run: an agent of the store or the simulated devices, then one of their devices. Values
 * are ids, or names for the simulated devices.
 */
function PickTarget({ id, label, items, chosen, disabled, extra, onPick }: {
  id: string;
  label: string;
  items: Array<{ value: string; label: string }> | null;
  chosen: string | null;
  disabled?: boolean;
  /** One more option after the items, apart from them (the simulated devices). */
  extra?: { value: string; label: string };
  onPick(value: string | null): void;
}) {
  const option = (item: { value: string; label: string }) => (
    <option key={item.value} value={item.value} selected={item.value === chosen}>
      {item.label}
    </option>
  );
  return (
    <div class="field inline">
      <label for={id}>{label}</label>
      <select id={id} value={chosen ?? ''} disabled={disabled} onChange={(e) => onPick((e.target as HTMLSelectElement).value || null)}>
        <option value="">Choose…</option>
        {(items ?? []).map(option)}
        {extra ? <optgroup label="Built in">{option(extra)}</optgroup> : null}
      </select>
    </div>
  );
}

const byId = (items: Array<{ id: number; display_name: string }> | null) => items?.map((i) => ({ value: String(i.id), label: i.display_name })) ?? null;

function actionsOf(driver: CustomDriverDetails): Array<{ value: string; label: string }> {
  return [
    { value: 'get_status', label: 'get_status' },
    { value: 'validate', label: 'validate' },
    ...(driver.code_inspection.data_saving_functions.includes('backup') ? [{ value: 'backup', label: 'backup' }] : []),
    ...driver.actions.map((a) => ({ value: `custom_${a.id}`, label: `custom_${a.id} (${a.label})` })),
  ];
}

function TrialResult({ result }: { result: TrialRunAnswer }) {
  return (
    <div class="trial-result" data-outcome={result.outcome}>
      <RunResult
        result={result}
        prefix="trial"
        summary="Result"
        monoMessage
        facts={
          <>
            <dt>Action</dt>
            <dd class="mono">{result.action}</dd>
            <dt>Duration</dt>
            <dd>{duration(result.elapsed_ms)}</dd>
          </>
        }
      />
    </div>
  );
}

export function EditorPage({ apiKey, driverId, agentId, deviceId, simulated }: { apiKey: string; driverId: number; agentId: number | null; deviceId: number | null; simulated: string | null }) {
  const driver = useApi<CustomDriverDetails>(`/custom-driver/${driverId}`, apiKey);
  const agents = useApi<Agent[]>('/agent?page_size=100', apiKey);
  const devices = useApi<Device[]>(agentId === null ? null : `/agent/${agentId}/device`, apiKey);
  const simulatedDevices = useApi<{ devices: SimulatedDeviceInfo[] }>(`${EXTENSION_PREFIX}/simulated-device`, apiKey);
  const onSimulated = simulated !== null;
  const simulatedInfo = onSimulated ? simulatedDevices.data?.devices.find((s) => s.name === simulated) : undefined;
  const code = useRef<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const [action, setAction] = useState('get_status');
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<TrialRunAnswer | null>(null);
  const [runError, setRunError] = useState<ApiFailure | null>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<{ text: string; ok: boolean } | null>(null);
  const [version, setVersion] = useState<number | null>(null);
  const d = driver.data;
  if (d && code.current === null) code.current = d.code;
  const name = d?.name ?? `Driver ${driverId}`;
  const place = (change: { agentId?: number | null; deviceId?: number | null; simulated?: string | null }) =>
    navigate(
      {
        page: 'editor',
        driverId,
        agentId: change.agentId !== undefined ? change.agentId : agentId,
        deviceId: change.deviceId !== undefined ? change.deviceId : deviceId,
        simulated: change.simulated !== undefined ? change.simulated : simulated,
      },
      { replace: true },
    );

  // One agent only: it is chosen already.
  useEffect(() => {
    if (agentId === null && !onSimulated && agents.data?.length === 1) place({ agentId: agents.data[0]!.id, deviceId: null });
  }, [agents.data, agentId, onSimulated]);

  async function run() {
    if (running || code.current === null) return;
    const target = simulated ? `${EXTENSION_PREFIX}/simulated-device/${encodeURIComponent(simulated)}` : agentId !== null && deviceId !== null ? `${EXTENSION_PREFIX}/agent/${agentId}/device/${deviceId}` : null;
    if (target === null) {
      setRunError(new ApiFailure(0, 'Choose the device to run the driver against first.'));
      return;
    }
    setRunning(true);
    setRunError(null);
    try {
      setResult(await apiSend<TrialRunAnswer>('POST', `${target}/trial-run`, apiKey, { code: code.current, action, custom_driver_id: driverId }));
    } catch (error) {
      setResult(null);
      setRunError(error instanceof ApiFailure ? error : new ApiFailure(0, String(error)));
    } finally {
      setRunning(false);
    }
  }

  async function save() {
    if (saving || code.current === null) return;
    setSaving(true);
    setSaved(null);
    try {
      const next = await apiSend<CustomDriverDetails>('PUT', `/custom-driver/${driverId}`, apiKey, { code: code.current });
      setVersion(next.version);
      setDirty(false);
      setSaved(
        next.is_valid
          ? { ok: true, text: `Saved as version ${next.version}. Its associations run it from now on.` }
          : { ok: false, text: `Saved as version ${next.version}, but the code is invalid (${next.errors?.map((e) => `${e.type}${e.line ? ` line ${e.line}` : ''}: ${e.message}`).join('; ')}), so it does not run until fixed.` },
      );
    } catch (error) {
      setSaved({ ok: false, text: `Not saved: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      setSaving(false);
    }
  }

  return (
    <>
      <DriverBreadcrumb name={name} driverId={driverId} current="Editor" />
      <PageHeading focusKey={`editor-${driverId}`}>Edit {name}</PageHeading>
      <LoadNotices of={driver} what="the driver" />
      {d ? (
        <>
          <p class="meta">
            <span class="mono">version {version ?? d.version}</span>
            {dirty ? <span class="badge badge-unknown">unsaved changes</span> : null}
          </p>
          <CodeArea code={d.code} onChange={(c) => ((code.current = c), setDirty(true))} onRun={() => void run()} />
          <section class="card run-panel" aria-labelledby="run-against">
            <h2 id="run-against">Run against a device</h2>
            <p class="hint">
              The code as edited runs in the sandbox with the device's address and credentials and the association's parameters (the driver's defaults
              without one), or against a simulated device driverbox ships (started for the run, with its fixture's credentials and parameters). Nothing
              is stored: the device's variables and runs stay as they are.
            </p>
            <div class="filters">
              <PickTarget
                id="editor-agent"
                label="Agent"
                items={byId(agents.data)}
                chosen={onSimulated ? SIMULATED : agentId === null ? null : String(agentId)}
                extra={simulatedDevices.data?.devices.length ? { value: SIMULATED, label: 'Simulated devices' } : undefined}
                onPick={(value) => place(value === SIMULATED ? { agentId: null, deviceId: null, simulated: '' } : { agentId: value === null ? null : Number(value), deviceId: null, simulated: null })}
              />
              <PickTarget
                id="editor-device"
                label="Device"
                items={onSimulated ? (simulatedDevices.data?.devices.map((s) => ({ value: s.name, label: `${s.name} (${s.protocols.join(', ')})` })) ?? null) : byId(devices.data)}
                chosen={onSimulated ? simulated || null : deviceId === null ? null : String(deviceId)}
                disabled={agentId === null && !onSimulated}
                onPick={(value) => place(onSimulated ? { simulated: value ?? '' } : { deviceId: value === null ? null : Number(value) })}
              />
              <div class="field inline">
                <label for="editor-action">Action</label>
                <select id="editor-action" value={action} onChange={(e) => setAction((e.target as HTMLSelectElement).value)}>
                  {actionsOf(d).map((a) => (
                    <option key={a.value} value={a.value}>
                      {a.label}
                    </option>
                  ))}
                </select>
              </div>
              <div class="buttons">
                <button type="button" class="primary" onClick={() => void run()} disabled={running} aria-describedby="editor-keys">
                  {running ? 'Running…' : 'Run'}
                </button>
                <button type="button" onClick={() => void save()} disabled={saving || !dirty}>
                  {saving ? 'Saving…' : 'Save as a new version'}
                </button>
              </div>
            </div>
            <div role="status" class="run-status">
              {running ? 'Running the driver…' : result ? `The run ended: ${result.outcome}${result.error_type ? ` (${result.error_type})` : ''}, ${result.variables.length} variables.` : ''}
            </div>
            {saved ? (
              <p class={`notice ${saved.ok ? 'notice-ok' : 'notice-error'}`} role={saved.ok ? 'status' : 'alert'}>
                {saved.text}
              </p>
            ) : null}
            {runError ? (
              <p class="notice notice-error" role="alert">
                The driver could not be run: {runError.message}
                {runError.status ? ` (HTTP ${runError.status})` : ''}
              </p>
            ) : null}
            {simulatedInfo ? (
              <p class="meta simulated-about">
                {simulatedInfo.description ?? simulatedInfo.name}
                {Object.keys(simulatedInfo.parameters).length ? ` Its parameters: ${Object.entries(simulatedInfo.parameters).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(', ')}.` : ''}
              </p>
            ) : null}
            {agentId !== null && deviceId !== null ? (
              <p class="meta">
                <a href={href({ page: 'device', agentId, deviceId, variableId: null, window: '24h' })}>Open the device</a>
              </p>
            ) : null}
          </section>
          {result ? <TrialResult result={result} /> : null}
        </>
      ) : null}
    </>
  );
}
