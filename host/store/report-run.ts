// Writing a run's result into the store. (Being built: the signature is settled, the body is not.)
import type { RunResult } from '../run-result.js';
import type { Store } from './store.js';

export interface ReportTarget {
  agentId: number;
  deviceId: number;
  customDriverId?: number | null;
  associationId?: number | null;
  /** The driver's name or file, for the activity log. */
  driverName?: string | null;
  /** Who ran it, for the activity log (default "driverbox"). */
  user?: string;
}

export interface ReportedRun {
  runId: number;
  /** Ids of the variables the run wrote, in the order reported. */
  variableIds: number[];
}

export function writeRunResult(_store: Store, _target: ReportTarget, _result: RunResult): ReportedRun {
  throw new Error('writeRunResult is not built yet');
}
