// A TFTP receiver (RFC 1350) for one upload: the device writes one file (WRQ), in octet or
// netascii mode, in 512-byte blocks, each acknowledged. Nothing is ever read from it (RRQ is
// refused), nothing is written to disk, only the expected peer address may write, and the
// upload is bounded in bytes and time. Options (RFC 2347: blksize, tsize…) are not negotiated:
// a client that asks for them gets the plain ACK 0 the RFC prescribes, and goes on with 512.
// One socket serves both the request and the transfer (the device's TID is its address and
// port): a receiver takes one file, so the new-port-per-transfer of a general server buys nothing.
import dgram from 'node:dgram';
import type { UploadError } from './errors.js';

const OP = { RRQ: 1, WRQ: 2, DATA: 3, ACK: 4, ERROR: 5 } as const;
/** RFC 1350's error codes this receiver sends. */
const ERR = { UNDEFINED: 0, ACCESS_VIOLATION: 2, DISK_FULL: 3, ILLEGAL_OPERATION: 4, UNKNOWN_TID: 5 } as const;
const BLOCK = 512;
/** Longest file name taken from a WRQ (the driver's filePath has the same bound). */
const MAX_FILE_NAME_BYTES = 255;
/** Most of the device's ERROR text passed on to the driver, characters. */
const MAX_DEVICE_TEXT = 200;

export interface ReceiverOptions {
  /** The address to listen on (the host's address that faces the device). */
  address: string;
  /** 0 for a random port. */
  port: number;
  /** Only this peer address may upload (others get ERROR 2). */
  peer: string;
  /** The file name the upload must carry (compared without leading slashes); null: any. */
  fileName: string | null;
  /** Largest upload, bytes: past it the transfer is refused with ERROR 3. */
  maxBytes: number;
  /** ms to wait for a DATA block before the last ACK is sent again; 5 silent waits end the transfer. */
  retransmitMs?: number;
}

export type UploadOutcome = { ok: true; content: Buffer; fileName: string; mode: string; peer: string } | { ok: false; error: UploadError };

export interface TftpReceiver {
  readonly address: string;
  readonly port: number;
  /** Settles once: the upload, or why there is none (a timeout, too large, the device's ERROR, close()). */
  readonly upload: Promise<UploadOutcome>;
  /** Starts the overall clock: no complete upload within `ms` ends it with TFTP_TIMEOUT. */
  deadline(ms: number): void;
  /** Closes the socket; an upload not finished ends with ABORTED. Idempotent. */
  close(): void;
  /** Has the socket been closed? */
  readonly closed: boolean;
}

function errorPacket(code: number, message: string): Buffer {
  const text = Buffer.from(message, 'ascii');
  const packet = Buffer.alloc(4 + text.length + 1);
  packet.writeUInt16BE(OP.ERROR, 0);
  packet.writeUInt16BE(code, 2);
  text.copy(packet, 4);
  return packet;
}

function ackPacket(block: number): Buffer {
  const packet = Buffer.alloc(4);
  packet.writeUInt16BE(OP.ACK, 0);
  packet.writeUInt16BE(block, 2);
  return packet;
}

/** The NUL-terminated strings of a request after its opcode: file name, mode, then options. */
function requestFields(packet: Buffer): string[] {
  const fields: string[] = [];
  let start = 2;
  for (let i = 2; i < packet.length; i++) {
    if (packet[i] === 0) {
      fields.push(packet.subarray(start, i).toString('latin1'));
      start = i + 1;
    }
  }
  return fields;
}

/** netascii to the host's text: CR LF is a newline, CR NUL a lone CR. */
export function fromNetascii(data: Buffer): Buffer {
  const out = Buffer.alloc(data.length);
  let n = 0;
  for (let i = 0; i < data.length; i++) {
    const byte = data[i]!;
    if (byte === 13 && i + 1 < data.length && (data[i + 1] === 10 || data[i + 1] === 0)) {
      out[n++] = data[i + 1] === 10 ? 10 : 13;
      i++;
    } else {
      out[n++] = byte;
    }
  }
  return out.subarray(0, n);
}

const stripSlashes = (name: string) => name.replace(/^\/+/, '');

