// The RunResult of a run the sandbox process could not finish (it died, or close() stopped it):
// a failure like any other, so the scheduler records it and carries on. GENERIC_ERROR, as the
// host reports other failures of the sandbox itself (engine/isolate/run-steps.ts); the logs and HTTP
// exchanges of the run died with the process.
import type { RunRequest } from '../../contract/run-request.js';
import type { RunResult } from '../../contract/run-result.js';

export function lostRunResult(request: RunRequest, message: string, durationMs: number): RunResult {
  return {
    status: 'failure',
    errorType: 'GENERIC_ERROR',
    message,
    variables: [],
    tables: [],
    logs: [],
    warnings: ['the logs and HTTP exchanges of this run were lost with the sandbox process'],
    http: [],
    // A replay without an action would have used the recorded one; this process never read it.
    action: request.action ?? 'get_status',
    limitExceeded: null,
    durationMs: Math.round(durationMs * 100) / 100,
  };
}

/**
 * The RunResult of a run that overstayed its deadline plus the margin, so the supervisor killed
 * its wedged child: TIMEOUT_ERROR with limitExceeded 'timeout', as the in-process deadline
 * reports it, so a caller sees one kind of failure for "the run took too long".
 */
export function overstayRunResult(request: RunRequest, message: string, durationMs: number): RunResult {
  return { ...lostRunResult(request, message, durationMs), errorType: 'TIMEOUT_ERROR', limitExceeded: 'timeout' };
}
