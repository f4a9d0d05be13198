// A device that misbehaves on purpose, for the fault-injection suite (test/faults/). Raw
// node:net (or node:tls) on 127.0.0.1, port 0: it reads one HTTP request off the socket by
// hand and then does whatever the current fault says, byte by byte, which node:http would
// not let it do (lie about Content-Length, cut a chunked body, reset with RST). It counts
// the sockets it accepted and those that closed, so a test can show none was left open.
import net, { type AddressInfo, type Socket } from 'node:net';
import tls from 'node:tls';
import type { Credential } from './certs.js';

/** One request as read off the wire (the body only as far as Content-Length says). */
export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * What the server does on a connection. `onRequest` runs once a request is read (HTTP
 * faults); `onConnect` runs at once with the raw socket, before anything is read (handshake
 * faults, a server that never reads). Timers must go through `later` so closing the socket
 * stops them.
 */
export interface Fault {
  onConnect?(socket: Socket, later: Later): void;
  onRequest?(socket: Socket, request: RawRequest, later: Later): void;
}

/** setTimeout / setInterval bound to one socket (cleared when it closes), and an RST of its TCP connection. */
export interface Later {
  after(ms: number, fn: () => void): void;
  every(ms: number, fn: () => void): void;
  /** Resets the TCP connection (RST, not FIN): under TLS too, where the socket a fault sees is the TLS one. */
  reset(): void;
}

export interface FaultyServer {
  port: number;
  /** The fault for connections accepted from now on. */
  fault: Fault;
  /** Requests read so far (HTTP faults only). */
  readonly requests: RawRequest[];
  /** Sockets accepted, closed, and open right now (server side). */
  stats(): { opened: number; closed: number; open: number };
  /** Waits (at most `capMs`) for every accepted socket to close; returns how many are still open. */
  drained(capMs?: number): Promise<number>;
  close(): Promise<void>;
}

const HEAD_END = Buffer.from('\r\n\r\n');
/** Enough to hold any request head a driver sends; past it the request is taken as read. */
const MAX_HEAD = 64 * 1024;

function parseHead(head: string): Omit<RawRequest, 'body'> {
  const [requestLine = '', ...lines] = head.split('\r\n');
  const [method = '', url = ''] = requestLine.split(' ');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { method, url, headers };
}

/** Reads one request (head, then a Content-Length body) and calls `done` once. */
function readRequest(socket: Socket, done: (request: RawRequest) => void): void {
  let buffered = Buffer.alloc(0);
  let head: Omit<RawRequest, 'body'> | null = null;
  let bodyStart = 0;
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (!head) {
      const end = buffered.indexOf(HEAD_END);
      if (end < 0 && buffered.length < MAX_HEAD) return;
      const cut = end < 0 ? buffered.length : end;
      head = parseHead(buffered.subarray(0, cut).toString('latin1'));
      bodyStart = end < 0 ? buffered.length : end + HEAD_END.length;
    }
    const length = Number(head.headers['content-length'] ?? 0);
    if (buffered.length - bodyStart < length) return;
    socket.off('data', onData);
    done({ ...head, body: buffered.subarray(bodyStart, bodyStart + length) });
  };
  socket.on('data', onData);
}

