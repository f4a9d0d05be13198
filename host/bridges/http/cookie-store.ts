// A device's cookie jar, bounded as browsers bound theirs: a device (or a device taken over)
// answering every request with new cookies would otherwise grow the host without end, since
// sessions outlive runs. Per domain at most MAX_COOKIES_PER_DOMAIN, the oldest dropped first;
// a cookie whose name and value pass MAX_COOKIE_BYTES is not stored at all.
import { MemoryCookieStore, type Cookie, type ErrorCallback } from 'tough-cookie';

export const MAX_COOKIES_PER_DOMAIN = 50;
export const MAX_COOKIE_BYTES = 4096;

export class BoundedCookieStore extends MemoryCookieStore {
  /** Cookies dropped so far (too large, or the oldest past the bound). */
  dropped = 0;

  override putCookie(cookie: Cookie): Promise<void>;
  override putCookie(cookie: Cookie, callback: ErrorCallback): void;
  override putCookie(cookie: Cookie, callback?: ErrorCallback): unknown {
    if (cookie.key.length + String(cookie.value).length > MAX_COOKIE_BYTES) {
      this.dropped++;
      return callback ? callback(null) : Promise.resolve();
    }
    const done = callback ? super.putCookie(cookie, callback) : super.putCookie(cookie);
    if (cookie.domain) this.#trim(cookie.domain);
    return done;
  }

  /** No cookie kept (expired ones count until tough-cookie drops them on a read). */
  get empty(): boolean {
    for (const paths of Object.values(this.idx)) {
      for (const byKey of Object.values(paths)) if (Object.keys(byKey).length > 0) return false;
    }
    return true;
  }

  /** Drops the oldest cookies of a domain past the bound (at most one or two per put). */
  #trim(domain: string): void {
    const paths = this.idx[domain];
    if (!paths) return;
    const all: Cookie[] = [];
    for (const byKey of Object.values(paths)) all.push(...Object.values(byKey));
    if (all.length <= MAX_COOKIES_PER_DOMAIN) return;
    all.sort((a, b) => (a.creationIndex ?? 0) - (b.creationIndex ?? 0));
    for (const old of all.slice(0, all.length - MAX_COOKIES_PER_DOMAIN)) {
      delete paths[old.path!]?.[old.key];
      this.dropped++;
    }
  }
}
