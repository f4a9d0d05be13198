// What the host keeps of each device between runs: its undici dispatcher (keep-alive,
// bounded connections) and its cookie jar. A device's requests only ever use its own
// session, so cookies never travel to another device or external host.
//
// What is kept of an idle device is bounded (DeviceSessions): its dispatchers are closed once it
// has made no request for CONNECTION_IDLE_MS (past keep-alive, so no open socket is lost), and
// a session whose jar is then empty goes with them; a jar with cookies is kept until the device
// has been idle for sessionIdleMs (default 1 h: far longer than any poll period, so a login
// survives between runs), at most maxSessions jars (the least recently used go first). The
// device's TLS sessions (tls-sessions.ts) are kept alike: a session holding one is not empty.
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { CookieJar } from 'tough-cookie';
import { BoundedCookieStore } from './cookie-store.js';
import { IdleExpiringMap } from './idle-expiring-map.js';
import type { TrustStore } from '../tls/trust.js';
import { pinnedLookup } from '../core/pinned-lookup.js';
import { CertificateLedger, TlsSessionCache, tlsOriginKey } from './tls-sessions.js';

/** Connections one device may hold open per origin: devices are small servers. */
const CONNECTIONS_PER_ORIGIN = 6;
const KEEP_ALIVE_MS = 10_000;
/** A device idle this long has its dispatchers closed (their sockets closed at keep-alive's end already). */
export const CONNECTION_IDLE_MS = KEEP_ALIVE_MS + 2_000;
/** How long a device's cookie jar outlives its last request by default. */
export const DEFAULT_SESSION_IDLE_MS = 60 * 60_000;

/** What one request needs of a session: the jar, and a dispatcher for the verification mode. */
export interface HttpSession {
  readonly jar: CookieJar;
  dispatcher(rejectUnauthorized: boolean): Dispatcher;
  /** Marks a request to the device as going; call what it returns when the request is over. */
  begin?(): () => void;
}

/** Where a run finds the session of a target (the host's kept sessions, or a replay's own). */
export interface SessionSource {
  /** `device`: the target without the driver (its sessions of every driver share what TLS learnt of its certificates). */
  get(key: string, pinnedIp?: string | null, device?: string): HttpSession;
}