export async function startFaultyServer(options: { fault: Fault; tls?: Credential }): Promise<FaultyServer> {
  const sockets = new Set<Socket>();
  const requests: RawRequest[] = [];
  let opened = 0;
  let closed = 0;
  const state = { fault: options.fault };

  // Raw TCP sockets are what is counted: a TLS handshake that never completes still holds one.
  const count = (raw: Socket) => {
    opened++;
    sockets.add(raw);
    raw.on('close', () => {
      closed++;
      sockets.delete(raw);
    });
  };
  // The fault in force when the connection came is the one it gets, even if a test changes it later.
  const handle = (socket: Socket, raw: Socket) => {
    // A client that gives up resets the connection: expected here, never a crash of the test.
    socket.on('error', () => {});
    const timers = new Set<NodeJS.Timeout>();
    socket.on('close', () => timers.forEach((t) => clearTimeout(t))); // clears intervals too
    const later: Later = {
      after: (ms, fn) => void timers.add(setTimeout(() => !socket.destroyed && fn(), ms)),
      every: (ms, fn) => void timers.add(setInterval(() => !socket.destroyed && fn(), ms)),
      reset: () => {
        raw.resetAndDestroy();
        if (socket !== raw) socket.destroy();
      },
    };
    const fault = state.fault;
    fault.onConnect?.(socket, later);
    const onRequest = fault.onRequest;
    if (onRequest) {
      readRequest(socket, (request) => {
        requests.push(request);
        onRequest(socket, request, later);
      });
    }
  };

  // Under TLS the TLS socket is made here around the raw one, so a fault can still reset the raw one.
  const secureContext = options.tls ? tls.createSecureContext({ cert: options.tls.cert, key: options.tls.key }) : null;
  const server = net.createServer((raw) => {
    count(raw);
    if (!secureContext) return handle(raw, raw);
    raw.on('error', () => {});
    const secure = new tls.TLSSocket(raw, { isServer: true, secureContext });
    secure.on('error', () => {}); // a handshake the client abandons is a fault under test
    secure.once('secure', () => handle(secure, raw));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get fault() {
      return state.fault;
    },
    set fault(fault: Fault) {
      state.fault = fault;
    },
    requests,
    stats: () => ({ opened, closed, open: sockets.size }),
    async drained(capMs = 2000) {
      const until = performance.now() + capMs;
      while (sockets.size > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ---- The faults -------------------------------------------------------------------------

const head = (lines: string[]) => Buffer.from(`HTTP/1.1 200 OK\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`, 'latin1');

/** A TLS alert record (fatal, protocol_version): what a server that refuses the client's TLS version sends. */
const PROTOCOL_VERSION_ALERT = Buffer.from([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x46]);

export const faults = {
  /** A well-behaved answer, for checking the host still works after a fault. */
  ok(body = 'ok'): Fault {
    return { onRequest: (s) => void s.end(Buffer.concat([head([`Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close']), Buffer.from(body)])) };
  },
  /** Reads the request and sends the whole answer only after `ms`. */
  slowFirstByte(ms: number, body = 'late'): Fault {
    return { onRequest: (s, _r, later) => later.after(ms, () => s.end(Buffer.concat([head([`Content-Length: ${body.length}`]), Buffer.from(body)]))) };
  },
  /** Headers at once, then one byte of a `length`-byte body every `everyMs`. */
  drip(length: number, everyMs: number): Fault {
    return {
      onRequest: (s, _r, later) => {
        s.write(head([`Content-Length: ${length}`]));
        let sent = 0;
        later.every(everyMs, () => (++sent <= length ? s.write('x') : s.end()));
      },
    };
  },
  /** Announces `length` bytes, sends `sent` of them, then resets the connection (RST, not FIN). */
  resetMidBody(length: number, sent: number): Fault {
    return {
      onRequest: (s, _r, later) => {
        s.write(Buffer.concat([head([`Content-Length: ${length}`]), Buffer.alloc(sent, 'x')]));
        later.after(20, () => later.reset());
      },
    };
  },
  /** A chunked body that stops after one chunk: the connection ends with no terminating 0-chunk. */
  truncatedChunked(): Fault {
    return { onRequest: (s) => void s.end(Buffer.concat([head(['Transfer-Encoding: chunked']), Buffer.from('5\r\nhello\r\n6\r\n wor')])) };
  },
  /** Content-Length says `announced`, `body` (longer) is sent, then the connection ends. */
  contentLengthShorter(announced: number, body: string): Fault {
    return { onRequest: (s) => void s.end(Buffer.concat([head([`Content-Length: ${announced}`]), Buffer.from(body)])) };
  },
  /** Content-Length says `announced`, `body` (shorter) is sent; then FIN, or nothing more (`hold`). */
  contentLengthLonger(announced: number, body: string, hold = false): Fault {
    return {
      onRequest: (s) => {
        const bytes = Buffer.concat([head([`Content-Length: ${announced}`]), Buffer.from(body)]);
        if (hold) s.write(bytes);
        else s.end(bytes);
      },
    };
  },
  /** A complete answer with this body and content type. */
  body(body: Buffer | string, contentType: string, extra: string[] = []): Fault {
    const bytes = Buffer.from(body);
    return { onRequest: (s) => void s.end(Buffer.concat([head([`Content-Type: ${contentType}`, `Content-Length: ${bytes.length}`, 'Connection: close', ...extra]), bytes])) };
  },
  /** A chunked body of `total` bytes in 64 KiB chunks, no Content-Length to refuse it early. */
  chunkedFlood(total: number): Fault {
    return {
      onRequest: (s) => {
        s.write(head(['Transfer-Encoding: chunked', 'Connection: close']));
        const chunk = Buffer.alloc(64 * 1024, 'y');
        const prefix = Buffer.from(`${chunk.length.toString(16)}\r\n`);
        let left = total;
        const pump = () => {
          while (left > 0 && !s.destroyed) {
            left -= chunk.length;
            if (!s.write(Buffer.concat([prefix, chunk, Buffer.from('\r\n')]))) return void s.once('drain', pump);
          }
          if (!s.destroyed) s.end('0\r\n\r\n');
        };
        pump();
      },
    };
  },
  /** Reads the request and never answers. */
  silent(): Fault {
    return { onRequest: () => {} };
  },
  /**
   * Accepts the connection and does not read from it for `holdMs`: the client's writes pile up
   * in the kernel. Then it reads (and drops) what came, only so that it sees the client's FIN or
   * RST: a socket that never reads never learns that the other side has gone.
   */
  blackhole(holdMs: number): Fault {
    return {
      onConnect: (s, later) => {
        s.pause();
        later.after(holdMs, () => s.resume());
      },
    };
  },
  /** Closes the connection as soon as the client's first bytes (a TLS ClientHello) arrive. */
  closeOnHello(): Fault {
    return { onConnect: (s) => void s.once('data', () => s.destroy()) };
  },
  /** Resets the connection (RST) as soon as the client's first bytes arrive. */
  resetOnHello(): Fault {
    return { onConnect: (s, later) => void s.once('data', () => later.reset()) };
  },
  /** Answers a ClientHello with plain HTTP, as a device with TLS off on its https port. */
  plainHttpOnTlsPort(): Fault {
    return { onConnect: (s) => void s.once('data', () => s.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')) };
  },
  /** Answers a ClientHello with a fatal protocol_version alert: the device does not speak our TLS version. */
  refuseTlsVersion(): Fault {
    return { onConnect: (s) => void s.once('data', () => s.end(PROTOCOL_VERSION_ALERT)) };
  },
} satisfies Record<string, (...args: never[]) => Fault>;
