// The TLS sessions one device's connections resume from one run to the next. An agent's run
// usually opens a new connection (a device's keep-alive is shorter than its poll period), so
// without them every run of an HTTPS device pays a full handshake: the device's signature, the
// host's check of its certificate. A cache lives in one DeviceSession (so it is never another
// device's, nor another external host's) and goes with it (the cookie jar's idle bounds).
//
// Within it, a session is kept per origin (host name or address, port) and per verification
// mode: resuming skips the certificate, so a session made without verifying it is never offered
// where verification is asked, nor the other way round. A full handshake that shows an origin's
// certificate changed drops that origin's sessions of both modes, and those every other driver's
// session of the same device holds (the device's CertificateLedger). Bounded, whatever the device
// sends: a session past MAX_TLS_SESSION_BYTES is not kept, and at most MAX_TLS_ORIGINS origins
// per device (the least recently used goes first).
import type { TLSSocket } from 'node:tls';

/** A session (OpenSSL's encoding: ticket, secrets, the peer's certificate) larger than this is not kept. */
export const MAX_TLS_SESSION_BYTES = 8 * 1024;
/** Origins of one device whose sessions are kept (a device serves one or two HTTPS ports). */
export const MAX_TLS_ORIGINS = 4;

/**
 * The certificates one device's origins showed in their last full handshakes, shared by the
 * sessions of every driver of the device: each change moves the origin's generation on, and a
 * session kept under an older generation is never offered again.
 */
export class CertificateLedger {
  /** Least recently used first. */
  readonly #origins = new Map<string, { fingerprint: string | null; generation: number }>();

  generation(origin: string): number {
    return this.#origins.get(origin)?.generation ?? 0;
  }

  /** Records the certificate a full handshake with `origin` showed; true when it is another than the last one. */
  saw(origin: string, fingerprint: string | null): boolean {
    let entry = this.#origins.get(origin);
    if (entry) {
      this.#origins.delete(origin);
    } else {
      entry = { fingerprint: null, generation: 0 };
      while (this.#origins.size >= MAX_TLS_ORIGINS) this.#origins.delete(this.#origins.keys().next().value!);
    }
    this.#origins.set(origin, entry);
    const changed = entry.fingerprint !== null && entry.fingerprint !== fingerprint;
    if (changed) entry.generation++;
    entry.fingerprint = fingerprint;
    return changed;
  }
}

interface OriginSessions {
  /** The ledger's generation of the origin when these sessions were kept. */
  generation: number;
  /** The session to offer, by verification mode (rejectUnauthorized). */
  sessions: Map<boolean, Buffer>;
}

export class TlsSessionCache {
  /** Least recently used first. */
  readonly #origins = new Map<string, OriginSessions>();
  readonly #ledger: CertificateLedger;

  /** `ledger`: the device's, shared with its other drivers' sessions (default: one of its own). */
  constructor(ledger: CertificateLedger = new CertificateLedger()) {
    this.#ledger = ledger;
  }

  /** The session to offer `origin` in this verification mode, if one is kept under its current certificate. */
  get(origin: string, verified: boolean): Buffer | undefined {
    const entry = this.#origins.get(origin);
    if (!entry) return undefined;
    const generation = this.#ledger.generation(origin);
    if (entry.generation !== generation) {
      // Another session of the device saw the origin's certificate change since these were kept.
      entry.sessions.clear();
      entry.generation = generation;
      return undefined;
    }
    return entry.sessions.get(verified);
  }

  /** Nothing kept: no session to offer (a certificate alone is not worth keeping a device for). */
  get empty(): boolean {
    for (const entry of this.#origins.values()) if (entry.sessions.size > 0) return false;
    return true;
  }

  /** Sessions kept (for tests and figures). */
  get size(): number {
    let n = 0;
    for (const entry of this.#origins.values()) n += entry.sessions.size;
    return n;
  }

  clear(): void {
    this.#origins.clear();
  }

  /**
   * Keeps what `socket`, a connection to `origin` in this verification mode, learns: the sessions
   * the server hands out ('session', during the handshake in TLS 1.2, after it in 1.3) and, on a
   * full handshake, the certificate, which drops the origin's sessions when it changed.
   */
  watch(socket: TLSSocket, origin: string, verified: boolean, offered: boolean): void {
    let fresh: Buffer | null = null;
    let connected = false;
    socket.on('session', (session: Buffer) => {
      const entry = this.#entry(origin);
      if (session.length > MAX_TLS_SESSION_BYTES) {
        entry.sessions.delete(verified);
        return;
      }
      fresh = session;
      entry.sessions.set(verified, session);
    });
    socket.once('secureConnect', () => {
      connected = true;
      if (socket.isSessionReused()) return; // the certificate is the one the session was made with
      const certificate = socket.getPeerX509Certificate()?.fingerprint256 ?? null;
      const entry = this.#entry(origin);
      const changed = this.#ledger.saw(origin, certificate);
      if (changed || entry.generation !== this.#ledger.generation(origin)) {
        // Another certificate: no session of the old one may be resumed, in either mode.
        entry.sessions.clear();
        if (fresh) entry.sessions.set(verified, fresh);
        entry.generation = this.#ledger.generation(origin);
      }
    });
    if (offered) {
      // A handshake that failed with a session offered: the next one starts afresh.
      socket.once('error', () => {
        if (!connected) this.#origins.get(origin)?.sessions.delete(verified);
      });
    }
  }

  /** The origin's entry, made when absent and moved last (most recently used); the bound applies. */
  #entry(origin: string): OriginSessions {
    let entry = this.#origins.get(origin);
    if (entry) {
      this.#origins.delete(origin);
    } else {
      entry = { generation: this.#ledger.generation(origin), sessions: new Map() };
      while (this.#origins.size >= MAX_TLS_ORIGINS) this.#origins.delete(this.#origins.keys().next().value!);
    }
    this.#origins.set(origin, entry);
    return entry;
  }
}

/** The key of a connection's origin in a TlsSessionCache: where it dials and the name it asks for. */
export function tlsOriginKey(hostname: string, port: number | string, servername: string | null | undefined): string {
  return `${hostname}:${port || 443}${servername ? `|${servername}` : ''}`;
}
