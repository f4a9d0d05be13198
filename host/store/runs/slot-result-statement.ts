// PostgreSQL: a scheduled slot's result written in one statement, where the general write
// (report-run.ts) takes BEGIN, the association's mark, the slot's record, the variables' lookup,
// their update, their insert, their history and COMMIT: 7-8 round trips, each of which costs the
// agent (pg, kysely) and PostgreSQL more CPU than the SQL itself does (issue 22, G7). Data-modifying
// CTEs run in one snapshot and commit together; each step takes what the step before it
// returned, so a step whose input is empty writes nothing:
//   mark   the association marked run (its row lock stands for the device check, as in the
//          general write), unless the slot has its result already; gone, nothing else is
//          written and the answer is `gone`. Two writers of one slot at the same moment both
//          mark it (the general write rolls the second's mark back): a run did inspect the device;
//   slot   the slot's record, ON CONFLICT (association_id, slot_ms) DO NOTHING: a second writer
//          of the slot waits for the first, then finds its row and writes nothing (`duplicate`);
//   upd    the variables the device has, by path, their value replaced (previous_value kept);
//   fresh  the others, numbered in the run's order;
//   room   how many new ones the device's bound leaves room for (counted only when there are some);
//   ins    those inserted (not an upsert: ON CONFLICT DO UPDATE would take a sequence value
//          for every variable of every run); the rest are answered as refused;
//   hist   a history sample for each;
//   health, counts, pruned   the association's health (association-health.ts): its row upserted
//          with the slot's run id, the run counted in its minute's and hour's bucket, the buckets
//          past their window deleted; all only when the slot's record was written.
// Used only for the shape a scheduled run writes (no tables, backup, activity entry or prune in
// the write, at most one batch of distinct paths); report-run.ts decides and falls back.
import type { Store } from '../store.js';
import { RUN_FIELDS, runValues, type NewRun } from './runs.js';
import { postgresText } from '../db/sql-statement.js';
import type { VariableWrite } from '../results/variables.js';
import { COUNTS_CONFLICT, HOUR_MS, MINUTE_MS, bucketStart, countsPruneSql, healthColumns, healthUpsertSql, pruneCuts, type HealthWrite } from './association-health.js';

/** The most variables written in one statement (as writeVariables' batches). */
export const SLOT_STATEMENT_MAX_VARIABLES = 100;

/** What the statement writes of a variable (a VariableWrite of a run's result). */
export type SlotVariable = Pick<VariableWrite, 'path' | 'label' | 'unit' | 'value' | 'valueType'>;

/** refused: the new paths the device's variable bound kept out (variable-bound.ts), in order. */
export type SlotStatementOutcome = { runId: number; variableIds: number[]; refused: string[] } | 'gone' | 'duplicate';

/** The statement's arrays as PostgreSQL text (sql-statement.ts maps plain parameters, not arrays). */
const text = (value: string | null | undefined): string | null => (value == null ? null : postgresText(value));

/** The paths as PostgreSQL will hold them are distinct: the statement matches rows by path. */
export function distinctStoredPaths(variables: readonly SlotVariable[]): boolean {
  return new Set(variables.map((v) => text(v.path))).size === variables.length;
}

