// A hostile TFTP sender on its own thread (a worker), so that what the host's loop watch sees
// is the receiver's work on its packets, not the sender's. Told where to upload (host, port),
// it plays its scenario: endless or dripping blocks, tiny blocks, duplicates and blocks out of
// order, packets from another port, malformed packets, an oversized block, an ERROR packet,
// a sender that goes away. Helper beside the TFTP hostile-peer test (the harness has no UDP peer).
import { Worker } from 'node:worker_threads';

export type TftpScenario = 'endless' | 'dripping' | 'byte-block' | 'shuffled' | 'other-tid' | 'malformed' | 'oversized-block' | 'error-packet' | 'vanishes';

const WORKER = `
const dgram = require('node:dgram');
const { parentPort, workerData } = require('node:worker_threads');
const scenario = workerData.scenario;

const u16 = (n) => { const b = Buffer.alloc(2); b.writeUInt16BE(n & 0xffff); return b; };
const wrq = (name, mode) => Buffer.concat([u16(2), Buffer.from(name + '\\0' + mode + '\\0', 'latin1')]);
const data = (block, bytes) => Buffer.concat([u16(3), u16(block), bytes]);
const error = (code, text) => Buffer.concat([u16(5), u16(code), Buffer.from(text, 'latin1'), Buffer.from([0])]);
const full = (block) => Buffer.alloc(512, 0x61 + (block % 26));

function socketAt() {
  return new Promise((resolve) => { const s = dgram.createSocket('udp4'); s.bind(0, '127.0.0.1', () => resolve(s)); });
}

parentPort.on('message', async (to) => {
  const a = await socketAt();
  const send = (s, p) => s.send(p, to.port, to.host);
  const heard = { acks: [], errors: [] };
  const report = () => parentPort.postMessage(heard);
  let lastAck = -1;
  a.on('message', (m) => {
    const op = m.readUInt16BE(0);
    if (op === 5) { heard.errors.push(m.readUInt16BE(2) + ' ' + m.subarray(4, m.length - 1).toString('latin1')); report(); return; }
    if (op !== 4) return;
    const n = m.readUInt16BE(2);
    heard.acks.push(n); report();
    if (n <= lastAck) return; // a duplicate or stale ACK: the next block went already
    lastAck = n;
    onAck(n);
  });
  let onAck = () => {};
  switch (scenario) {
    case 'endless': // a full block for every ACK, forever
      onAck = (n) => send(a, data(n + 1, full(n + 1)));
      break;
    case 'dripping': // a full block for every ACK, each just before the receiver would ask again
      onAck = (n) => setTimeout(() => send(a, data(n + 1, full(n + 1))), workerData.delayMs);
      break;
    case 'byte-block': // a one-byte first block: a whole (one-byte) file, as RFC 1350 says
      onAck = (n) => { if (n === 0) send(a, data(1, Buffer.from('x'))); };
      break;
    case 'shuffled': // each block three times, with blocks from the future and the past between
      onAck = (n) => {
        if (n >= 3) return;
        const block = n + 1;
        const bytes = block < 3 ? full(block) : Buffer.from('end');
        send(a, data(block + 4, Buffer.from('from the future')));
        send(a, data(block, bytes)); send(a, data(block, bytes)); send(a, data(block, bytes));
        send(a, data(block - 1, Buffer.from('from the past')));
      };
      break;
    case 'other-tid': { // another port of the device's address butts in with DATA, ERROR, WRQ
      const b = await socketAt();
      b.on('message', (m) => { heard.other = (heard.other || []).concat(m.readUInt16BE(0) + ' ' + m.readUInt16BE(2)); report(); });
      onAck = (n) => {
        if (n === 0) {
          send(b, data(1, Buffer.from('intruder')));
          send(b, error(0, 'intruder error'));
          send(b, wrq('upload.cfg', 'octet'));
          setTimeout(() => send(a, data(1, Buffer.from('genuine'))), 100);
        }
      };
      break;
    }
    case 'malformed': // junk of every kind before and during the upload, which still completes
      for (const junk of [Buffer.alloc(0), Buffer.from([0]), Buffer.from([0, 2, 0]), Buffer.from([0, 9, 0, 1]), Buffer.from([0xff, 0xff, 1, 2, 3]), Buffer.concat([u16(2), Buffer.alloc(3000, 0x41)]), wrq('upload.cfg', 'mail'), wrq('upload.cfg', 'x'.repeat(3000))]) send(a, junk);
      await new Promise((r) => setTimeout(r, 100));
      onAck = (n) => {
        if (n !== 0) return;
        for (const junk of [Buffer.from([0, 3]), Buffer.from([0, 4, 0, 0]), Buffer.from([0, 1, 0]), u16(7)]) send(a, junk);
        send(a, data(1, Buffer.from('after the junk')));
      };
      break;
    case 'oversized-block': // 1400 bytes in one DATA block
      onAck = (n) => { if (n === 0) send(a, data(1, Buffer.alloc(1400, 0x62))); };
      break;
    case 'error-packet': // an ERROR with a long message full of control characters
      onAck = (n) => { if (n === 0) send(a, error(3, '\\x1b]52;c;aGk=\\x07' + 'disk full '.repeat(1000) + '\\r\\x1b[2J')); };
      break;
    case 'vanishes': // one block, then the sender's port is closed
      onAck = (n) => { if (n === 0) { send(a, data(1, full(1))); setTimeout(() => a.close(), 50); } };
      break;
  }
  send(a, wrq('upload.cfg', 'octet'));
});
parentPort.postMessage('ready');
`;

export interface TftpPeer {
  /** Starts the upload to the receiver at host:port. */
  upload(to: { host: string; port: number }): void;
  /** What the sender heard: ACK numbers, ERROR packets, and what its second port heard. */
  heard(): { acks: number[]; errors: string[]; other?: string[] };
  stop(): Promise<void>;
}

export async function startTftpPeer(scenario: TftpScenario, options: { delayMs?: number } = {}): Promise<TftpPeer> {
  const worker = new Worker(WORKER, { eval: true, workerData: { scenario, delayMs: options.delayMs ?? 0 } });
  let heard: ReturnType<TftpPeer['heard']> = { acks: [], errors: [] };
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: 'ready' | typeof heard) => {
      if (m === 'ready') resolve();
      else heard = m;
    });
  });
  return { upload: (to) => worker.postMessage(to), heard: () => heard, stop: async () => void (await worker.terminate()) };
}
