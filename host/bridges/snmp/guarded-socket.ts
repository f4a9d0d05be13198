// The UDP socket under one net-snmp session, made by driverbox (net-snmp's `dgramModule`
// option) so that the agent's answers are handled under guard. net-snmp decodes a datagram
// in its socket's 'message' listener; some answers make that code throw (a Report PDU on
// v1 / v2c reads v3 security parameters that are not there), and a throw there would end
// the process. Others it cannot decode it only emits as a session 'error' and drops, and the
// request waits for its timeout; others again its lenient reader turns into garbage values.
// Here an answer's shape is checked first (message-shape.ts), and a malformed answer, a
// throw, or an undecodable answer to a request this session sent ends the call at once with
// MALFORMED_ANSWER; a datagram that answers no request of this session is dropped unread.
import dgram from 'node:dgram';
import type { DriverErrorCode } from '../../contract/driver-error-codes.js';
import { isIP } from 'node:net';
import { readMessageHeader, PDU_TAGS, type MessageHeader } from './message-header.js';
import { checkMessageShape } from './message-shape.js';

/** What ended the call: a code and a message that says what was wrong with the answer. */
export interface SnmpFault {
  code: Extract<DriverErrorCode, 'MALFORMED_ANSWER' | 'SOCKET_ERROR'>;
  message: string;
}

const VERSION_NAMES: Readonly<Record<number, string>> = { 0: 'v1', 1: 'v2c', 3: 'v3' };

/** net-snmp's message, one line and short (it may quote device data). */
function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[\x00-\x1f\x7f]+/g, ' ').slice(0, 200);
}

export class SnmpSocketGuard {
  /** The request ids (msgIDs for v3) this session sent: only answers to them may end the call. */
  readonly #sent = new Set<number>();
  /** The datagram being handed to net-snmp, while it is. */
  #incoming: { header: MessageHeader | null; from: dgram.RemoteInfo } | null = null;

  /**
   * `peer`: where the session sends (an undecodable datagram from there with no readable id
   * is its answer too); `fail`: ends the call, called at most once per fault.
   */
  constructor(
    private readonly peer: { host: string; port: number },
    private readonly fail: (fault: SnmpFault) => void,
  ) {}

  /** For net-snmp's `dgramModule` option. */
  readonly dgramModule = {
    createSocket: (type: 'udp4' | 'udp6'): dgram.Socket => {
      const socket = dgram.createSocket(type);
      this.#watchSends(socket);
      this.#guardMessages(socket);
      // A socket error other than a send's (those reach the request's callback).
      socket.on('error', (error) => this.fail({ code: 'SOCKET_ERROR', message: `the SNMP socket failed: ${reason(error)}` }));
      return socket;
    },
  };

  /**
   * For the session's 'error' event, which net-snmp emits (inside the 'message' listener)
   * for a datagram it could not decode: the call ends when the datagram answers it.
   */
  undecodable(error: unknown): void {
    const incoming = this.#incoming;
    if (!incoming || !this.#answersUs(incoming.header, incoming.from)) return; // noise, or a late answer to an earlier page
    this.fail({ code: 'MALFORMED_ANSWER', message: `the agent's answer could not be decoded: ${reason(error)}` });
  }

  #answersUs(header: MessageHeader | null, from: dgram.RemoteInfo): boolean {
    if (header) return this.#sent.has(header.id);
    const fromPeer = from.port === this.peer.port && (isIP(this.peer.host) === 0 || from.address === this.peer.host);
    return fromPeer && this.#sent.size > 0;
  }

  /** Notes each request's id as it goes out (net-snmp keeps its own table private). */
  #watchSends(socket: dgram.Socket): void {
    const send = socket.send.bind(socket) as (...args: unknown[]) => void;
    (socket as { send: unknown }).send = (...args: unknown[]) => {
      const first = args[0];
      if (Buffer.isBuffer(first)) {
        const header = readMessageHeader(first);
        if (header) this.#sent.add(header.id);
      }
      send(...args);
    };
  }

  /** Wraps net-snmp's 'message' listener: what it throws ends this call, not the process. */
  #guardMessages(socket: dgram.Socket): void {
    const on = socket.on.bind(socket) as (event: string, listener: (...args: never[]) => void) => dgram.Socket;
    (socket as { on: unknown }).on = (event: string, listener: (...args: never[]) => void) => {
      if (event !== 'message') return on(event, listener);
      const handle = listener as unknown as (buffer: Buffer, from: dgram.RemoteInfo) => void;
      return on('message', (buffer: Buffer, from: dgram.RemoteInfo) => {
        const header = readMessageHeader(buffer);
        // What answers no request of this session net-snmp would decode and drop: dropped unread,
        // so a flood of strangers' datagrams costs a few bytes' look each.
        if (!this.#answersUs(header, from)) return;
        // net-snmp's reader takes much that is malformed for an answer: it never sees it.
        const problem = checkMessageShape(buffer);
        if (problem !== null) return this.fail({ code: 'MALFORMED_ANSWER', message: `the agent's answer is malformed: ${problem}` });
        this.#incoming = { header, from };
        try {
          handle(buffer, from);
        } catch (error) {
          this.fail({ code: 'MALFORMED_ANSWER', message: this.#describeThrow(header, error) });
        } finally {
          this.#incoming = null;
        }
      });
    };
  }

  #describeThrow(header: MessageHeader | null, error: unknown): string {
    if (header && header.version !== 3 && header.pduTag === 0xa8) {
      return `the agent answered an SNMP ${VERSION_NAMES[header.version] ?? `version ${header.version}`} request with a Report PDU, which only SNMPv3 uses`;
    }
    const pdu = header?.pduTag != null ? ` (a ${PDU_TAGS[header.pduTag] ?? `PDU tagged 0x${header.pduTag.toString(16)}`})` : '';
    return `the agent's answer${pdu} could not be handled: ${reason(error)}`;
  }
}
