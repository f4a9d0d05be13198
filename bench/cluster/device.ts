// The logging device: an HTTP server on the host side that answers every poll after a delay
// (so runs are in flight when a fault hits) and records, for each request, the association's tag
// (a driver parameter in the URL), the arrival time and the source address. The slot and the
// agent are worked out afterwards (analysis.ts): the slot from the arrival time and the
// association's period and offset, the agent from the source address when agents have namespaces.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Poll {
  /** The association's tag (the `tag` driver parameter). */
  tag: string;
  /** Arrival, epoch ms. */
  at: number;
  /** Source address of the request. */
  from: string;
}

export interface LoggingDevice {
  host: string;
  port: number;
  polls: Poll[];
  /** Resolves with the next poll that matches (before the device answers it), or null after timeoutMs. */
  nextPoll(match: (poll: Poll) => boolean, timeoutMs: number): Promise<Poll | null>;
  /** Forget what was logged (a new scenario). */
  clear(): void;
  close(): Promise<void>;
}

export async function startLoggingDevice(options: { host: string; answerMs: number }): Promise<LoggingDevice> {
  const polls: Poll[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<(poll: Poll) => void>();
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const url = new URL(req.url ?? '/', 'http://device');
    const tag = url.searchParams.get('tag');
    if (url.pathname === '/poll' && tag) {
      const poll = { tag, at, from: req.socket.remoteAddress ?? '?' };
      polls.push(poll);
      for (const waiter of waiters) waiter(poll);
    }
    req.resume();
    setTimeout(() => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ tag, at }));
    }, options.answerMs);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host, () => resolve());
  });
  return {
    host: options.host,
    port: (server.address() as AddressInfo).port,
    polls,
    nextPoll: (match, timeoutMs) =>
      new Promise((resolve) => {
        const waiter = (poll: Poll) => {
          if (!match(poll)) return;
          finish(poll);
        };
        const finish = (poll: Poll | null) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(poll);
        };
        const timer = setTimeout(() => finish(null), timeoutMs);
        waiters.add(waiter);
      }),
    clear: () => void polls.splice(0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
