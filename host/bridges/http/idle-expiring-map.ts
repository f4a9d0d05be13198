// A Map whose entries leave when unused for idleMs, holding at most maxEntries (the least recently
// used leave first when it is full). Reading an entry with get() moves it last, so the Map's own
// order is the order of last use and expiry only ever looks at the front: each call costs O(1)
// amortised, however many entries there are. Expiry happens as the map is used (no timer): an
// unused map keeps what it has until its next call or clear().
import { DriverboxError } from '../../contract/errors.js';

export type EvictReason = 'idle' | 'full';

export interface IdleExpiringMapOptions<K, V> {
  /** An entry not read or set for this long (ms) leaves at the next call. */
  idleMs: number;
  maxEntries: number;
  /** Told of each entry that leaves by expiry or the bound (not of delete() or clear()). */
  onEvict?: (key: K, value: V, reason: EvictReason) => void;
  /** An entry still in use though not read (a request in flight): it does not expire, and counts as used now. */
  inUse?: (value: V) => boolean;
  /** Default performance.now. */
  now?: () => number;
}

export class IdleExpiringMap<K, V> {
  readonly #entries = new Map<K, { value: V; usedAt: number }>();
  readonly #idleMs: number;
  readonly #max: number;
  readonly #onEvict: (key: K, value: V, reason: EvictReason) => void;
  readonly #now: () => number;
  readonly #inUse: (value: V) => boolean;

  constructor(options: IdleExpiringMapOptions<K, V>) {
    if (!(options.idleMs > 0)) throw new DriverboxError('INVALID_OPTIONS', `idleMs must be a positive number of milliseconds (got ${String(options.idleMs)})`);
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new DriverboxError('INVALID_OPTIONS', `maxEntries must be a positive integer (got ${String(options.maxEntries)})`);
    }
    this.#idleMs = options.idleMs;
    this.#max = options.maxEntries;
    this.#onEvict = options.onEvict ?? (() => {});
    this.#now = options.now ?? (() => performance.now());
    this.#inUse = options.inUse ?? (() => false);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, marked as used now; undefined when absent (or just expired). */
  get(key: K): V | undefined {
    const now = this.#now();
    this.#expire(now);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    entry.usedAt = now;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Whether the key is there, without marking it used. */
  has(key: K): boolean {
    return this.#entries.has(key);
  }

  set(key: K, value: V): void {
    const now = this.#now();
    this.#expire(now);
    this.#entries.delete(key);
    while (this.#entries.size >= this.#max) this.#evictOldest('full');
    this.#entries.set(key, { value, usedAt: now });
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Lets expired entries leave now (get and set do it too). */
  expire(): void {
    this.#expire(this.#now());
  }

  values(): V[] {
    return [...this.#entries.values()].map((e) => e.value);
  }

  /** Empties the map and answers what it held; onEvict is not called. */
  clear(): V[] {
    const values = this.values();
    this.#entries.clear();
    return values;
  }

  #expire(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (now - entry.usedAt < this.#idleMs) return;
      this.#entries.delete(key);
      if (this.#inUse(entry.value)) {
        // Moved last as if just used: the loop meets it again only after the entries it must look at.
        entry.usedAt = now;
        this.#entries.set(key, entry);
      } else {
        this.#onEvict(key, entry.value, 'idle');
      }
    }
  }

  #evictOldest(reason: EvictReason): void {
    const first = this.#entries.entries().next();
    if (first.done) return;
    const [key, entry] = first.value;
    this.#entries.delete(key);
    this.#onEvict(key, entry.value, reason);
  }
}
