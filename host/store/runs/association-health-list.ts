// Reading the associations' health (association-health.ts writes it): every association of an
// agent (or of one device) with the health of each action it ran, its success ratios over the
// last hour and day from the bucket counts, and a state: failing (its last run failed), stale (no
// run for more than 2 sample periods + 60 s while enabled on a monitored device), ok, or pending
// (never ran). Two queries whatever the number of associations; states and order are settled here.
import type { Store } from '../store.js';
import { LONG_WINDOW, SHORT_WINDOW, windowStart } from './association-health.js';

export type HealthState = 'failing' | 'stale' | 'ok' | 'pending';
export const HEALTH_STATES: readonly HealthState[] = ['failing', 'stale', 'ok', 'pending'];

/** A run may be this late past 2 sample periods before its association is stale. */
export const STALE_MARGIN_MS = 60_000;

export interface AssociationHealth {
  associationId: number;
  customDriverId: number;
  driverName: string;
  deviceId: number;
  deviceName: string;
  samplePeriod: number;
  /** The association's own status (ENABLED, or DISABLED by the inventory or after failures). */
  status: 'ENABLED' | 'DISABLED';
  /** null for an association that has not run yet (state pending). */
  action: string | null;
  state: HealthState;
  /** The last run is older than its period allows (also true of a failing one). */
  stale: boolean;
  lastOutcome: 'success' | 'failure' | null;
  lastRunTime: number | null;
  lastRunId: number | null;
  errorType: string | null;
  errorMessage: string | null;
  failingSince: number | null;
  consecutiveFailures: number;
  lastSuccessTime: number | null;
  lastFailureTime: number | null;
  latenessMs: number | null;
  elapsedMs: number | null;
  /** Runs and successes in the last 60 minute buckets (the current one included), and in the last 24 hour buckets. */
  runs1h: number;
  successes1h: number;
  runs24h: number;
  successes24h: number;
  /** successes / runs, null without runs in the window. */
  successRatio1h: number | null;
  successRatio24h: number | null;
}

export interface HealthFilter {
  agentId: number;
  deviceId?: number;
  customDriverId?: number;
  state?: HealthState;
  errorType?: string;
  /** The time states and ratios are computed at (default the store's now). */
  now?: number;
}

interface HealthDbRow {
  association_id: number;
  custom_driver_id: number;
  driver_name: string;
  device_id: number;
  device_name: string;
  sample_period: number;
  status: 'ENABLED' | 'DISABLED';
  creation_time: number;
  monitored: number;
  action: string | null;
  last_outcome: 'success' | 'failure' | null;
  last_run_time: number | null;
  last_run_id: number | null;
  error_type: string | null;
  error_message: string | null;
  failing_since: number | null;
  consecutive_failures: number | null;
  last_success_time: number | null;
  last_failure_time: number | null;
  lateness_ms: number | null;
  elapsed_ms: number | null;
}

interface CountsDbRow {
  association_id: number;
  action: string;
  runs_1h: number;
  ok_1h: number;
  runs_24h: number;
  ok_24h: number;
}

const n = (value: number | string | null): number | null => (value === null ? null : Number(value));

/** failing first (the longest failing first), then stale, ok, pending; then device, driver, action. */
function compare(a: AssociationHealth, b: AssociationHealth): number {
  const rank = HEALTH_STATES.indexOf(a.state) - HEALTH_STATES.indexOf(b.state);
  if (rank) return rank;
  if (a.state === 'failing' && a.failingSince !== b.failingSince) return (a.failingSince ?? 0) - (b.failingSince ?? 0);
  return a.deviceName.localeCompare(b.deviceName) || a.deviceId - b.deviceId || a.driverName.localeCompare(b.driverName) || a.associationId - b.associationId || (a.action ?? '').localeCompare(b.action ?? '');
}

