// A real HTTP (or HTTPS) device on 127.0.0.1 for the HTTP module's tests. It records
// every request and answers a small set of routes that exercise the bridge.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll } from 'vitest';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface DeviceServer {
  port: number;
  seen: SeenRequest[];
  /** Sockets open right now (keep-alive connections count). */
  openSockets(): number;
  close(): Promise<void>;
}

/** A handler for extra routes; return true when it answered. */
export type Route = (req: SeenRequest, res: ServerResponse) => boolean;

function answer(req: SeenRequest, res: ServerResponse, route?: Route): void {
  if (route?.(req, res)) return;
  const url = new URL(req.url, 'http://device');
  const q = (name: string) => url.searchParams.get(name);
  switch (url.pathname) {
    case '/redirect': // ?to=/path&status=302
      res.writeHead(Number(q('status') ?? 302), { location: q('to') ?? '/echo' });
      return void res.end();
    case '/set-cookie': // ?cookie=name=value;attrs (repeatable)
      res.setHeader('set-cookie', url.searchParams.getAll('cookie'));
      return void res.end('set');
    case '/slow':
      return void setTimeout(() => res.end('late'), Number(q('ms') ?? 2000));
    case '/big':
      return void res.end('x'.repeat(Number(q('bytes') ?? 5000)));
    case '/reset':
      return void res.socket?.destroy();
    case '/gzip':
      res.setHeader('content-encoding', 'gzip');
      return void res.end(gzipSync(JSON.stringify({ zipped: true })));
    case '/binary':
      res.setHeader('content-type', 'application/octet-stream');
      return void res.end(Buffer.from([0, 1, 2, 250, 255]));
    case '/status':
      res.statusCode = Number(q('code') ?? 200);
      return void res.end(q('body') ?? '');
    default: // echo
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: req.body }));
  }
}

export async function startDeviceServer(options: { tls?: { cert: string; key: string }; route?: Route } = {}): Promise<DeviceServer> {
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      answer(request, res, options.route);
    });
  };
  const server: Server = options.tls ? createHttpsServer(options.tls, handler) : createHttpServer(handler);
  server.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    openSockets: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A device server for a whole describe block: started before its tests, closed after. The
 * object answers for the server once it runs; `target()` is a run's device aimed at it.
 */
export function useDeviceServer(options: Parameters<typeof startDeviceServer>[0] = {}): DeviceServer & { target(): { ip: string; portMap: Record<number, number> } } {
  let server: DeviceServer | null = null;
  beforeAll(async () => {
    server = await startDeviceServer(options);
  });
  afterAll(() => server?.close());
  const running = () => {
    if (!server) throw new Error('the device server starts in beforeAll: use it inside a test');
    return server;
  };
  return {
    get port() {
      return running().port;
    },
    get seen() {
      return running().seen;
    },
    openSockets: () => running().openSockets(),
    close: () => running().close(),
    target: () => ({ ip: '127.0.0.1', portMap: { 80: running().port } }),
  };
}
