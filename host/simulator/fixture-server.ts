// Serves a Fixture over HTTP on loopback: the device a driver talks to when there is
// no device on the desk.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Fixture, FixtureRoute } from './fixture.js';

export interface RunningFixture {
  port: number;
  url: string;
  close(): Promise<void>;
}

function authorized(req: IncomingMessage, route: FixtureRoute): boolean {
  if (!route.auth) return true;
  const expected = `Basic ${Buffer.from(`${route.auth.username}:${route.auth.password}`).toString('base64')}`;
  return req.headers.authorization === expected;
}

function answer(res: ServerResponse, route: FixtureRoute): void {
  const headers: Record<string, string> = { ...route.headers };
  let body = route.body ?? '';
  if (route.json !== undefined) {
    body = JSON.stringify(route.json);
    headers['content-type'] ??= 'application/json';
  }
  res.writeHead(route.status ?? 200, headers);
  res.end(body);
}

export async function startFixtureServer(fixture: Fixture, port = 0): Promise<RunningFixture> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://device');
    const route = fixture.routes.find((r) => (r.method ?? 'GET').toUpperCase() === req.method && (r.path === url.pathname || r.path === `${url.pathname}${url.search}`));
    req.resume();
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `no route for ${req.method} ${url.pathname}${url.search}` }));
    } else if (!authorized(req, route)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="device"' });
      res.end('unauthorized');
    } else {
      answer(res, route);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
