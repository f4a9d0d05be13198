// The records of the driverbox extension API's runs (runs-routes.ts), shared with the web
// console (type-only). It imports nothing, so the console's type check stays out of host/;
// runs-routes.ts assigns the store's records to these types, so a change there shows here.

/** One HTTP exchange as the bridge recorded it (host/contract/run-result.ts HttpExchange). */
export interface RecordedExchange {
  method: string;
  url: string;
  status: number | null;
  error: string | null;
  errorMessage: string | null;
  startedMs: number;
  headersMs: number | null;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
  redirectedTo: string | null;
  hint?: string;
  request?: { headers: Record<string, string>; body: string | null };
  response?: { headers: Record<string, string | string[]>; body: string | null };
}

export interface RunLogLine {
  level: 'debug' | 'info' | 'log' | 'warn' | 'error';
  message: string;
}

export interface RunSummary {
  id: number;
  device_id: number | null;
  custom_driver_id: number | null;
  association_id: number | null;
  driver: string | null;
  action: string;
  /** yyyy-mm-ddThh:mm:ss in UTC */
  started: string;
  elapsed_ms: number;
  outcome: 'success' | 'failure';
  error_type: string | null;
  error_message: string | null;
  limit_exceeded: string | null;
  variable_count: number;
  table_count: number;
  log_count: number;
  warning_count: number;
  http_count: number;
}

export interface RunDetail extends RunSummary {
  log: RunLogLine[];
  warnings: string[];
  /** The exchanges as the bridge recorded them (secrets masked; headers and bodies only when recorded). */
  http: RecordedExchange[];
}

export interface RunListAnswer {
  total: number;
  runs: RunSummary[];
  /** The drivers with runs of this agent, for a filter. */
  drivers: string[];
  /** The next page's `cursor` (the runs after this page's last one); null when there are none. */
  next_cursor: string | null;
}

/** A variable a trial run reported (host/contract/run-result.ts VariableRecord). */
export interface TrialVariable {
  uid: string;
  label: string;
  value: string | null;
  unit: string | null;
  valueType: string;
}

/** Metadata of one table cell (table.addMetrics), such as { url }; texts only. */
export type CellMetadata = Record<string, string>;

/**
 * Cell metadata of a table (host/contract/run-result.ts TableRecord.cellMetadata): one entry per row (null
 * for a row without any), each one per column without the record id (null for a cell without).
 */
export type TableCellMetadata = Array<Array<CellMetadata | null> | null>;

/** A table a trial run reported: each row starts with its record id, then one value per column. */
export interface TrialTable {
  label: string;
  columnHeaders: Array<{ label: string; unit: string | null; valueType: string }>;
  rows: Array<Array<string | null>>;
  /** Only when a row made by addMetrics has cell metadata. */
  cellMetadata?: TableCellMetadata;
}

/** The body of a trial run (POST …/agent/{agent_id}/device/{device_id}/trial-run). */
export interface TrialRunRequest {
  /** The driver's source, as edited. */
  code: string;
  /** get_status (the default), validate, backup or custom_N. */
  action?: string;
  /** A library driver: its association with the device gives the parameters, its policy the external hosts. */
  custom_driver_id?: number;
  /** Parameter values by name, over the association's (or the driver's defaults). */
  parameters?: Record<string, string | number | string[]>;
}

/** What a trial run reported, all at once; nothing of it is stored. */
export interface TrialRunAnswer {
  action: string;
  outcome: 'success' | 'failure';
  error_type: string | null;
  error_message: string | null;
  limit_exceeded: string | null;
  elapsed_ms: number;
  variables: TrialVariable[];
  tables: TrialTable[];
  log: RunLogLine[];
  warnings: string[];
  http: RecordedExchange[];
}

/** How many due times of an association were skipped, by the scheduler's reason. */
export interface SkipCounts {
  /** The previous run was still in flight (an overlap). */
  running: number;
  /** The previous run was still waiting for a run slot. */
  waiting: number;
  /** The timer fired after further due times had passed (a late, blocked event loop). */
  missed: number;
  /** The association was backing off after repeated limit hits (agent option backoff). */
  backoff: number;
  total: number;
}

/** The association's last action run this process saw end. */
export interface ScheduleLastRun {
  /** Its record (null when it could not be stored). */
  run_id: number | null;
  action: string;
  /** yyyy-mm-ddThh:mm:ss in UTC */
  started: string;
  elapsed_ms: number;
  outcome: 'success' | 'failure';
  error_type: string | null;
  /** Scale-out mode: the agent process that ran it (its queue name); null when not recorded. */
  runner?: string | null;
}

