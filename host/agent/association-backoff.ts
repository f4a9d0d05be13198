// The per-association backoff after repeated limit hits: an association whose runs keep ending
// on a limit (timeout, cpu, memory) costs the sandbox its whole budget every period, at the
// expense of other devices' runs. After `threshold` consecutive hits its runs are spaced out,
// twice the period for the first, doubling with each further hit, never more than `maxMs`.
// A successful run restores it; so does an operator (reEnableCustomDriverAssociations). While
// it backs off the Monitoring API shows the association DISABLED ("disabled due to failure").
// Pure: the agent keeps the state in the store (host/store/drivers/association-backoff.ts).
import type { LimitName, RunResult } from '../contract/run-result.js';

export interface BackoffRule {
  /** Consecutive limit hits before the runs are spaced out (default 3). */
  threshold: number;
  /** The longest wait between two runs, ms (default 1 h; never less than the period). */
  maxMs: number;
}

export const DEFAULT_BACKOFF_RULE: Readonly<BackoffRule> = { threshold: 3, maxMs: 3_600_000 };

/** What one association run (all its actions) says for the backoff. */
export type BackoffVerdict = { kind: 'limit'; limit: LimitName } | { kind: 'success' } | { kind: 'neutral' };

export interface BackoffState {
  /** Consecutive runs that hit a limit. */
  hits: number;
  /** The limit the last of them hit. */
  lastLimit: LimitName;
  /** Wall-clock ms before which no run starts; null below the threshold. */
  backoffUntil: number | null;
}

/**
 * A run that hit a limit in any action counts as a hit; else one with a successful action
 * restores the association; a run that failed otherwise (a device's error) changes nothing.
 */
export function backoffVerdict(results: readonly RunResult[]): BackoffVerdict {
  const hit = results.find((r) => r.limitExceeded !== null);
  if (hit?.limitExceeded) return { kind: 'limit', limit: hit.limitExceeded };
  return results.some((r) => r.status === 'success') ? { kind: 'success' } : { kind: 'neutral' };
}

/** The wait after `hits` consecutive hits, ms: 0 below the threshold, then 2, 4, 8… periods, capped. */
export function backoffDelayMs(hits: number, periodMs: number, rule: BackoffRule = DEFAULT_BACKOFF_RULE): number {
  if (hits < rule.threshold) return 0;
  const doublings = Math.min(hits - rule.threshold + 1, 40); // 2^40 periods is past any cap
  return Math.min(Math.max(rule.maxMs, periodMs), periodMs * 2 ** doublings);
}

/** The state after a run that ended at `now`: null when the association is (back to) normal. */
export function nextBackoff(previous: BackoffState | null, verdict: BackoffVerdict, periodMs: number, now: number, rule: BackoffRule = DEFAULT_BACKOFF_RULE): BackoffState | null {
  if (verdict.kind === 'success') return null;
  if (verdict.kind === 'neutral') return previous;
  const hits = (previous?.hits ?? 0) + 1;
  const delay = backoffDelayMs(hits, periodMs, rule);
  return { hits, lastLimit: verdict.limit, backoffUntil: delay > 0 ? now + delay : null };
}

/** Checks agent options: integers, a threshold of at least 1 (0 turns the backoff off). */
export function backoffRuleOf(options: Partial<BackoffRule> | undefined, fail: (message: string) => Error): BackoffRule | null {
  const threshold = options?.threshold ?? DEFAULT_BACKOFF_RULE.threshold;
  const maxMs = options?.maxMs ?? DEFAULT_BACKOFF_RULE.maxMs;
  if (!Number.isInteger(threshold) || threshold < 0) throw fail(`agent option backoff.threshold must be an integer ≥ 0 (got ${String(threshold)})`);
  if (!Number.isInteger(maxMs) || maxMs < 1) throw fail(`agent option backoff.maxMs must be an integer ≥ 1 (got ${String(maxMs)})`);
  return threshold === 0 ? null : { threshold, maxMs };
}
