// What the host keeps of each device between runs: its undici dispatcher (keep-alive,
// bounded connections) and its cookie jar. A device's requests only ever use its own
// session, so cookies never travel to another device or external host. Sessions are
// kept for the most recently used devices and closed when the host closes.
import type { Socket } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { CookieJar } from 'tough-cookie';
import { BoundedCookieStore } from './cookie-store.js';
import type { TrustStore } from '../tls/trust.js';
import { pinnedLookup } from './pinned-lookup.js';

/** Connections one device may hold open per origin: devices are small servers. */
const CONNECTIONS_PER_ORIGIN = 6;
const KEEP_ALIVE_MS = 10_000;

/** What one request needs of a session: the jar, and a dispatcher for the verification mode. */
export interface HttpSession {
  readonly jar: CookieJar;
  dispatcher(rejectUnauthorized: boolean): Dispatcher;
  /** Marks a request to the device as going; call what it returns when the request is over. */
  begin?(): () => void;
}

/** Where a run finds the session of a target (the host's kept sessions, or a replay's own). */
export interface SessionSource {
  get(key: string, pinnedIp?: string | null): HttpSession;
}

export class DeviceSession implements HttpSession {
  readonly jar = new CookieJar(new BoundedCookieStore());
  // One agent per verification mode: undici fixes TLS options per dispatcher, not per request.
  readonly #agents = new Map<boolean, Agent>();
  readonly #trust: TrustStore;
  readonly #pinnedIp: string | null;

  constructor(trust: TrustStore, pinnedIp: string | null) {
    this.#trust = trust;
    this.#pinnedIp = pinnedIp;
  }

  dispatcher(rejectUnauthorized: boolean): Agent {
    let agent = this.#agents.get(rejectUnauthorized);
    if (!agent) {
      // Unverified connections also accept the old protocols of old devices: no security is claimed.
      const connector = buildConnector({
        rejectUnauthorized,
        secureContext: rejectUnauthorized ? this.#trust.secureContext : this.#trust.legacySecureContext,
        ...(this.#pinnedIp ? { lookup: pinnedLookup(this.#pinnedIp) } : {}),
      });
      agent = new Agent({
        connections: CONNECTIONS_PER_ORIGIN,
        keepAliveTimeout: KEEP_ALIVE_MS,
        connect: (options, callback) => this.#track(connector, options, callback),
      });
      this.#agents.set(rejectUnauthorized, agent);
    }
    return agent;
  }

  /**
   * Connections still being made (TCP connect, TLS handshake). undici's Agent does not drop
   * them on destroy() nor when the request that wanted one gives up: a handshake the device
   * never answers would hold its socket until undici's connect timeout (10 s).
   */
  readonly #connecting = new Set<Socket>();
  /** Requests of any run of this device that are not over yet. */
  #inFlight = 0;

  begin(): () => void {
    this.#inFlight++;
    let over = false;
    return () => {
      if (over) return;
      over = true;
      // With no request left, a connection still being made serves no one: a handshake the
      // device never answers would otherwise hold its socket until undici's connect timeout.
      if (--this.#inFlight === 0) this.#dropConnecting();
    };
  }

  #dropConnecting(): void {
    for (const socket of this.#connecting) socket.destroy();
    this.#connecting.clear();
  }

  #track(connector: buildConnector.connector, options: buildConnector.Options, callback: buildConnector.Callback): Socket {
    let done = false;
    // The connector returns its socket (its type says void); the callback may come first.
    const socket = (connector as unknown as (o: buildConnector.Options, c: buildConnector.Callback) => Socket)(options, (...args) => {
      done = true;
      this.#connecting.delete(socket);
      callback(...args);
    });
    if (!done && socket) this.#connecting.add(socket);
    return socket;
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => a.destroy())));
  }

  /** Drops every connection now, those still being made too (close() waits for undici's requests). */
  async destroy(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    this.#dropConnecting();
    await Promise.all(agents.map((a) => a.destroy().catch(() => {})));
  }
}

export class DeviceSessions implements SessionSource {
  readonly #sessions = new Map<string, DeviceSession>();
  readonly #trust: TrustStore;
  readonly #max: number;

  constructor(trust: TrustStore, maxSessions: number) {
    this.#trust = trust;
    this.#max = maxSessions;
  }

  /** The session of a target; `pinnedIp` (part of its key) is where its host name is dialled. */
  get(key: string, pinnedIp: string | null = null): DeviceSession {
    let session = this.#sessions.get(key);
    if (session) {
      this.#sessions.delete(key); // re-inserted last: the Map's order is the recency order
    } else {
      session = new DeviceSession(this.#trust, pinnedIp);
      if (this.#sessions.size >= this.#max) {
        const [oldestKey, oldest] = this.#sessions.entries().next().value as [string, DeviceSession];
        this.#sessions.delete(oldestKey);
        void oldest.close(); // close() lets requests in flight finish
      }
    }
    this.#sessions.set(key, session);
    return session;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The host closes once its runs are over: nothing left in a session belongs to a run any more. */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.destroy()));
  }
}
