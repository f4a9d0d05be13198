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
