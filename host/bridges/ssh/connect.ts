// One SSH connection for one call: ssh2's Client, password authentication (and the same
// password for keyboard-interactive, which some gear offers instead), the driver's algorithms,
// any host key accepted (as the collector does) with its SHA-256 fingerprint kept for the
// transcript. Only to the endpoint the run gives; closed when the call or the run ends.
import { createHash } from 'node:crypto';
import { Client, type ConnectConfig } from 'ssh2';
import type { ConnectOptions } from './options.js';

export interface SshConnection {
  client: Client;
  /** "SHA256:…" of the server's host key, once the key exchange saw it. */
  fingerprint(): string | null;
  /**
   * Ends the connection (idempotent): at once, or `graceful`ly (an SSH disconnect the server
   * sees as a logout, the socket destroyed if it is not gone within a second).
   */
  close(graceful?: boolean): void;
}

/**
 * Starts connecting; `onReady` once logged in, `onError` for ssh2's errors (level
 * 'client-authentication' for a refused login), `onClose` when the socket is gone.
 */
export function openConnection(
  endpoint: { host: string; port: number },
  options: ConnectOptions,
  readyTimeoutMs: number,
  events: { onReady(): void; onError(error: Error & { level?: string }): void; onClose(): void },
): SshConnection {
  const client = new Client();
  let fingerprint: string | null = null;
  let closed = false;
  // Small request / answer packets: without this, Nagle and delayed ACKs add ~40 ms per round trip.
  client.on('connect', () => client.setNoDelay(true));
  client.on('ready', events.onReady);
  client.on('error', events.onError);
  client.on('close', () => {
    closed = true;
    events.onClose();
  });
  client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => finish(prompts.map(() => options.password)));
  client.connect({
    host: endpoint.host,
    port: endpoint.port,
    username: options.username,
    password: options.password,
    tryKeyboard: true,
    algorithms: options.algorithms as ConnectConfig['algorithms'],
    // Our own timer (the call's timeout, the run's deadline) ends the call; ssh2's only backs it.
    readyTimeout: Math.max(1, Math.ceil(readyTimeoutMs)) + 1_000,
    keepaliveInterval: 0,
    hostVerifier: (key: Buffer) => {
      fingerprint = `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
      return true;
    },
  });
  return {
    client,
    fingerprint: () => fingerprint,
    close(graceful = false) {
      if (closed) return;
      closed = true;
      if (!graceful) return void client.destroy();
      client.end();
      setTimeout(() => client.destroy(), 1_000).unref();
    },
  };
}