/** The health of the agent's associations (each action a row; an association never run one row, pending), filtered, failing first. */
export async function listAssociationHealth(store: Store, filter: HealthFilter): Promise<AssociationHealth[]> {
  const now = filter.now ?? store.now();
  const where = ['a.agent_id = ?'];
  const params: unknown[] = [filter.agentId];
  if (filter.deviceId !== undefined) {
    where.push('a.device_id = ?');
    params.push(filter.deviceId);
  }
  if (filter.customDriverId !== undefined) {
    where.push('a.custom_driver_id = ?');
    params.push(filter.customDriverId);
  }
  const rows = await store
    .statement<unknown[], HealthDbRow>(
      `SELECT a.id AS association_id, a.custom_driver_id, c.name AS driver_name, a.device_id, d.display_name AS device_name,
        a.sample_period, a.status, a.creation_time,
        CASE WHEN d.monitoring_state = 'MANAGED' AND d.excluded = 0 THEN 1 ELSE 0 END AS monitored,
        h.action, h.last_outcome, h.last_run_time, h.last_run_id, h.error_type, h.error_message, h.failing_since,
        h.consecutive_failures, h.last_success_time, h.last_failure_time, h.lateness_ms, h.elapsed_ms
      FROM custom_driver_associations a
      JOIN custom_drivers c ON c.id = a.custom_driver_id
      JOIN devices d ON d.id = a.device_id
      LEFT JOIN association_health h ON h.association_id = a.id
      WHERE ${where.join(' AND ')}`,
    )
    .all(...params);
  const counts = await store
    .statement<unknown[], CountsDbRow>(
      `SELECT k.association_id, k.action,
        sum(CASE WHEN k.width_ms = ? AND k.bucket_start >= ? THEN k.successes + k.failures ELSE 0 END) AS runs_1h,
        sum(CASE WHEN k.width_ms = ? AND k.bucket_start >= ? THEN k.successes ELSE 0 END) AS ok_1h,
        sum(CASE WHEN k.width_ms = ? AND k.bucket_start >= ? THEN k.successes + k.failures ELSE 0 END) AS runs_24h,
        sum(CASE WHEN k.width_ms = ? AND k.bucket_start >= ? THEN k.successes ELSE 0 END) AS ok_24h
      FROM association_health_counts k JOIN custom_driver_associations a ON a.id = k.association_id
      WHERE ${where.join(' AND ')}
      GROUP BY k.association_id, k.action`,
    )
    .all(
      ...[SHORT_WINDOW, SHORT_WINDOW, LONG_WINDOW, LONG_WINDOW].flatMap((w) => [w.widthMs, windowStart(now, w)]),
      ...params,
    );
  const byKey = new Map(counts.map((c) => [`${c.association_id}:${c.action}`, c]));
  const all = rows.map((row) => healthOf(row, byKey.get(`${row.association_id}:${row.action}`), now));
  return all.filter((h) => (filter.state === undefined || h.state === filter.state) && (filter.errorType === undefined || h.errorType === filter.errorType)).sort(compare);
}

function healthOf(row: HealthDbRow, counts: CountsDbRow | undefined, now: number): AssociationHealth {
  const lastRunTime = n(row.last_run_time);
  const samplePeriod = Number(row.sample_period);
  const running = row.status === 'ENABLED' && Number(row.monitored) === 1;
  // An association that never ran is stale once its first run is as overdue as a later one would be.
  const since = lastRunTime ?? Number(row.creation_time);
  const stale = running && now - since > 2 * samplePeriod * 1000 + STALE_MARGIN_MS;
  const state: HealthState = row.last_outcome === 'failure' ? 'failing' : stale ? 'stale' : row.last_outcome === 'success' ? 'ok' : 'pending';
  const runs1h = Number(counts?.runs_1h ?? 0);
  const successes1h = Number(counts?.ok_1h ?? 0);
  const runs24h = Number(counts?.runs_24h ?? 0);
  const successes24h = Number(counts?.ok_24h ?? 0);
  return {
    associationId: Number(row.association_id),
    customDriverId: Number(row.custom_driver_id),
    driverName: row.driver_name,
    deviceId: Number(row.device_id),
    deviceName: row.device_name,
    samplePeriod,
    status: row.status,
    action: row.action,
    state,
    stale,
    lastOutcome: row.last_outcome,
    lastRunTime,
    lastRunId: n(row.last_run_id),
    errorType: row.error_type,
    errorMessage: row.error_message,
    failingSince: n(row.failing_since),
    consecutiveFailures: Number(row.consecutive_failures ?? 0),
    lastSuccessTime: n(row.last_success_time),
    lastFailureTime: n(row.last_failure_time),
    latenessMs: n(row.lateness_ms),
    elapsedMs: n(row.elapsed_ms),
    runs1h,
    successes1h,
    runs24h,
    successes24h,
    successRatio1h: runs1h ? successes1h / runs1h : null,
    successRatio24h: runs24h ? successes24h / runs24h : null,
  };
}
