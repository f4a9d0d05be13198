// The API's own call counts, for apiUsageInfo: one row per minute, key, caller IP and base
// resource. Keys are kept as a digest prefix, never as the key. Rows older than a day are
// pruned when a new minute starts, so the table stays a day of buckets.
//
// Calls are counted in memory (one counter per store in this process) and written about once a
// second, in one multi-row upsert that adds to the stored counts, not one commit per request:
// on PostgreSQL that commit was a round trip (and durable, a wait for the disk) on every read.
// apiUsage writes what is pending before it reads, so this process's calls show at once; the
// API server writes it on close too. A crash loses at most the last second's counts; calls made
// through another process show once that process has written them (about a second).
import type { Store } from '../store.js';

const MINUTE_MS = 60_000;
export const USAGE_WINDOW_MINUTES = 24 * 60;
/** How long counted calls wait in memory before they are written. */
export const USAGE_FLUSH_MS = 1000;
/** Rows per upsert (5 parameters each): well under both databases' parameter limits. */
const ROWS_PER_STATEMENT = 200;

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

interface Bucket extends ApiCall {
  minute: number;
  count: number;
}

/** A bucket's key in memory: JSON, so no separator a digest, an address or a path segment could contain can confuse it. */
function bucketKey(minute: number, call: ApiCall): string {
  return JSON.stringify([minute, call.keyDigest, call.ip, call.resource]);
}

/** The counts of one store not written yet, and the timer that writes them. */
class ApiUsageCounter {
  readonly #store: Store;
  #pending = new Map<string, Bucket>();
  #timer: NodeJS.Timeout | null = null;
  /** The flush under way (flushes run one after the other). */
  #flushing: Promise<void> = Promise.resolve();
  #lastPruned: number | null = null;

  constructor(store: Store) {
    this.#store = store;
  }

  count(call: ApiCall): void {
    const minute = Math.floor(this.#store.now() / MINUTE_MS);
    const key = bucketKey(minute, call);
    const bucket = this.#pending.get(key);
    if (bucket) bucket.count++;
    else this.#pending.set(key, { minute, keyDigest: call.keyDigest, ip: call.ip, resource: call.resource, count: 1 });
    this.#arm();
  }

  #arm(): void {
    if (this.#timer || this.#pending.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // Failures are kept for the next flush (see #write); nothing to tell here.
      this.flush().catch(() => undefined);
    }, USAGE_FLUSH_MS);
    // A process with nothing else to do may end: the API server writes the counts on close.
    this.#timer.unref();
  }

  /** Writes the pending counts; resolves once they (and any flush before) are in the store. */
  flush(): Promise<void> {
    const next = this.#flushing.then(() => this.#write());
    this.#flushing = next.catch(() => undefined);
    return next;
  }

  async #write(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#pending.size === 0) return;
    const buckets = [...this.#pending.values()];
    this.#pending = new Map();
    let written = 0;
    try {
      for (; written < buckets.length; written += ROWS_PER_STATEMENT) {
        const rows = buckets.slice(written, written + ROWS_PER_STATEMENT);
        await this.#store
          .statement(
            `INSERT INTO api_usage (minute, key_digest, ip, resource, count) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}
             ON CONFLICT (minute, key_digest, ip, resource) DO UPDATE SET count = api_usage.count + excluded.count`,
          )
          .run(...rows.flatMap((b) => [b.minute, b.keyDigest, b.ip, b.resource, b.count]));
      }
    } catch (error) {
      // A closed store will not take them; otherwise keep them for the next flush.
      if (this.#store.open) {
        for (const bucket of buckets.slice(written)) this.#restore(bucket);
        this.#arm();
      }
      throw error;
    }
    const minute = Math.floor(this.#store.now() / MINUTE_MS);
    if (this.#lastPruned !== minute) {
      this.#lastPruned = minute;
      await this.#store.statement('DELETE FROM api_usage WHERE minute <= ?').run(minute - USAGE_WINDOW_MINUTES);
    }
  }

  #restore(bucket: Bucket): void {
    const key = bucketKey(bucket.minute, bucket);
    const counted = this.#pending.get(key);
    if (counted) counted.count += bucket.count;
    else this.#pending.set(key, bucket);
  }
}

const counters = new WeakMap<Store, ApiUsageCounter>();

function counterOf(store: Store): ApiUsageCounter {
  let counter = counters.get(store);
  if (!counter) {
    counter = new ApiUsageCounter(store);
    counters.set(store, counter);
  }
  return counter;
}

/** Counts one call, in memory; written within about a second (USAGE_FLUSH_MS), or by flushApiUsage. */
export function recordApiCall(store: Store, call: ApiCall): void {
  counterOf(store).count(call);
}

/** Writes the calls counted in this process and not written yet (the API server calls it on close). */
export async function flushApiUsage(store: Store): Promise<void> {
  await counters.get(store)?.flush();
}

/** The calls of the last 24 hours (this minute and the 1439 before), busiest first; this process's pending counts written first. */
export async function apiUsage(store: Store): Promise<ApiUsage> {
  await flushApiUsage(store);
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
