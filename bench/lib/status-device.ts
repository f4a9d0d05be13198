// A simulated device for the benches: node:http on 127.0.0.1 (a free port) answering
// GET /status[?i=N] with a ~200-byte JSON status document (`i` echoed, 0 when left out).
// By default it runs in a worker thread, so the device has its own CPU and event loop rather
// than sharing the bench's; 'inline' puts it on the bench's event loop. Given a certificate it
// speaks HTTPS instead (node:https), and counts full and resumed TLS handshakes.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { CLOCK_TICKS } from './proc.js';

export type ServerMode = 'thread' | 'inline';

/** What the device has served since it started. */
export interface DeviceCounters {
  requests: number;
  /** TCP connections accepted (a keep-alive connection serves many requests). */
  connections: number;
  /** HTTPS only: TLS handshakes completed, and how many of them resumed a session. */
  handshakes?: number;
  resumed?: number;
  /** CPU time of the server thread, ms (thread mode on Linux), else null. */
  cpuMs: number | null;
}

export interface StatusDevice {
  port: number;
  /** Event loop utilisation of the server thread since `since` (thread mode), else null. */
  elu(since?: unknown): { mark: unknown; utilization: number | null };
  counters(): Promise<DeviceCounters>;
  close(): Promise<void>;
}

// Plain JavaScript so that it runs as-is in a worker thread (no TypeScript loader there).
const SERVER_SOURCE = `
const http = require('node:http');
const https = require('node:https');
const counters = { requests: 0, connections: 0, handshakes: 0, resumed: 0 };
function body(i) {
  return '{"i":' + i + ',"model":"DBX-4200","firmware":"4.2.17","serial":"SN0001234567","uptime":' + (86400 + i) +
    ',"temperature":41.5,"fans":[2100,2150,2080],"psu":{"a":"ok","b":"ok"},"load":[0.12,0.08,0.05],"status":"ok"}';
}
function start(onListening, tls) {
  const handler = (req, res) => {
    counters.requests++;
    const match = /^\\/status(?:\\?i=(\\d+))?$/.exec(req.url || '');
    if (req.method !== 'GET' || !match) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const text = body(Number(match[1] || 0));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
  server.on('connection', () => counters.connections++);
  if (tls) {
    server.on('secureConnection', (socket) => {
      counters.handshakes++;
      if (socket.isSessionReused()) counters.resumed++;
    });
    server.on('tlsClientError', () => {});
  }
  server.keepAliveTimeout = 60000;
  server.listen(0, '127.0.0.1', () => onListening(server));
  return server;
}
function threadCpuMs(ticks) {
  try {
    const stat = require('node:fs').readFileSync('/proc/thread-self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
  } catch {
    return null;
  }
}
`;

const WORKER_SOURCE = `${SERVER_SOURCE}
const { parentPort, workerData } = require('node:worker_threads');
start((server) => parentPort.postMessage({ port: server.address().port }), workerData.tls);
parentPort.on('message', () =>
  parentPort.postMessage({ counters: { ...counters, cpuMs: threadCpuMs(workerData.ticks) } }));
`;

/** `tls`: the certificate and key of an HTTPS device (default: plain HTTP). */
export async function startStatusDevice(mode: ServerMode = 'thread', tls: { cert: string; key: string } | null = null): Promise<StatusDevice> {
  if (mode === 'thread') {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ticks: CLOCK_TICKS, tls } });
    const port = await new Promise<number>((resolve, reject) => {
      worker.once('message', (message: { port: number }) => resolve(message.port));
      worker.once('error', reject);
    });
    worker.unref();
    return {
      port,
      elu(since) {
        const now = worker.performance.eventLoopUtilization();
        const delta = since ? worker.performance.eventLoopUtilization(now, since as typeof now) : now;
        return { mark: now, utilization: since ? delta.utilization : null };
      },
      counters: () =>
        new Promise((resolve) => {
          worker.once('message', (message: { counters: DeviceCounters }) => resolve(message.counters));
          worker.postMessage('counters');
        }),
      close: async () => {
        await worker.terminate();
      },
    };
  }
  const make = new Function('require', `${SERVER_SOURCE}; return { start, counters };`)((id: string) => (id === 'node:http' ? http : id === 'node:https' ? https : undefined)) as {
    start: (onListening: (server: http.Server) => void, tls: { cert: string; key: string } | null) => http.Server;
    counters: { requests: number; connections: number; handshakes: number; resumed: number };
  };
  const server = await new Promise<http.Server>((resolve) => make.start(resolve, tls));
  return {
    port: (server.address() as AddressInfo).port,
    elu: () => ({ mark: null, utilization: null }),
    counters: async () => ({ ...make.counters, cpuMs: null }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
