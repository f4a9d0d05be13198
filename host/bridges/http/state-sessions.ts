// The sessions of a run given its device's kept state (RunRequest.deviceState, the scale-out
// mode): each session's jar is the run's own, built from the snapshot's cookies for that key (or
// empty), while its connections are the host's kept ones (connections are not state). When the
// run is over, exportChanged() gives the sessions whose jars the run changed, as plain data.
import { Cookie, CookieJar } from 'tough-cookie';
import { boundSessions } from '../../device-state.js';
import { DEVICE_STATE_VERSION, MAX_DEVICE_STATE_BYTES, MAX_DEVICE_STATE_SESSIONS, type DeviceSessionState, type DeviceStateSnapshot, type StoredCookie } from '../../contract/device-state.js';
import { BoundedCookieStore } from './cookie-store.js';
import type { HttpSession, SessionSource } from './sessions.js';

/** Every cookie of `store` not expired at `now`, oldest first, as plain data. */
function cookiesOf(store: BoundedCookieStore, now: number): StoredCookie[] {
  const kept: StoredCookie[] = [];
  for (const cookie of store.cookies()) {
    const expiry = cookie.expiryTime();
    if (expiry !== undefined && expiry <= now) continue;
    const json = cookie.toJSON() as StoredCookie;
    delete json.creationIndex;
    kept.push(json);
  }
  return kept;
}

/** What tells two jars apart: their cookies without lastAccessed, which every request that reads the jar moves. */
function fingerprint(cookies: readonly StoredCookie[]): string {
  return JSON.stringify(cookies.map(({ lastAccessed: _, ...rest }) => rest));
}

/** A kept cookie the jar can take: tough-cookie reads it and it names its key, domain and path. */
function cookieOf(stored: StoredCookie): Cookie | null {
  let cookie: Cookie | undefined;
  try {
    cookie = Cookie.fromJSON(stored);
  } catch {
    return null;
  }
  if (!cookie || typeof cookie.key !== 'string' || typeof cookie.domain !== 'string' || !cookie.domain || typeof cookie.path !== 'string' || !cookie.path.startsWith('/')) return null;
  return cookie;
}

interface RunJar {
  key: string;
  store: BoundedCookieStore;
  jar: CookieJar;
  /** The cookies as loaded (after the store's bounds), to tell whether the run changed them. */
  loaded: StoredCookie[];
}

export interface ExportedState {
  state: DeviceStateSnapshot;
  /** What the run's result should say about its state: cookies not loaded, sessions left out past the bounds. */
  warnings: string[];
}

export class StateSessions implements SessionSource {
  readonly #host: SessionSource;
  readonly #kept: Map<string, DeviceSessionState>;
  /** The run's jars, in the order the run first used them. */
  readonly #jars = new Map<string, RunJar>();
  readonly #clock: () => number;
  /** Kept cookies the jars did not take: unreadable, too large, past a domain's bound. */
  #notLoaded = 0;

  /** `host`: the host's kept sessions (for their connections); `kept`: the device's state (null: none kept yet). */
  constructor(host: SessionSource, kept: DeviceStateSnapshot | null, clock: () => number = Date.now) {
    this.#host = host;
    this.#kept = new Map((kept?.sessions ?? []).map((s) => [s.key, s]));
    this.#clock = clock;
  }

  get(key: string, pinnedIp: string | null = null, device?: string): HttpSession {
    const connections = this.#host.get(key, pinnedIp, device);
    let own = this.#jars.get(key);
    if (!own) {
      const store = new BoundedCookieStore();
      // Through putCookie, so the store's bounds apply to what was kept as to what a device sets.
      for (const stored of this.#kept.get(key)?.cookies ?? []) {
        const cookie = cookieOf(stored);
        if (cookie) store.putCookie(cookie, () => {});
        else this.#notLoaded++;
      }
      this.#notLoaded += store.dropped;
      own = { key, store, jar: new CookieJar(store), loaded: cookiesOf(store, -Infinity) };
      this.#jars.set(key, own);
    }
    const jar = own.jar;
    return {
      jar,
      dispatcher: (rejectUnauthorized) => connections.dispatcher(rejectUnauthorized),
      ...(connections.begin ? { begin: () => connections.begin!() } : {}),
    };
  }

  /**
   * The sessions whose jars the run changed, each with all its cookies still valid (none when
   * the run emptied its jar: a save then removes it), within a snapshot's bounds (past them,
   * those the run used last are left out, and a warning says so). Sessions the run did not
   * change are not in it: a save leaves them as they are kept.
   */
  exportChanged(): ExportedState {
    const now = this.#clock();
    const changed: DeviceSessionState[] = [];
    let savedAt = now;
    for (const { key, store, loaded } of this.#jars.values()) {
      const cookies = cookiesOf(store, now);
      const before = loaded.filter((c) => !expiredAt(c, now));
      if (fingerprint(cookies) === fingerprint(before)) continue;
      // One ms apart, in the order of first use: the bound keeps the first used (the device's own session first).
      changed.push({ key, savedAt: savedAt--, cookies });
    }
    const { kept, left } = boundSessions(changed);
    const warnings: string[] = [];
    if (this.#notLoaded > 0) {
      warnings.push(`${this.#notLoaded} kept cookie${this.#notLoaded === 1 ? ' was' : 's were'} not loaded into the run's jars: unreadable, larger than a cookie may be, or past the cookies a domain may have`);
    }
    if (left > 0) {
      warnings.push(`the cookies of ${left} of the ${changed.length} sessions this run changed were not kept for the next run: a device's kept state holds at most ${MAX_DEVICE_STATE_SESSIONS} sessions and ${MAX_DEVICE_STATE_BYTES} bytes`);
    }
    return { state: { version: DEVICE_STATE_VERSION, sessions: kept.map((s) => ({ ...s, savedAt: now })) }, warnings };
  }
}

/** Whether a kept cookie had expired at `now`, read as the jar reads it. */
function expiredAt(stored: StoredCookie, now: number): boolean {
  const expiry = cookieOf(stored)?.expiryTime();
  return expiry !== undefined && expiry <= now;
}
