// Misbehaving devices for the soak bench, in a worker thread (like status-device.ts) so that
// their sockets and buffers never count in the bench's own heap:
//   - a faulty HTTP device on 127.0.0.1: GET /reset drops the connection before answering,
//     GET /badjson answers 200 with a body that is not JSON, GET /truncated promises a
//     Content-Length longer than the body it sends, then closes;
//   - a silent device: accepts TCP connections and never writes a byte.
// Both count the connections they hold open, so a client that forgets its sockets shows.
import { Worker } from 'node:worker_threads';

export interface FaultyDeviceCounters {
  requests: number;
  /** Connections open right now on the faulty HTTP device / on the silent device. */
  faultyOpen: number;
  silentOpen: number;
  /** Connections the silent device has accepted since it started. */
  silentAccepted: number;
}

export interface FaultyDevices {
  faultyPort: number;
  silentPort: number;
  counters(): Promise<FaultyDeviceCounters>;
  close(): Promise<void>;
}

// Plain JavaScript: a worker thread has no TypeScript loader.
const WORKER_SOURCE = `
const http = require('node:http');
const net = require('node:net');
const { parentPort } = require('node:worker_threads');
const counters = { requests: 0, faultyOpen: 0, silentOpen: 0, silentAccepted: 0 };
const track = (socket, key) => {
  counters[key]++;
  socket.on('close', () => counters[key]--);
};
const faulty = http.createServer((req, res) => {
  counters.requests++;
  const path = (req.url || '').split('?')[0];
  if (path === '/reset') return void req.socket.destroy();
  if (path === '/badjson') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end('{"model":"DBX-4200","temperature":41.5,');
  }
  if (path === '/truncated') {
    // Headers promise 1000 bytes; 20 come, then the connection closes.
    req.socket.write('HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: 1000\\r\\n\\r\\n{"model":"DBX-4200",');
    return void setImmediate(() => req.socket.destroy());
  }
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
});
faulty.on('connection', (socket) => track(socket, 'faultyOpen'));
faulty.keepAliveTimeout = 60000;
const silent = net.createServer((socket) => {
  counters.silentAccepted++;
  track(socket, 'silentOpen');
  socket.on('error', () => {});
  socket.resume(); // read (and drop) what comes: a paused socket would never see the client close
});
let listening = 0;
const ready = () => {
  if (++listening === 2) parentPort.postMessage({ faultyPort: faulty.address().port, silentPort: silent.address().port });
};
faulty.listen(0, '127.0.0.1', ready);
silent.listen(0, '127.0.0.1', ready);
parentPort.on('message', () => parentPort.postMessage({ counters: { ...counters } }));
`;

export async function startFaultyDevices(): Promise<FaultyDevices> {
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  const ports = await new Promise<{ faultyPort: number; silentPort: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  worker.unref();
  return {
    ...ports,
    counters: () =>
      new Promise((resolve) => {
        worker.once('message', (message: { counters: FaultyDeviceCounters }) => resolve(message.counters));
        worker.postMessage('counters');
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}
