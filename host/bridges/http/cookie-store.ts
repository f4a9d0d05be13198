// A device's cookie jar, bounded as browsers bound theirs: a device (or a device taken over)
// answering every request with new cookies would otherwise grow the host without end, since
// sessions outlive runs. Per domain at most MAX_COOKIES_PER_DOMAIN and per jar at most
// MAX_COOKIES_PER_JAR cookies and MAX_JAR_BYTES, the oldest dropped first; a cookie larger than
// a cookie may be (name and value past MAX_COOKIE_BYTES, a path past MAX_COOKIE_PATH_CHARS, all
// its text past MAX_COOKIE_TEXT) is not stored at all.
//
// Every operation costs at most what the bounds allow, whatever the device did before: cookies
// are kept in creation order (the oldest is the first), and a path or domain left without
// cookies is removed at once (tough-cookie's MemoryCookieStore keeps every path it ever saw, so
// a device setting each cookie on a new path made each later trim and lookup walk them all).
import { pathMatch, permuteDomain, Store, type Callback, type Cookie, type ErrorCallback, type Nullable } from 'tough-cookie';

export const MAX_COOKIES_PER_DOMAIN = 50;
export const MAX_COOKIES_PER_JAR = 150;
/** Name and value of one cookie, characters. */
export const MAX_COOKIE_BYTES = 4096;
/** The Path of one cookie, characters (RFC 6265bis ignores attribute values past 1024 octets). */
export const MAX_COOKIE_PATH_CHARS = 1024;
/** One cookie's whole text (path, domain and unknown attributes too), characters. */
export const MAX_COOKIE_TEXT = 8192;
/** All the cookies of one jar: names, values, paths, domains and unknown attributes, characters. */
export const MAX_JAR_BYTES = 128 * 1024;

/** One kept cookie; the same entry stays when the device updates the cookie (it keeps its age). */
interface Entry {
  cookie: Cookie;
  bytes: number;
}

interface Domain {
  /** path → name → entry. */
  paths: Map<string, Map<string, Entry>>;
  /** Oldest first. */
  order: Set<Entry>;
}

/** What a cookie holds in memory, near enough: its text (unknown attributes too, which a line may carry by the hundred). */
function sizeOf(cookie: Cookie): number {
  let bytes = cookie.key.length + String(cookie.value).length + (cookie.path?.length ?? 0) + (cookie.domain?.length ?? 0);
  for (const extension of cookie.extensions ?? []) bytes += extension.length;
  return bytes;
}

function settle<T>(callback: Callback<T> | undefined, value: T): Promise<T> | void {
  if (callback) return callback(null, value);
  return Promise.resolve(value);
}

export class BoundedCookieStore extends Store {
  /** Cookies dropped so far (too large, or the oldest past a bound). */
  dropped = 0;
  readonly #domains = new Map<string, Domain>();
  /** Every entry, oldest first: the jar's bound drops from the front. */
  readonly #order = new Set<Entry>();
  #bytes = 0;

  constructor() {
    super();
    this.synchronous = true;
  }

  /** No cookie kept (expired ones count until tough-cookie drops them on a read). */
  get empty(): boolean {
    return this.#order.size === 0;
  }

  /** Cookies, paths (a domain's path with cookies) and bytes kept. */
  get size(): { cookies: number; paths: number; bytes: number } {
    let paths = 0;
    for (const domain of this.#domains.values()) paths += domain.paths.size;
    return { cookies: this.#order.size, paths, bytes: this.#bytes };
  }

  /** Every cookie kept, oldest first. */
  cookies(): Cookie[] {
    return Array.from(this.#order, (entry) => entry.cookie);
  }

  override findCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>): Promise<Cookie | undefined>;
  override findCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>, callback: Callback<Cookie | undefined>): void;
  override findCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>, callback?: Callback<Cookie | undefined>): unknown {
    const entry = domain == null || path == null || key == null ? undefined : this.#domains.get(domain)?.paths.get(path)?.get(key);
    return settle(callback, entry?.cookie);
  }

  override findCookies(domain: Nullable<string>, path: Nullable<string>, allowSpecialUseDomain?: boolean): Promise<Cookie[]>;
  override findCookies(domain: Nullable<string>, path: Nullable<string>, allowSpecialUseDomain?: boolean, callback?: Callback<Cookie[]>): void;
  override findCookies(domain: Nullable<string>, path: Nullable<string>, special?: boolean | Callback<Cookie[]>, callback?: Callback<Cookie[]>): unknown {
    // As tough-cookie's own store: a callback in the third place means special-use domains are allowed.
    if (typeof special === 'function') {
      callback = special;
      special = true;
    }
    const found: Cookie[] = [];
    if (domain) {
      for (const name of permuteDomain(domain, special === true) ?? [domain]) {
        const kept = this.#domains.get(name);
        if (!kept) continue;
        for (const [cookiePath, byKey] of kept.paths) {
          if (path && !pathMatch(path, cookiePath)) continue;
          for (const entry of byKey.values()) found.push(entry.cookie);
        }
      }
    }
    return settle(callback, found);
  }

