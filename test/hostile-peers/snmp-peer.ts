// A hostile SNMP agent on its own thread (a worker), so that what the host's loop watch sees
// is the host's work on its answers, not the agent's work making them. It decodes a v1 / v2c
// request just enough (version, community, PDU tag, request id, OIDs) and answers as its
// scenario says: Report PDUs, malformed BER of several kinds, endless or non-increasing walks,
// huge answers, slow pages. Helper beside the SNMP hostile-peer test (the harness has no UDP peer).
import { Worker } from 'node:worker_threads';

export type SnmpScenario =
  | 'report'
  | 'truncated'
  | 'bad-length'
  | 'wrong-tag'
  | 'long-integer'
  | 'unknown-pdu-tag'
  | 'garbage'
  | 'endless-walk'
  | 'endless-errors'
  | 'not-increasing'
  | 'huge-values'
  | 'huge-varbinds'
  | 'dripping'
  | 'dies-after-first'
  | 'flood';

const WORKER = `
const dgram = require('node:dgram');
const { parentPort, workerData } = require('node:worker_threads');
const scenario = workerData.scenario;
const base = workerData.base; // the walk's subtree

// BER, as little as the scenarios need.
const len = (n) => n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
const tlv = (tag, content) => Buffer.concat([Buffer.from([tag]), len(content.length), content]);
const int = (n) => { const b = []; do { b.unshift(n & 0xff); n = Math.floor(n / 256); } while (n > 0); if (b[0] & 0x80) b.unshift(0); return tlv(0x02, Buffer.from(b)); };
const oid = (text) => {
  const arcs = text.split('.').map(Number);
  const out = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) { const b = [arc & 0x7f]; let a = Math.floor(arc / 128); while (a > 0) { b.unshift((a & 0x7f) | 0x80); a = Math.floor(a / 128); } out.push(...b); }
  return tlv(0x06, Buffer.from(out));
};
const seq = (...parts) => tlv(0x30, Buffer.concat(parts));
const octets = (v) => tlv(0x04, Buffer.isBuffer(v) ? v : Buffer.from(v));
const varbind = (o, value) => seq(oid(o), value);
const message = (req, pduTag, id, varbinds, tail) => seq(int(req.version), octets(req.community), tlv(pduTag, Buffer.concat([int(id), int(0), int(0), seq(...varbinds), tail || Buffer.alloc(0)])));
const answer = (req, varbinds) => message(req, 0xa2, req.id, varbinds);

// The request: SEQUENCE { version, community, PDU { id, a, b, SEQUENCE OF { oid, value } } }.
function parse(buf) {
  let at = 0;
  const head = () => { const tag = buf[at++]; let n = buf[at++]; if (n & 0x80) { const k = n & 0x7f; n = 0; for (let i = 0; i < k; i++) n = n * 256 + buf[at++]; } return { tag, n }; };
  const integer = () => { const { n } = head(); let v = 0; for (let i = 0; i < n; i++) v = v * 256 + buf[at++]; return v; };
  head();
  const version = integer();
  const c = head(); const community = buf.subarray(at, at + c.n).toString(); at += c.n;
  const pdu = head();
  const id = integer(); const nonRepeaters = integer(); const maxRepetitions = integer();
  head();
  const oids = [];
  const end = buf.length;
  while (at < end) {
    head();
    const o = head(); const bytes = buf.subarray(at, at + o.n); at += o.n;
    const arcs = [Math.floor(bytes[0] / 40), bytes[0] % 40]; let v = 0;
    for (let i = 1; i < bytes.length; i++) { v = v * 128 + (bytes[i] & 0x7f); if (!(bytes[i] & 0x80)) { arcs.push(v); v = 0; } }
    oids.push(arcs.join('.'));
    const value = head(); at += value.n;
  }
  return { version, community, pduTag: pdu.tag, id, nonRepeaters, maxRepetitions, oids };
}

const socket = dgram.createSocket('udp4');
let received = 0;
let page = 0;
const send = (buf, to) => socket.send(buf, to.port, to.address);
socket.on('message', (buf, from) => {
  received++;
  parentPort.postMessage({ received });
  const req = parse(buf);
  const first = req.oids[0];
  const reply = (b) => send(b, from);
  switch (scenario) {
    case 'report': // what only v3 answers with, to a v1 / v2c request
      return reply(message(req, 0xa8, req.id, [varbind('1.3.6.1.6.3.15.1.1.4.0', tlv(0x41, Buffer.from([1])))]));
    case 'truncated': { // a whole answer, its last bytes cut off
      const whole = answer(req, [varbind(first, octets('a value that is cut off'))]);
      return reply(whole.subarray(0, whole.length - 8));
    }
    case 'bad-length': // the varbind list claims 2 GB
      return reply(seq(int(req.version), octets(req.community), tlv(0xa2, Buffer.concat([int(req.id), int(0), int(0), Buffer.from([0x30, 0x84, 0x7f, 0xff, 0xff, 0xff]), oid(first)]))));
    case 'wrong-tag': // an OCTET STRING where the varbind's OID belongs
      return reply(answer(req, [seq(octets(first), octets('x'))]));
    case 'long-integer': // a 9-byte INTEGER value
      return reply(answer(req, [varbind(first, tlv(0x02, Buffer.alloc(9, 0x7f)))]));
    case 'unknown-pdu-tag': // a PDU tag no SNMP version has
      return reply(message(req, 0xa9, req.id, [varbind(first, octets('x'))]));
    case 'garbage': // not BER at all, from the agent's port
      return reply(Buffer.from('this is not an SNMP message at all'));
    case 'endless-walk': { // always more, always in the subtree, always increasing
      const vbs = [];
      for (let i = 0; i < Math.max(1, req.maxRepetitions); i++) vbs.push(varbind(base + '.' + (++page), octets('row ' + page)));
      return reply(answer(req, vbs));
    }
    case 'endless-errors': // noSuchInstance on the same OID forever: net-snmp checks no order on errors
      return reply(answer(req, [varbind(base + '.1', Buffer.from([0x81, 0x00]))]));
    case 'not-increasing': // one row, then the OID asked for, again
      return reply(answer(req, [varbind(first === base ? base + '.5' : first, octets('again'))]));
    case 'huge-values': // one value as large as a datagram allows
      return reply(answer(req, [varbind(req.pduTag === 0xa5 ? base + '.1' : first, octets(Buffer.alloc(60000, 0x61)))]));
    case 'huge-varbinds': { // thousands of tiny varbinds, in order, forever
      const vbs = [];
      for (let i = 0; i < 3000; i++) vbs.push(varbind(base + '.' + (++page), int(i)));
      return reply(answer(req, vbs));
    }
    case 'dripping': // one row a page, each page just before the request would be sent again
      return setTimeout(() => reply(answer(req, [varbind(base + '.' + (++page), octets('drip ' + page))])), workerData.delayMs);
    case 'flood': { // thousands of large answers to requests never made, then the real one
      const stranger = answer({ ...req, id: req.id ^ 0x5a5a5a }, [varbind(first, octets(Buffer.alloc(30000, 0x62)))]);
      for (let i = 0; i < workerData.floodCount; i++) reply(stranger);
      return reply(answer(req, [varbind(req.pduTag === 0xa5 ? base + '.1' : first, octets('real'))]));
    }
    case 'dies-after-first': // one good page, then the port is closed
      if (page++ === 0) return reply(answer(req, [varbind(base + '.1', octets('first'))]));
      return socket.close();
  }
});
socket.bind(0, '127.0.0.1', () => parentPort.postMessage({ port: socket.address().port }));
`;

export interface SnmpPeer {
  port: number;
  /** Datagrams the agent has received so far. */
  received(): number;
  stop(): Promise<void>;
}

export async function startSnmpPeer(scenario: SnmpScenario, options: { base?: string; delayMs?: number; floodCount?: number } = {}): Promise<SnmpPeer> {
  const worker = new Worker(WORKER, { eval: true, workerData: { scenario, base: options.base ?? '1.3.6.1.4.1.99999', delayMs: options.delayMs ?? 0, floodCount: options.floodCount ?? 0 } });
  let received = 0;
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: { port?: number; received?: number }) => {
      if (m.port !== undefined) resolve(m.port);
      if (m.received !== undefined) received = m.received;
    });
  });
  return { port, received: () => received, stop: async () => void (await worker.terminate()) };
}