/** One association as the agent's scheduler has it (GET …/agent/{agent_id}/schedule). */
export interface ScheduleEntry {
  association_id: number;
  device_id: number;
  custom_driver_id: number;
  /** driver@device */
  name: string;
  actions: string[];
  /** Seconds between two due times. */
  sample_period: number;
  /**
   * yyyy-mm-ddThh:mm:ss in UTC; null while the scheduler is stopping, or in scale-out mode while
   * the queue has no job scheduler for it (not reconciled yet, or refused).
   */
  next_due: string | null;
  /** Scale-out mode: ms into each period where its slots fall (the queue spreads one period's associations). */
  offset_ms?: number;
  /** running: a run is in flight (on any agent, in scale-out mode); waiting: a due run waits for a slot. */
  state: 'running' | 'waiting' | 'idle';
  /**
   * Due times since the association was scheduled (scale-out: the job scheduler's iterations since
   * it was last upserted), and runs started (null in scale-out mode: any agent starts them).
   */
  due: number;
  started: number | null;
  /** Skipped due times since the agent started (scale-out: the ones this agent process skipped). */
  skipped: SkipCounts;
  /** Lateness of its recent runs (start − due time), ms; null in scale-out mode (each agent's /metrics has its own). */
  lateness_ms: { p50: number; p99: number; max: number } | null;
  last_run: ScheduleLastRun | null;
}

/** Scale-out mode: the queue that schedules the agent's runs. */
export interface ScheduleQueue {
  /** The agent processes taking run jobs now (their queue names), this one among them. */
  agents: string[];
  /** This agent process's name. */
  this_agent: string;
}

export interface ScheduleAnswer {
  /**
   * embedded: this process's scheduler runs the agent's associations (`driverbox agent`);
   * queue: scale-out, the schedule lives in the shared Redis queue (one job scheduler per association), read from there;
   * none: nothing schedules this agent's runs in this process (`driverbox serve`, or another agent).
   */
  scheduler: 'embedded' | 'queue' | 'none';
  /** With scheduler "queue": who shares the queue. */
  queue?: ScheduleQueue;
  /** The server's time of the answer, yyyy-mm-ddThh:mm:ss in UTC. */
  now: string;
  /** Associations scheduled (matching device_id), before paging. */
  total: number;
  /** By association id (pages stay put as due times pass; the console sorts a page by next due). */
  associations: ScheduleEntry[];
}

/** A table a driver reported for a device, its latest version (GET …/device/{device_id}/table). */
export interface DeviceTable {
  id: number;
  association_id: number | null;
  label: string;
  columns: TrialTable['columnHeaders'];
  /** Each row starts with its record id, then one value per column. */
  rows: TrialTable['rows'];
  /** Only when a row made by addMetrics has cell metadata (as TrialTable's cellMetadata). */
  cell_metadata?: TableCellMetadata;
  /** yyyy-mm-ddThh:mm:ss in UTC */
  updated: string;
}

/** A simulated device driverbox ships (an example's fixture), to run a trial against. */
export interface SimulatedDeviceInfo {
  /** Its folder's name in drivers-examples/. */
  name: string;
  description: string | null;
  /** What it speaks: http, https, ssh, snmp, telnet, winrm. */
  protocols: string[];
  /** The parameters its fixture gives a run. */
  parameters: Record<string, unknown>;
}

/** One association × action's health (health-routes.ts; host/store/runs/association-health-list.ts). */
export interface HealthEntry {
  association_id: number;
  custom_driver_id: number;
  driver: string;
  device_id: number;
  device: string;
  /** Seconds between two runs. */
  sample_period: number;
  /** The association's own status, as the Public API's (ENABLED, or DISABLED). */
  status: 'ENABLED' | 'DISABLED';
  /** null for an association that has not run yet (state pending). */
  action: string | null;
  /** failing: its last run failed; stale: no run for more than 2 periods + 60 s; ok; pending: never ran. */
  state: 'failing' | 'stale' | 'ok' | 'pending';
  /** Overdue as `stale` says, whatever the state (a failing one can be stale too). */
  stale: boolean;
  last_outcome: 'success' | 'failure' | null;
  /** yyyy-mm-ddThh:mm:ss in UTC, as every time below; the run's end. */
  last_run_time: string | null;
  last_run_id: number | null;
  error_type: string | null;
  error_message: string | null;
  /** When the current failure streak began (its first failed run); null while it succeeds. */
  failing_since: string | null;
  consecutive_failures: number;
  last_success_time: string | null;
  last_failure_time: string | null;
  /** How late the scheduler started the last run after its due time (or slot); null for an API execution. */
  lateness_ms: number | null;
  elapsed_ms: number | null;
  /** Runs in the last 60 one-minute buckets, and successes / runs there (null without runs). */
  runs_1h: number;
  success_ratio_1h: number | null;
  /** Runs in the last 24 one-hour buckets, and successes / runs there (null without runs). */
  runs_24h: number;
  success_ratio_24h: number | null;
}

/** Counts by state. */
export interface HealthCounts {
  failing: number;
  stale: number;
  ok: number;
  pending: number;
}

export interface HealthAnswer {
  /** The time the states and ratios were computed at (UTC). */
  now: string;
  /** Entries matching the filters (the page is a part of them). */
  total: number;
  /** Over every entry of the agent (or device), before the filters. */
  summary: {
    /** Association × action entries by state. */
    entries: HealthCounts;
    /** Devices by their worst entry (failing, then stale, ok, pending). */
    devices: HealthCounts;
    /** The failing entries by error type, most first. */
    failing_by_error_type: Array<{ error_type: string | null; count: number }>;
  };
  /** Failing first (longest failing first), then stale, ok, pending; then by device, driver, action. */
  entries: HealthEntry[];
}