  override putCookie(cookie: Cookie): Promise<void>;
  override putCookie(cookie: Cookie, callback: ErrorCallback): void;
  override putCookie(cookie: Cookie, callback?: ErrorCallback): unknown {
    this.#put(cookie);
    return settle(callback as Callback<undefined> | undefined, undefined);
  }

  override updateCookie(oldCookie: Cookie, newCookie: Cookie): Promise<void>;
  override updateCookie(oldCookie: Cookie, newCookie: Cookie, callback: ErrorCallback): void;
  override updateCookie(_oldCookie: Cookie, newCookie: Cookie, callback?: ErrorCallback): unknown {
    this.#put(newCookie);
    return settle(callback as Callback<undefined> | undefined, undefined);
  }

  override removeCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>): Promise<void>;
  override removeCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>, callback: ErrorCallback): void;
  override removeCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>, callback?: ErrorCallback): unknown {
    const entry = domain == null || path == null || key == null ? undefined : this.#domains.get(domain)?.paths.get(path)?.get(key);
    if (entry) this.#remove(entry);
    return settle(callback as Callback<undefined> | undefined, undefined);
  }

  override removeCookies(domain: string, path: Nullable<string>): Promise<void>;
  override removeCookies(domain: string, path: Nullable<string>, callback: ErrorCallback): void;
  override removeCookies(domain: string, path: Nullable<string>, callback?: ErrorCallback): unknown {
    const kept = this.#domains.get(domain);
    if (kept) {
      const buckets = path ? [kept.paths.get(path)] : [...kept.paths.values()];
      for (const byKey of buckets) for (const entry of [...(byKey?.values() ?? [])]) this.#remove(entry);
    }
    return settle(callback as Callback<undefined> | undefined, undefined);
  }

  override removeAllCookies(): Promise<void>;
  override removeAllCookies(callback: ErrorCallback): void;
  override removeAllCookies(callback?: ErrorCallback): unknown {
    this.#domains.clear();
    this.#order.clear();
    this.#bytes = 0;
    return settle(callback as Callback<undefined> | undefined, undefined);
  }

  override getAllCookies(): Promise<Cookie[]>;
  override getAllCookies(callback: Callback<Cookie[]>): void;
  override getAllCookies(callback?: Callback<Cookie[]>): unknown {
    return settle(callback, this.cookies());
  }

  /** Adds or replaces a cookie (a replaced one keeps its place: tough-cookie keeps its creation), then applies the bounds. */
  #put(cookie: Cookie): void {
    const { domain, path, key } = cookie;
    if (domain == null || path == null || key == null) return;
    const bytes = sizeOf(cookie);
    if (key.length + String(cookie.value).length > MAX_COOKIE_BYTES || path.length > MAX_COOKIE_PATH_CHARS || bytes > MAX_COOKIE_TEXT) {
      this.dropped++;
      return;
    }
    let kept = this.#domains.get(domain);
    if (!kept) {
      kept = { paths: new Map(), order: new Set() };
      this.#domains.set(domain, kept);
    }
    let byKey = kept.paths.get(path);
    if (!byKey) {
      byKey = new Map();
      kept.paths.set(path, byKey);
    }
    const old = byKey.get(key);
    if (old) {
      this.#bytes += bytes - old.bytes;
      old.cookie = cookie;
      old.bytes = bytes;
    } else {
      const entry = { cookie, bytes };
      byKey.set(key, entry);
      kept.order.add(entry);
      this.#order.add(entry);
      this.#bytes += bytes;
    }
    // Each drop removes one entry: a put drops at most what it added past the bounds.
    while (kept.order.size > MAX_COOKIES_PER_DOMAIN) this.#drop(kept.order.values().next().value!);
    while (this.#order.size > MAX_COOKIES_PER_JAR || this.#bytes > MAX_JAR_BYTES) this.#drop(this.#order.values().next().value!);
  }

  #drop(entry: Entry): void {
    this.#remove(entry);
    this.dropped++;
  }

  /** Removes an entry, and its path and domain when they are left empty. */
  #remove(entry: Entry): void {
    const { domain, path, key } = entry.cookie as { domain: string; path: string; key: string };
    const kept = this.#domains.get(domain);
    const byKey = kept?.paths.get(path);
    if (!kept || byKey?.get(key) !== entry) return;
    byKey.delete(key);
    if (byKey.size === 0) kept.paths.delete(path);
    kept.order.delete(entry);
    if (kept.order.size === 0) this.#domains.delete(domain);
    this.#order.delete(entry);
    this.#bytes -= entry.bytes;
  }
}
