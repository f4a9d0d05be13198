// PostgreSQL keeps variable_history in one partition per UTC day (postgres-ddl.ts makes the
// table PARTITION BY RANGE (timestamp)). A day's partition is made before anything is written
// into it: when the store opens (yesterday to two days ahead), then as writes reach a day not
// seen yet. Retention drops whole days rather than deleting rows, which is what keeps a store
// of billions of samples writable (SCALE-OUT.md 3). SQLite keeps one table and deletes rows.
import { sql } from 'kysely';
import type { SqlDialect, StoreKysely } from './database.js';

/**
 * What partition upkeep needs of a store: its database and which kind it is. A Store is one;
 * store.ts calls this module as it opens, so this module names no Store (no import back up).
 */
export interface HistoryDatabase {
  readonly dialect: SqlDialect;
  readonly kysely: StoreKysely;
}

export const DAY_MS = 24 * 3600 * 1000;
const PARTITION_LOCK = 0x64627368;
const known = new WeakMap<HistoryDatabase, Set<number>>();

function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function historyPartitionName(dayStartMs: number): string {
  return `variable_history_${new Date(dayStartMs).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

function knownDays(store: HistoryDatabase): Set<number> {
  let days = known.get(store);
  if (!days) known.set(store, (days = new Set()));
  return days;
}

/**
 * Makes the day partitions that hold [fromMs, toMs] (Postgres; nothing on SQLite). Runs on its
 * own connection, outside any transaction the caller is in, under an advisory lock so that two
 * agents reaching a new day at once make it once.
 */
export async function ensureHistoryPartitions(store: HistoryDatabase, fromMs: number, toMs: number = fromMs): Promise<void> {
  if (store.dialect !== 'postgres') return;
  const days = knownDays(store);
  const missing: number[] = [];
  for (let day = dayOf(fromMs); day <= dayOf(toMs); day += DAY_MS) if (!days.has(day)) missing.push(day);
  if (!missing.length) return;
  await store.kysely.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${PARTITION_LOCK})`.execute(trx);
    for (const day of missing) {
      const name = historyPartitionName(day);
      await sql
        .raw(`CREATE TABLE IF NOT EXISTS ${name} PARTITION OF variable_history FOR VALUES FROM (${day}) TO (${day + DAY_MS})`)
        .execute(trx);
    }
  });
  for (const day of missing) days.add(day);
}

/** The partitions of whole days that ended before cutoffMs are dropped; answers the samples they held. */
export async function dropHistoryBefore(store: HistoryDatabase, cutoffMs: number): Promise<number> {
  const { rows } = await sql<{ name: string; bound: string }>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
    WHERE p.relname = 'variable_history'`.execute(store.kysely);
  let dropped = 0;
  for (const row of rows) {
    const to = /TO \('?(-?\d+)'?\)/.exec(row.bound);
    if (!to || Number(to[1]) > cutoffMs) continue;
    const count = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(row.name)}`.execute(store.kysely);
    await sql`DROP TABLE IF EXISTS ${sql.table(row.name)}`.execute(store.kysely);
    dropped += Number(count.rows[0]?.n ?? 0);
    knownDays(store).delete(Number(to[1]) - DAY_MS);
  }
  return dropped;
}