const fields = RUN_FIELDS;
/** The parameter of the device's variable bound: after the run's record. */
const MAX_PARAM = 12 + fields.split(',').length;
// Parameters: 1 now, 2 association, 3 agent, 4 device, 5 slot_ms, 6 runner, 7-11 the variables'
// columns as arrays, then the run's record (runValues' order), then the device's variable bound,
// then the health's columns (healthColumns' order), the minute's and hour's buckets, their cuts.
const H = MAX_PARAM + 1;
/** healthColumns' parameters, typed (a SELECT's parameters have no column to take a type from). */
const HEALTH_TYPES = ['text', 'text', 'bigint', 'text', 'text', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint'];
const healthSelect = `SELECT $2::bigint, slot.id, ${HEALTH_TYPES.map((type, i) => `$${H + i}::${type}`).join(', ')} FROM slot`;
const B = H + HEALTH_TYPES.length;
const SQL = `
WITH mark AS (
  UPDATE custom_driver_associations SET last_inspection_time = $1
  WHERE id = $2 AND NOT EXISTS (SELECT 1 FROM runs WHERE association_id = $2 AND slot_ms = $5)
  RETURNING id
), slot AS (
  INSERT INTO runs (${fields}, slot_ms, runner)
  SELECT ${fields.split(',').map((_, i) => `$${12 + i}`).join(', ')}, $5, $6 FROM mark
  ON CONFLICT (association_id, slot_ms) DO NOTHING
  RETURNING id
), v AS (
  SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) WITH ORDINALITY
    AS v(path, label, unit, value, value_type, n)
  WHERE EXISTS (SELECT 1 FROM slot)
), upd AS (
  UPDATE variables SET association_id = $2, value_update_time = $1, previous_value = variables.value,
    label = v.label, unit = v.unit, value = v.value, value_type = v.value_type, metric = NULL, has_history = 1
  FROM v WHERE variables.device_id = $4 AND variables.path = v.path
  RETURNING variables.id, variables.path
), fresh AS (
  SELECT v.*, row_number() OVER (ORDER BY v.n) AS k FROM v
  WHERE NOT EXISTS (SELECT 1 FROM variables x WHERE x.device_id = $4 AND x.path = v.path)
), room AS (
  SELECT CASE WHEN $${MAX_PARAM}::bigint IS NULL OR NOT EXISTS (SELECT 1 FROM fresh) THEN NULL
    ELSE $${MAX_PARAM}::bigint - (SELECT count(*) FROM variables WHERE device_id = $4) END AS left
), ins AS (
  INSERT INTO variables (agent_id, device_id, association_id, path, label, unit, value, previous_value, value_type,
    metric, has_history, creation_time, value_update_time)
  SELECT $3, $4, $2, fresh.path, fresh.label, fresh.unit, fresh.value, NULL, fresh.value_type, NULL, 1, $1, $1 FROM fresh, room
  WHERE room.left IS NULL OR fresh.k <= room.left
  RETURNING id, path
), written AS (
  SELECT w.id, v.value, v.n FROM (SELECT id, path FROM upd UNION ALL SELECT id, path FROM ins) w JOIN v ON v.path = w.path
), hist AS (
  INSERT INTO variable_history (variable_id, timestamp, value) SELECT id, $1, value FROM written
), health AS (
  ${healthUpsertSql(healthSelect)}
), counts AS (
  INSERT INTO association_health_counts (association_id, action, width_ms, bucket_start, successes, failures)
  SELECT $2::bigint, $${H}::text, w.width_ms, w.bucket_start, $${B + 2}::bigint, $${B + 3}::bigint
  FROM slot CROSS JOIN (VALUES (${MINUTE_MS}::bigint, $${B}::bigint), (${HOUR_MS}::bigint, $${B + 1}::bigint)) AS w(width_ms, bucket_start)
  ${COUNTS_CONFLICT}
), pruned AS (
  ${countsPruneSql('$2::bigint', `$${H}::text`, `$${B + 4}::bigint`, `$${B + 5}::bigint`)} AND EXISTS (SELECT 1 FROM slot)
)
SELECT EXISTS (SELECT 1 FROM runs WHERE association_id = $2 AND slot_ms = $5) AS taken, (SELECT id FROM mark) AS marked, (SELECT id FROM slot) AS run_id,
  (SELECT json_agg(id ORDER BY n) FROM written) AS variable_ids,
  (SELECT json_agg(fresh.path ORDER BY fresh.k) FROM fresh, room WHERE room.left IS NOT NULL AND fresh.k > room.left) AS refused`;

/**
 * Writes the slot's record and its variables with their history, and marks the association
 * run, in one statement (one round trip, its own transaction unless the caller is in one).
 */
export async function writeSlotResultStatement(
  store: Store,
  run: NewRun & { associationId: number; deviceId: number },
  slot: { slotMs: number; runner?: string | null },
  variables: readonly SlotVariable[],
  now: number,
  maxVariables: number | null,
  health: HealthWrite,
): Promise<SlotStatementOutcome> {
  if (store.dialect !== 'postgres') throw new Error('writeSlotResultStatement is PostgreSQL only');
  const params: unknown[] = [
    now,
    run.associationId,
    run.agentId,
    run.deviceId,
    Math.round(slot.slotMs),
    slot.runner ?? null,
    variables.map((v) => text(v.path)),
    variables.map((v) => text(v.label)),
    variables.map((v) => text(v.unit)),
    variables.map((v) => text(v.value)),
    variables.map((v) => text(v.valueType)),
    ...runValues(run),
    maxVariables,
    ...healthColumns(health),
    bucketStart(health.at, MINUTE_MS),
    bucketStart(health.at, HOUR_MS),
    health.outcome === 'success' ? 1 : 0,
    health.outcome === 'success' ? 0 : 1,
    pruneCuts(health.at).minuteCut,
    pruneCuts(health.at).hourCut,
  ];
  // The text has no ?: its $n pass the store's placeholder numbering unchanged.
  const row = (await store.statement<unknown[], { taken: boolean; marked: number | null; run_id: number | null; variable_ids: number[] | null; refused: string[] | null }>(SQL, { named: true }).get(...params))!;
  // Not marked: the slot had its result already, or the association is gone.
  if (row.marked === null) return row.taken ? 'duplicate' : 'gone';
  if (row.run_id === null) return 'duplicate';
  const variableIds = (row.variable_ids ?? []).map(Number);
  const refused = row.refused ?? [];
  if (variableIds.length + refused.length !== variables.length) {
    throw new Error(`the slot's statement wrote ${variableIds.length} of ${variables.length} variables (${refused.length} refused by the device's bound)`);
  }
  return { runId: Number(row.run_id), variableIds, refused };
}
