// The result of one driver run: what the CLI prints, --json emits, and the store records.
import type { LogMessage, TableRecord, VariableRecord } from '../runtime/protocol.js';

export type { LogMessage, TableRecord, VariableRecord };

/** Which host limit ended the run, when one did. */
export type LimitName = 'timeout' | 'cpu' | 'memory';

/** One HTTP exchange (or TLS read) the driver made, as the host saw it. */
export interface HttpExchange {
  method: string;
  url: string;
  status: number | null;
  error: string | null;
  durationMs: number;
  requestBytes: number;
  responseBytes: number;
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
  action: string;
  limitExceeded: LimitName | null;
  durationMs: number;
}
