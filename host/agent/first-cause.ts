// The first cause of a failed run, in a few words for the agent's per-run line: the first
// exchange that failed (its error code and message, or an HTTP error status), else the driver's
// first error-level log line. The run's message alone often says only which D.failure ended it.
import type { RunResult } from '../contract/run-result.js';

/** Longest cause kept on one log line: a device's or driver's text is not to flood the log. */
export const MAX_CAUSE_CHARS = 300;

function cut(text: string): string {
  return text.length > MAX_CAUSE_CHARS ? `${text.slice(0, MAX_CAUSE_CHARS - 1)}…` : text;
}

/** The failed run's first cause, or null when it has none to add to its message. */
export function firstCause(result: Pick<RunResult, 'status' | 'http' | 'logs' | 'message'>): string | null {
  if (result.status !== 'failure') return null;
  const failed = result.http.find((h) => h.error !== null);
  if (failed) {
    const detail = failed.errorMessage && failed.errorMessage !== failed.error ? `: ${failed.errorMessage}` : '';
    return cut(`${failed.method} ${failed.url} failed with ${failed.error}${detail}`);
  }
  const refused = result.http.find((h) => h.status !== null && h.status >= 400);
  if (refused) return cut(`${refused.method} ${refused.url} answered ${refused.status}`);
  const logged = result.logs.find((l) => l.level === 'error');
  if (logged && logged.message !== result.message) return cut(`the driver logged: ${logged.message}`);
  return null;
}
