// The API's own call counts, for apiUsageInfo: one row per minute, key, caller IP and base
// resource. Keys are kept as a digest prefix, never as the key. Rows older than a day are
// pruned when a new minute starts, so the table stays a day of buckets.
import type { Store } from './store.js';

const MINUTE_MS = 60_000;
export const USAGE_WINDOW_MINUTES = 24 * 60;

export interface ApiCall {
  keyDigest: string;
  ip: string;
  /** The first path segment under /public-api/v1 ("agent", "custom-driver", "meta"…). */
  resource: string;
}

export interface ApiUsage {
  total: number;
  byKey: Array<{ keyDigest: string; count: number }>;
  byIp: Array<{ ip: string; count: number }>;
  byResource: Array<{ resource: string; count: number }>;
}

const lastPruned = new WeakMap<Store, number>();

export async function recordApiCall(store: Store, call: ApiCall): Promise<void> {
  const minute = Math.floor(store.now() / MINUTE_MS);
  await store
    .statement(
      `INSERT INTO api_usage (minute, key_digest, ip, resource, count) VALUES (?, ?, ?, ?, 1)
       ON CONFLICT (minute, key_digest, ip, resource) DO UPDATE SET count = api_usage.count + 1`,
    )
    .run(minute, call.keyDigest, call.ip, call.resource);
  if (lastPruned.get(store) !== minute) {
    lastPruned.set(store, minute);
    await store.statement('DELETE FROM api_usage WHERE minute <= ?').run(minute - USAGE_WINDOW_MINUTES);
  }
}

/** The calls of the last 24 hours (this minute and the 1439 before), busiest first. */
export async function apiUsage(store: Store): Promise<ApiUsage> {
  const since = Math.floor(store.now() / MINUTE_MS) - USAGE_WINDOW_MINUTES + 1;
  const by = async <K extends string>(column: string, as: K) =>
    await store
      .statement<[number], Record<K, string> & { count: number }>(
        `SELECT ${column} AS "${as}", SUM(count) AS count FROM api_usage WHERE minute >= ? GROUP BY ${column} ORDER BY count DESC, ${column}`,
      )
      .all(since);
  const total = (await store.statement<[number], { n: number | null }>('SELECT SUM(count) AS n FROM api_usage WHERE minute >= ?').get(since))!.n ?? 0;
  return { total, byKey: await by('key_digest', 'keyDigest'), byIp: await by('ip', 'ip'), byResource: await by('resource', 'resource') };
}