export class DeviceSession implements HttpSession {
  readonly #cookies = new BoundedCookieStore();
  readonly jar = new CookieJar(this.#cookies);
  // One agent per verification mode: undici fixes TLS options per dispatcher, not per request.
  readonly #agents = new Map<boolean, Agent>();
  readonly #trust: TrustStore;
  readonly #pinnedIp: string | null;
  /** The sessions its HTTPS connections resume; outlives the agents (null: no resumption). */
  readonly #tls: TlsSessionCache | null;

  /** `ledger`: the certificates the device's origins showed, shared with its other drivers' sessions. */
  constructor(trust: TrustStore, pinnedIp: string | null, tlsSessionReuse = true, ledger?: CertificateLedger) {
    this.#trust = trust;
    this.#pinnedIp = pinnedIp;
    this.#tls = tlsSessionReuse ? new TlsSessionCache(ledger) : null;
  }

  /** TLS sessions kept to resume (0 without resumption). */
  get tlsSessions(): number {
    return this.#tls?.size ?? 0;
  }

  dispatcher(rejectUnauthorized: boolean): Agent {
    let agent = this.#agents.get(rejectUnauthorized);
    if (!agent) {
      // Unverified connections also accept the old protocols of old devices: no security is claimed.
      // undici's own session cache is off (maxCachedSessions 0): it lives and dies with the
      // agent, keys by host name alone (not the port) and holds its sessions weakly.
      const options: buildConnector.BuildOptions = {
        rejectUnauthorized,
        secureContext: rejectUnauthorized ? this.#trust.secureContext : this.#trust.legacySecureContext,
        maxCachedSessions: 0,
        ...(this.#pinnedIp ? { lookup: pinnedLookup(this.#pinnedIp) } : {}),
      };
      const connector = buildConnector(options);
      agent = new Agent({
        connections: CONNECTIONS_PER_ORIGIN,
        keepAliveTimeout: KEEP_ALIVE_MS,
        // Also when the device's Keep-Alive header offers longer (undici would keep it up to
        // 10 min): an open connection holds its pool (a 16 KiB queue), socket and parser, and
        // at a poll period past this it would never be used again before it closes.
        keepAliveMaxTimeout: KEEP_ALIVE_MS,
        connect: (connect, callback) => this.#connect(options, connector, rejectUnauthorized, connect, callback),
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

  /** Requests of this device are going. */
  get busy(): boolean {
    return this.#inFlight > 0;
  }

  /** Nothing to keep once the connections are closed: no cookie, no TLS session. */
  get empty(): boolean {
    return this.#cookies.empty && (this.#tls?.empty ?? true);
  }

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

  /**
   * A connection for undici: over TLS, offering the session kept for its origin and mode (the
   * connector takes a session when built, so one is built for the connection: about a µs), and
   * watched for the sessions and certificate it brings.
   */
  #connect(built: buildConnector.BuildOptions, connector: buildConnector.connector, verified: boolean, options: buildConnector.Options, callback: buildConnector.Callback): Socket {
    if (!this.#tls || options.protocol !== 'https:') return this.#track(connector, options, callback);
    const origin = tlsOriginKey(options.hostname, options.port, options.servername);
    const session = this.#tls.get(origin, verified);
    const socket = this.#track(session ? buildConnector({ ...built, session }) : connector, options, callback);
    if (socket) this.#tls.watch(socket as TLSSocket, origin, verified, session !== undefined);
    return socket;
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

export interface DeviceSessionsOptions {
  /** Sessions kept at most (the least recently used go first). */
  maxSessions: number;
  /** A session with cookies or a TLS session is kept this long after its last request (ms); default 1 h. */
  sessionIdleMs?: number;
  /** Resume a device's TLS sessions across its runs (default true). */
  tlsSessionReuse?: boolean;
  /** Default performance.now (tests move it). */
  now?: () => number;
}

export class DeviceSessions implements SessionSource {
  readonly #trust: TrustStore;
  /** Every session kept: jars until sessionIdleMs. close() lets requests in flight finish. */
  readonly #sessions: IdleExpiringMap<string, DeviceSession>;
  /** The sessions that may hold dispatchers: used within CONNECTION_IDLE_MS. */
  readonly #connected: IdleExpiringMap<string, DeviceSession>;

  readonly #tlsSessionReuse: boolean;
  /** Per device (all its drivers): the certificates its origins showed. Used with its sessions, so kept as long. */
  readonly #ledgers: IdleExpiringMap<string, CertificateLedger>;

  constructor(trust: TrustStore, options: DeviceSessionsOptions) {
    this.#trust = trust;
    this.#tlsSessionReuse = options.tlsSessionReuse ?? true;
    this.#ledgers = new IdleExpiringMap({ idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS, maxEntries: options.maxSessions, now: options.now });
    const inUse = (session: DeviceSession) => session.busy;
    this.#sessions = new IdleExpiringMap({
      idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS,
      maxEntries: options.maxSessions,
      now: options.now,
      inUse,
      onEvict: (key, session) => {
        this.#connected.delete(key);
        void session.close();
      },
    });
    this.#connected = new IdleExpiringMap({
      idleMs: CONNECTION_IDLE_MS,
      maxEntries: options.maxSessions,
      now: options.now,
      inUse,
      onEvict: (key, session) => {
        void session.close(); // a later request makes new dispatchers
        if (session.empty) this.#sessions.delete(key);
      },
    });
  }

  /** The session of a target; `pinnedIp` (part of its key) is where its host name is dialled. */
  get(key: string, pinnedIp: string | null = null, device: string = key): DeviceSession {
    let ledger = this.#ledgers.get(device);
    if (!ledger && this.#tlsSessionReuse) {
      ledger = new CertificateLedger();
      this.#ledgers.set(device, ledger);
    }
    let session = this.#sessions.get(key);
    if (!session) {
      session = new DeviceSession(this.#trust, pinnedIp, this.#tlsSessionReuse, ledger);
      this.#sessions.set(key, session);
    }
    this.#connected.set(key, session);
    return session;
  }

  /** Sessions kept (with cookies, or used lately). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Sessions that may hold connections (used within CONNECTION_IDLE_MS). */
  get connected(): number {
    return this.#connected.size;
  }

  /** The host closes once its runs are over: nothing left in a session belongs to a run any more. */
  async close(): Promise<void> {
    this.#connected.clear();
    this.#ledgers.clear();
    await Promise.all(this.#sessions.clear().map((s) => s.destroy()));
  }
}
