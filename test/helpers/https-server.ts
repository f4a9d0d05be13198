// An HTTPS server on 127.0.0.1 (a free port) presenting the given certificate, for TLS tests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Credential } from './certs.js';

export interface TestHttpsServer {
  port: number;
  close(): Promise<void>;
}

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

const answerOk: RequestHandler = (_request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' });
  response.end('ok');
};

/** Starts the server; `close()` also drops kept-alive connections so it never hangs. */
export function startHttpsServer(cred: Credential, handler: RequestHandler = answerOk): Promise<TestHttpsServer> {
  return listenHttps(https.createServer({ cert: cred.cert, key: cred.key }, handler));
}

/** Listens on 127.0.0.1 (a free port); `close()` also drops kept-alive connections. */
export function listenHttps(server: https.Server): Promise<TestHttpsServer> {
  // A client that rejects the certificate ends the handshake; that is expected here.
  server.on('tlsClientError', () => {});
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
