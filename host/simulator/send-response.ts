// Writes one fixture answer to the wire, or fails the way the fixture asks: a reset
// connection, no answer at all, or a body cut short.
import type { ServerResponse } from 'node:http';
import type { FixtureResponse } from './fixture-types.js';

/** Sends the response (or its failure). `hold` keeps a socket that must never be answered until the simulator closes. */
export function sendResponse(res: ServerResponse, response: FixtureResponse, hold: (res: ServerResponse) => void): void {
  const socket = res.socket;
  switch (response.fail) {
    case 'reset':
      // A TCP reset (what a crashing device's stack sends); a TLS socket cannot send one, so it is just destroyed.
      try {
        socket?.resetAndDestroy();
      } catch {
        socket?.destroy();
      }
      return;
    case 'timeout':
      hold(res);
      return;
    case 'close': {
      // Announce the whole body, send half of it, then hang up: the client sees the connection die mid-body.
      const announced = Math.max(response.body.length, 1);
      res.writeHead(response.status, { ...response.headers, ...cookies(response), 'content-length': String(announced) });
      res.write(response.body.subarray(0, Math.floor(response.body.length / 2)), () => socket?.destroy());
      return;
    }
    case null:
      res.writeHead(response.status, { ...response.headers, ...cookies(response) });
      res.end(response.body);
  }
}

function cookies(response: FixtureResponse): Record<string, string[]> {
  return response.setCookie.length ? { 'set-cookie': response.setCookie } : {};
}
