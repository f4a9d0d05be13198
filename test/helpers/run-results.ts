// RunResult values for store and API tests: what host.run answers, built by hand so a test
// controls each variable, table and outcome.
import type { RunResult, TableRecord, VariableRecord } from '../../host/contract/run-result.js';

export function variable(uid: string, value: string | null, extra: Partial<VariableRecord> = {}): VariableRecord {
  return { uid, label: extra.label ?? uid.toUpperCase(), value, unit: extra.unit ?? null, valueType: extra.valueType ?? 'STRING' };
}

export function success(variables: VariableRecord[], extra: Partial<RunResult> = {}): RunResult {
  return {
    status: 'success',
    errorType: null,
    message: null,
    variables,
    tables: [] as TableRecord[],
    logs: [],
    warnings: [],
    http: [],
    action: 'get_status',
    limitExceeded: null,
    durationMs: 25,
    ...extra,
  };
}

export function failure(errorType: string, message: string | null, extra: Partial<RunResult> = {}): RunResult {
  return { ...success([]), status: 'failure', errorType, message, ...extra };
}
