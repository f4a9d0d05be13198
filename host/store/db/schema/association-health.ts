// Schema v10: the health of each association and action (host/store/runs/association-health.ts),
// written by every run that writes a result, in the same transaction (or statement) as the run's
// record, so the two never disagree.
// - association_health: one row per association × action: the last outcome with its error,
//   when the current failure streak began and how long it is, the last success and failure,
//   the run's lateness and duration. Times are epoch ms; failing_since is NULL while it succeeds.
// - association_health_counts: the runs per bucket for the success ratios, per association ×
//   action: 1-minute buckets for the last hour (≤ 61 rows kept) and 1-hour buckets for the last
//   day (≤ 25 rows kept); each write prunes the ones past their window, so at most 86 rows
//   exist per association × action, whatever its period.
export const associationHealthSchema = `
CREATE TABLE association_health (
  association_id INTEGER NOT NULL REFERENCES custom_driver_associations(id) ON DELETE CASCADE,
  action TEXT NOT NULL,
  last_outcome TEXT NOT NULL, -- success | failure
  last_run_time INTEGER NOT NULL,
  last_run_id INTEGER,
  error_type TEXT,
  error_message TEXT,
  failing_since INTEGER,
  consecutive_failures INTEGER NOT NULL,
  last_success_time INTEGER,
  last_failure_time INTEGER,
  lateness_ms INTEGER,
  elapsed_ms INTEGER NOT NULL,
  PRIMARY KEY (association_id, action)
);

CREATE TABLE association_health_counts (
  association_id INTEGER NOT NULL REFERENCES custom_driver_associations(id) ON DELETE CASCADE,
  action TEXT NOT NULL,
  width_ms INTEGER NOT NULL, -- 60000 or 3600000
  bucket_start INTEGER NOT NULL,
  successes INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  PRIMARY KEY (association_id, action, width_ms, bucket_start)
);
`;
