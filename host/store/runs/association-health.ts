// An association's health, written with each of its runs' results (report-run.ts, in the write's
// transaction; slot-result-statement.ts, in its one statement): per association × action, the
// last outcome and error, the failure streak (failing_since, consecutive_failures), the last
// success and failure, lateness and duration; and the run counted in its minute's and hour's
// bucket, the buckets past their window pruned in the same write (schema/association-health.ts:
// at most 61 + 25 bucket rows per association × action).
import type { RunResult } from '../../contract/run-result.js';
import type { Store } from '../store.js';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
/** The ratios' windows: the last 60 one-minute buckets, the last 24 one-hour buckets (the current one included). */
export const SHORT_WINDOW = { widthMs: MINUTE_MS, buckets: 60 } as const;
export const LONG_WINDOW = { widthMs: HOUR_MS, buckets: 24 } as const;
/** The error message kept in the health row (the run's record keeps it whole). */
export const HEALTH_MESSAGE_CHARS = 1000;

/** What one run writes into its association's health. */
export interface HealthWrite {
  action: string;
  outcome: 'success' | 'failure';
  errorType: string | null;
  message: string | null;
  /** The run's end (the store's now as it is written), epoch ms. */
  at: number;
  /** How late the scheduler started it after its due time (or slot), ms; null when not scheduled. */
  latenessMs: number | null;
  elapsedMs: number;
}

export function healthWriteOf(result: RunResult, at: number, latenessMs: number | null | undefined): HealthWrite {
  const message = result.status === 'failure' && result.message !== null ? result.message.slice(0, HEALTH_MESSAGE_CHARS) : null;
  return {
    action: result.action,
    outcome: result.status,
    errorType: result.status === 'failure' ? result.errorType : null,
    message,
    at,
    latenessMs: latenessMs == null || !Number.isFinite(latenessMs) ? null : Math.max(0, Math.round(latenessMs)),
    elapsedMs: Math.max(0, Math.round(result.durationMs)),
  };
}

/** The start of the bucket of `at` of that width. */
export function bucketStart(at: number, widthMs: number): number {
  return Math.floor(at / widthMs) * widthMs;
}

/** The oldest bucket start a window keeps at `now` (the window's buckets, the current one included). */
export function windowStart(now: number, window: { widthMs: number; buckets: number }): number {
  return bucketStart(now, window.widthMs) - (window.buckets - 1) * window.widthMs;
}

/** The health row's columns as one run gives them, in healthUpsertSql's order (after the association and run id). */
export function healthColumns(w: HealthWrite): unknown[] {
  const failed = w.outcome === 'failure';
  return [
    w.action,
    w.outcome,
    w.at,
    w.errorType,
    w.message,
    failed ? w.at : null, // failing_since, when this run starts a streak
    failed ? 1 : 0, // consecutive_failures, when it starts one
    failed ? null : w.at, // last_success_time
    failed ? w.at : null, // last_failure_time
    w.latenessMs,
    w.elapsedMs,
  ];
}

const COLUMNS =
  'association_id, last_run_id, action, last_outcome, last_run_time, error_type, error_message, failing_since, consecutive_failures, last_success_time, last_failure_time, lateness_ms, elapsed_ms';

/**
 * The health row's upsert, from `source`: a VALUES list or a SELECT of the columns in COLUMNS'
 * order. A success ends the streak (failing_since NULL, 0 failures); a failure starts one at its
 * time or lengthens the current one. A result older than the row's last one (a late scale-out
 * write) leaves the row as it is: only its counts are added.
 */
export function healthUpsertSql(source: string): string {
  return `INSERT INTO association_health (${COLUMNS}) ${source}
  ON CONFLICT (association_id, action) DO UPDATE SET
    last_outcome = excluded.last_outcome, last_run_time = excluded.last_run_time, last_run_id = excluded.last_run_id,
    error_type = excluded.error_type, error_message = excluded.error_message,
    failing_since = CASE WHEN excluded.last_outcome = 'success' THEN NULL ELSE coalesce(association_health.failing_since, excluded.failing_since) END,
    consecutive_failures = CASE WHEN excluded.last_outcome = 'success' THEN 0 ELSE association_health.consecutive_failures + 1 END,
    last_success_time = coalesce(excluded.last_success_time, association_health.last_success_time),
    last_failure_time = coalesce(excluded.last_failure_time, association_health.last_failure_time),
    lateness_ms = excluded.lateness_ms, elapsed_ms = excluded.elapsed_ms
  WHERE excluded.last_run_time >= association_health.last_run_time`;
}

/** The conflict clause of the counts' insert: the run added to its bucket's counts. */
export const COUNTS_CONFLICT = `ON CONFLICT (association_id, action, width_ms, bucket_start) DO UPDATE SET
    successes = association_health_counts.successes + excluded.successes, failures = association_health_counts.failures + excluded.failures`;

/** The cuts of the run's buckets: buckets starting at or before them are past their window. */
export function pruneCuts(at: number): { minuteCut: number; hourCut: number } {
  return {
    minuteCut: bucketStart(at, MINUTE_MS) - SHORT_WINDOW.buckets * MINUTE_MS,
    hourCut: bucketStart(at, HOUR_MS) - LONG_WINDOW.buckets * HOUR_MS,
  };
}

/** The buckets past their window pruned. Placeholders: association, action, minute cut, hour cut (pruneCuts). */
export function countsPruneSql(association: string, action: string, minuteCut: string, hourCut: string): string {
  return `DELETE FROM association_health_counts WHERE association_id = ${association} AND action = ${action}
    AND ((width_ms = ${MINUTE_MS} AND bucket_start <= ${minuteCut}) OR (width_ms = ${HOUR_MS} AND bucket_start <= ${hourCut}))`;
}

const UPSERT = healthUpsertSql(`VALUES (${Array.from({ length: 13 }, () => '?').join(', ')})`);
const COUNTS = `INSERT INTO association_health_counts (association_id, action, width_ms, bucket_start, successes, failures)
  VALUES (?, ?, ${MINUTE_MS}, ?, ?, ?), (?, ?, ${HOUR_MS}, ?, ?, ?) ${COUNTS_CONFLICT}`;
const PRUNE = countsPruneSql('?', '?', '?', '?');

/** Writes the run into its association's health: call inside the result's transaction. */
export async function recordAssociationHealth(store: Store, associationId: number, runId: number, write: HealthWrite): Promise<void> {
  const minute = bucketStart(write.at, MINUTE_MS);
  const hour = bucketStart(write.at, HOUR_MS);
  const ok = write.outcome === 'success' ? 1 : 0;
  await store.statement(UPSERT).run(associationId, runId, ...healthColumns(write));
  await store.statement(COUNTS).run(associationId, write.action, minute, ok, 1 - ok, associationId, write.action, hour, ok, 1 - ok);
  const { minuteCut, hourCut } = pruneCuts(write.at);
  await store.statement(PRUNE).run(associationId, write.action, minuteCut, hourCut);
}
