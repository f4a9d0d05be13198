// An HTTPS server on 127.0.0.1 that tells full handshakes from resumed ones (the server's own
// isSessionReused()), closes every connection after its answer (so each run dials anew, as an
// agent's runs do past keep-alive), and can change its certificate while keeping its session
// ticket keys: the case where an old session would still be accepted.
import { randomBytes } from 'node:crypto';
import https from 'node:https';
import type { Credential } from './certs.js';
import { listenHttps } from './https-server.js';

export interface CountingHttpsServer {
  port: number;
  /** 'full' or 'resumed', one per handshake, in order. */
  readonly handshakes: Array<'full' | 'resumed'>;
  /** Presents `cred` from the next handshake on; the ticket keys stay. */
  setCredential(cred: Credential): void;
  close(): Promise<void>;
}

export async function startCountingHttpsServer(cred: Credential): Promise<CountingHttpsServer> {
  const ticketKeys = randomBytes(48);
  const server = https.createServer({ cert: cred.cert, key: cred.key, ticketKeys }, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', connection: 'close' });
    response.end('ok');
  });
  const handshakes: Array<'full' | 'resumed'> = [];
  server.on('secureConnection', (socket) => handshakes.push(socket.isSessionReused() ? 'resumed' : 'full'));
  const listening = await listenHttps(server);
  return { ...listening, handshakes, setCredential: (next) => server.setSecureContext({ cert: next.cert, key: next.key, ticketKeys }) };
}