/** Device text passed on (in an error): control characters as '?', at most `max` characters. */
function printable(text: string, max: number): string {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  return shown.replace(/[\x00-\x1f\x7f-\x9f]/g, '?');
}

/** Binds the receiver; rejects when the address and port cannot be bound. */
export async function startReceiver(options: ReceiverOptions): Promise<TftpReceiver> {
  const socket = dgram.createSocket({ type: options.address.includes(':') ? 'udp6' : 'udp4' });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port, options.address, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const retransmitMs = options.retransmitMs ?? 1000;
  const bound = socket.address();
  let settle!: (outcome: UploadOutcome) => void;
  const upload = new Promise<UploadOutcome>((resolve) => (settle = resolve));
  let done = false;
  let closed = false;
  // The transfer under way: the device's address:port (its TID), the block expected next, what came.
  let tid: { address: string; port: number } | null = null;
  let fileName = '';
  let mode = '';
  let expected = 1;
  let lastAck: Buffer | null = null;
  const chunks: Buffer[] = [];
  let size = 0;
  let silence: NodeJS.Timeout | undefined;
  let silentWaits = 0;
  let overall: NodeJS.Timeout | undefined;
  let linger: NodeJS.Timeout | undefined;

  const send = (packet: Buffer, to: { address: string; port: number }, then?: () => void) => {
    // Port 0 (a forged source) would make send throw: nothing can be sent there anyway.
    if (closed || to.port === 0) return void then?.();
    try {
      socket.send(packet, to.port, to.address, () => then?.());
    } catch {
      then?.();
    }
  };
  const finish = (outcome: UploadOutcome) => {
    if (done) return;
    done = true;
    clearTimeout(silence);
    clearTimeout(overall);
    settle(outcome);
  };
  const fail = (code: UploadError['code'], message: string, tell?: { code: number; message: string }) => {
    finish({ ok: false, error: { code, message } });
    // Closed once the device has been told (a socket closed at once drops what it was sending).
    if (tell && tid) send(errorPacket(tell.code, tell.message), tid, close);
    else close();
  };
  const armSilence = () => {
    clearTimeout(silence);
    silence = setTimeout(() => {
      if (done || !tid || !lastAck) return;
      if (++silentWaits >= 5) return fail('TFTP_TIMEOUT', `the device stopped sending: no block ${expected} after ${silentWaits} tries of ${retransmitMs} ms`, { code: ERR.UNDEFINED, message: 'timed out' });
      send(lastAck, tid);
      armSilence();
    }, retransmitMs);
  };
  const close = () => {
    if (closed) return;
    closed = true;
    clearTimeout(silence);
    clearTimeout(overall);
    clearTimeout(linger);
    finish({ ok: false, error: { code: 'ABORTED', message: 'the TFTP receiver was closed before an upload completed' } });
    socket.close();
  };

  socket.on('error', () => fail('TFTP_ERROR', 'the TFTP receiver socket failed'));
  socket.on('message', (packet, from) => {
    // A packet this code cannot handle ends this upload, never the host.
    try {
      onPacket(packet, from);
    } catch (error) {
      fail('TFTP_ERROR', `the TFTP receiver failed on a packet from the device: ${printable((error as Error).message, MAX_DEVICE_TEXT)}`);
    }
  });
  function onPacket(packet: Buffer, from: dgram.RemoteInfo): void {
    // Port 0 is no one's TID: such a packet is forged (and answering it would throw).
    if (closed || packet.length < 4 || from.port === 0) return;
    const op = packet.readUInt16BE(0);
    const sameTid = tid !== null && from.address === tid.address && from.port === tid.port;
    if (op === OP.WRQ || op === OP.RRQ) {
      if (sameTid) {
        // The device sent its request again (our ACK 0 was lost): acknowledge it again.
        if (lastAck && expected === 1) send(lastAck, from);
        return;
      }
      if (op === OP.RRQ) return send(errorPacket(ERR.ILLEGAL_OPERATION, 'this receiver only accepts uploads (WRQ)'), from);
      if (from.address !== options.peer) return send(errorPacket(ERR.ACCESS_VIOLATION, 'only the device may upload here'), from);
      if (tid || done) return send(errorPacket(ERR.ACCESS_VIOLATION, 'this receiver takes one upload and has one already'), from);
      const [name = '', requested = ''] = requestFields(packet);
      const lower = requested.toLowerCase();
      if (lower !== 'octet' && lower !== 'netascii') {
        return send(errorPacket(ERR.ILLEGAL_OPERATION, `mode ${printable(requested, 20) || '(none)'} is not supported: use octet or netascii`), from);
      }
      if (Buffer.byteLength(name, 'latin1') > MAX_FILE_NAME_BYTES) return send(errorPacket(ERR.ILLEGAL_OPERATION, `file names have at most ${MAX_FILE_NAME_BYTES} bytes`), from);
      if (options.fileName !== null && stripSlashes(name) !== stripSlashes(options.fileName)) {
        return send(errorPacket(ERR.ACCESS_VIOLATION, `only ${options.fileName} may be uploaded here`), from);
      }
      tid = { address: from.address, port: from.port };
      fileName = name;
      mode = lower;
      lastAck = ackPacket(0);
      send(lastAck, tid);
      armSilence();
      return;
    }
    if (!sameTid) {
      // RFC 1350: a packet from another TID gets ERROR 5 and the transfer goes on.
      if (op === OP.DATA || op === OP.ACK) send(errorPacket(ERR.UNKNOWN_TID, 'unknown transfer ID'), from);
      return;
    }
    if (op === OP.ERROR) {
      const message = packet.subarray(4, packet.indexOf(0, 4) < 0 ? packet.length : packet.indexOf(0, 4)).toString('latin1');
      return fail('TFTP_ERROR', `the device ended the upload with TFTP error ${packet.readUInt16BE(2)}${message ? `: ${printable(message, MAX_DEVICE_TEXT)}` : ''}`);
    }
    if (op !== OP.DATA) return send(errorPacket(ERR.ILLEGAL_OPERATION, 'expected DATA'), from);
    const block = packet.readUInt16BE(2);
    const data = packet.subarray(4);
    if (done) {
      // Our final ACK was lost: acknowledge the last block again while the socket lingers.
      if (lastAck && block === lastAck.readUInt16BE(2)) send(lastAck, from);
      return;
    }
    if (block !== expected) {
      // A duplicate of the block just acknowledged: our ACK was lost, send it again.
      if (lastAck && block === lastAck.readUInt16BE(2)) send(lastAck, from);
      return;
    }
    if (data.length > BLOCK) return fail('TFTP_ERROR', `block ${block} has ${data.length} bytes; TFTP blocks hold at most ${BLOCK}`, { code: ERR.ILLEGAL_OPERATION, message: 'block too large' });
    size += data.length;
    if (size > options.maxBytes) {
      return fail('OUTPUT_TOO_LARGE', `the upload passed ${options.maxBytes} bytes, the most a run may receive`, { code: ERR.DISK_FULL, message: 'upload too large' });
    }
    chunks.push(Buffer.from(data));
    silentWaits = 0;
    lastAck = ackPacket(block);
    expected = (expected + 1) & 0xffff;
    if (data.length < BLOCK) {
      clearTimeout(silence);
      const whole = Buffer.concat(chunks, size);
      const outcome: UploadOutcome = { ok: true, content: mode === 'netascii' ? fromNetascii(whole) : whole, fileName, mode, peer: from.address };
      // Delivered once the final ACK is on its way: the driver may end the run at once, which
      // closes the socket, and a device that never got its ACK would retry for seconds and fail.
      send(lastAck, tid!, () => finish(outcome));
      // Linger a little to answer a lost final ACK, then close (the run's end closes it sooner).
      linger = setTimeout(close, Math.min(2 * retransmitMs, 2000));
      linger.unref();
    } else {
      send(lastAck, tid!);
      armSilence();
    }
  }

  return {
    address: bound.address,
    port: bound.port,
    upload,
    deadline(ms) {
      clearTimeout(overall);
      overall = setTimeout(() => fail('TFTP_TIMEOUT', `no complete upload within ${Math.round(ms)} ms`, { code: ERR.UNDEFINED, message: 'timed out' }), Math.max(0, ms));
    },
    close,
    get closed() {
      return closed;
    },
  };
}
