// The result of one driver run: what the CLI prints, --json emits, and the store records.
import type { LogMessage, TableRecord, VariableRecord } from '../../runtime/protocol.js';
import type { DeviceStateSnapshot } from './device-state.js';

export type { LogMessage, TableRecord, VariableRecord };

/** Which host limit ended the run, when one did. */
export type LimitName = 'timeout' | 'cpu' | 'memory';

/** One HTTP exchange (a request, one redirect hop, or a TLS read) the driver made, as the host saw it. */
export interface HttpExchange {
  /** GET, POST, PUT, DELETE, or TLS for getTLSCertificate. */
  method: string;
  /** The URL dialled (after the port map), with passwords redacted. */
  url: string;
  status: number | null;
  /** The failure's code (ECONNREFUSED, ETIMEDOUT, BODY_TOO_LARGE…), null when a response came. */
  error: string | null;
  errorMessage: string | null;
  /** When the exchange started, in ms since the run started. */
  startedMs: number;
  /** Time to the response headers; null when none came. */
  headersMs: number | null;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
  /** The Location this hop redirected to, when the redirect was followed. */
  redirectedTo: string | null;
  /** What the answer suggests is wrong though it is no error (plain HTTP to an HTTPS port answered 400). */
  hint?: string;
  /** Headers and bodies: only with transcript 'full' (the CLI's --verbose). Secrets redacted. */
  request?: { headers: Record<string, string>; body: string | null };
  response?: { headers: Record<string, string | string[]>; body: string | null };
}

/** The configuration backup a backup() run reported with D.success(D.createBackup(…)). */
export interface BackupResult {
  label: string;
  running: string;
  /** null when the driver gave none. */
  startup: string | null;
  /** UTF-8 sizes of the two configurations (startupBytes null with no startup). */
  runningBytes: number;
  startupBytes: number | null;
}

export interface RunResult {
  status: 'success' | 'failure';
  errorType: string | null;
  message: string | null;
  variables: VariableRecord[];
  tables: TableRecord[];
  logs: LogMessage[];
  /** Things the driver got away with: truncated values, duplicate uids, a second D.success… */
  warnings: string[];
  /** HTTP exchanges of the run, in the order they were sent. */
  http: HttpExchange[];
  /** The configuration backup the run reported, when it reported one (only a success does). */
  backup?: BackupResult;
  action: string;
  limitExceeded: LimitName | null;
  durationMs: number;
  /**
   * Only when the request gave RunRequest.deviceState: the sessions whose cookie jars the run
   * changed, each whole (none left: the session is to be forgotten). A run whose sandbox process
   * died under it has none: what was kept stays as it was.
   */
  deviceState?: DeviceStateSnapshot;
}
