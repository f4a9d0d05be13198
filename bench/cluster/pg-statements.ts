// PostgreSQL's own count of the statements it ran and the time it spent on each
// (pg_stat_statements, preloaded in the rig's server), to say what a run costs the database in
// the steady window: which statements, how many per run, and their planning and execution time.
import { withPgClient as withClient } from '../lib/pg-client.js';

/** The server settings the counts need (the module is part of Debian's postgresql package). */
export const STATEMENT_STATS_SETTINGS: Record<string, string> = {
  shared_preload_libraries: "'pg_stat_statements'",
  'pg_stat_statements.track_planning': 'on',
  'pg_stat_statements.track': 'all',
};

export interface StatementStats {
  query: string;
  calls: number;
  /** Planning + execution, ms. */
  totalMs: number;
  planMs: number;
}

/** Zeroes the counts (at the start of a window). `url` is any database of the server. */
export async function resetStatementStats(url: string): Promise<void> {
  await withClient(url, async (client) => {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
  });
}

/** The counts since the last reset, for the database named, most time first. */
export async function readStatementStats(url: string, database: string): Promise<StatementStats[]> {
  return await withClient(url, async (client) => {
    const { rows } = await client.query<{ query: string; calls: string; plan: number; exec: number }>(
      `SELECT s.query, s.calls, s.total_plan_time AS plan, s.total_exec_time AS exec
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
      [database],
    );
    return rows
      .map((r) => ({ query: r.query.replace(/\s+/g, ' ').trim(), calls: Number(r.calls), planMs: r.plan, totalMs: r.plan + r.exec }))
      .sort((a, b) => b.totalMs - a.totalMs);
  });
}

/** "2.00 per run, 0.41 ms: 1.00 × 0.25 ms WITH mark AS … ; …": the statements of ≥ 0.01 per run, most time first. */
export function statementsPerRun(stats: readonly StatementStats[], runs: number): string {
  const per = (n: number) => n / Math.max(1, runs);
  const calls = stats.reduce((sum, s) => sum + s.calls, 0);
  const ms = stats.reduce((sum, s) => sum + s.totalMs, 0);
  const lines = stats
    .filter((s) => per(s.calls) >= 0.01)
    .map((s) => `\n    ${per(s.calls).toFixed(2)} × ${(s.totalMs / Math.max(1, s.calls)).toFixed(3)} ms (plan ${(s.planMs / Math.max(1, s.calls)).toFixed(3)}) ${s.query.slice(0, 110)}`);
  return `${per(calls).toFixed(2)} per run, ${per(ms).toFixed(3)} ms of planning and execution per run:${lines.join('')}`;
}
