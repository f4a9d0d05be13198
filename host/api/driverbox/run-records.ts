// The records of the driverbox extension API's runs (runs-routes.ts), shared with the web
// console (type-only). It imports nothing, so the console's type check stays out of host/;
// runs-routes.ts assigns the store's records to these types, so a change there shows here.

/** One HTTP exchange as the bridge recorded it (host/run-result.ts HttpExchange). */
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
}

/** A variable a trial run reported (host/run-result.ts VariableRecord). */
export interface TrialVariable {
  uid: string;
  label: string;
  value: string | null;
  unit: string | null;
  valueType: string;
}

/** A table a trial run reported: each row starts with its record id, then one value per column. */
export interface TrialTable {
  label: string;
  columnHeaders: Array<{ label: string; unit: string | null; valueType: string }>;
  rows: Array<Array<string | null>>;
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
