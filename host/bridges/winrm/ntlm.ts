// NTLMv2 authentication messages (MS-NLMP 2.2.1 and 3.3.2), as WinRM takes them in an HTTP
// Authorization header: NEGOTIATE (type 1), the server's CHALLENGE (type 2), AUTHENTICATE
// (type 3). Only authentication: no signing or sealing of the SOAP messages that follow (the
// platform's client does none either), so the service must accept unencrypted messages
// (AllowUnencrypted) or be reached over HTTPS. test/bridges/winrm/ntlm.test.ts checks MS-NLMP 4.2.4.
import { createHmac, randomBytes } from 'node:crypto';
import { md4 } from './md4.js';

const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');
const UNICODE = 0x00000001;
const OEM = 0x00000002;
const REQUEST_TARGET = 0x00000004;
const NTLM = 0x00000200;
const ALWAYS_SIGN = 0x00008000;
const EXTENDED_SESSION_SECURITY = 0x00080000;
const TARGET_INFO = 0x00800000;
const BITS_128 = 0x20000000;
const BITS_56 = 0x80000000;
const NEGOTIATE_FLAGS = (UNICODE | OEM | REQUEST_TARGET | NTLM | ALWAYS_SIGN | EXTENDED_SESSION_SECURITY | BITS_128 | BITS_56) >>> 0;
/** MsvAvTimestamp in the target information (MS-NLMP 2.2.2.1). */
const AV_TIMESTAMP = 7;

export interface NtlmCredentials {
  domain: string;
  username: string;
  password: string;
}

export interface NtlmChallenge {
  flags: number;
  serverChallenge: Buffer;
  targetInfo: Buffer;
}

const hmac = (key: Buffer, ...data: Buffer[]) => createHmac('md5', key).update(Buffer.concat(data)).digest();

/** "DOMAIN\user" split; null when the name has no backslash. */
export function domainAccount(name: string): { domain: string; username: string } | null {
  const at = name.indexOf('\\');
  return at < 0 ? null : { domain: name.slice(0, at), username: name.slice(at + 1) };
}

/** The NEGOTIATE message (no domain or workstation supplied). */
export function negotiateMessage(): Buffer {
  const message = Buffer.alloc(32);
  SIGNATURE.copy(message, 0);
  message.writeUInt32LE(1, 8);
  message.writeUInt32LE(NEGOTIATE_FLAGS, 12);
  message.writeUInt32LE(32, 20); // empty domain and workstation fields point past the header
  message.writeUInt32LE(32, 28);
  return message;
}

/** Why a server's CHALLENGE message cannot be answered (it is the device's to forge). */
export class NtlmChallengeError extends Error {}

/** The CHALLENGE message's fields; NtlmChallengeError when `message` is not one. */
export function parseChallenge(message: Buffer): NtlmChallenge {
  if (message.length < 32 || !message.subarray(0, 8).equals(SIGNATURE)) throw new NtlmChallengeError(`not an NTLM message (${message.length} bytes)`);
  const type = message.readUInt32LE(8);
  if (type !== 2) throw new NtlmChallengeError(`message type ${type}, not a CHALLENGE (2)`);
  const flags = message.readUInt32LE(20);
  let targetInfo: Buffer = Buffer.alloc(0);
  if (flags & TARGET_INFO) {
    if (message.length < 48) throw new NtlmChallengeError(`it announces target information but is only ${message.length} bytes long`);
    const length = message.readUInt16LE(40);
    const offset = message.readUInt32LE(44);
    if (offset < 48 || offset + length > message.length) throw new NtlmChallengeError(`its target information (${length} bytes at offset ${offset}) lies outside the ${message.length}-byte message`);
    targetInfo = message.subarray(offset, offset + length);
  }
  return { flags, serverChallenge: message.subarray(24, 32), targetInfo };
}

/** NTOWFv2: the key of every NTLMv2 response. */
export function ntowfv2(credentials: NtlmCredentials): Buffer {
  const ntHash = md4(Buffer.from(credentials.password, 'utf16le'));
  return hmac(ntHash, Buffer.from(credentials.username.toUpperCase() + credentials.domain, 'utf16le'));
}

/** The server's timestamp from its target information, else now (FILETIME, 100 ns since 1601). */
function timestamp(targetInfo: Buffer): Buffer {
  for (let at = 0; at + 4 <= targetInfo.length; ) {
    const id = targetInfo.readUInt16LE(at);
    const length = targetInfo.readUInt16LE(at + 2);
    // A pair running past the end (a forged length) ends the walk: each pair is visited once.
    if (id === 0 || at + 4 + length > targetInfo.length) break;
    if (id === AV_TIMESTAMP && length === 8) return targetInfo.subarray(at + 4, at + 12);
    at += 4 + length;
  }
  const now = Buffer.alloc(8);
  now.writeBigUInt64LE((BigInt(Date.now()) + 11_644_473_600_000n) * 10_000n);
  return now;
}

/** The NTLMv2 and LMv2 responses (MS-NLMP 3.3.2), given the client challenge and time. */
export function ntlmv2Responses(credentials: NtlmCredentials, challenge: NtlmChallenge, clientChallenge: Buffer, time: Buffer): { nt: Buffer; lm: Buffer } {
  const key = ntowfv2(credentials);
  const temp = Buffer.concat([Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]), time, clientChallenge, Buffer.alloc(4), challenge.targetInfo, Buffer.alloc(4)]);
  const proof = hmac(key, challenge.serverChallenge, temp);
  return { nt: Buffer.concat([proof, temp]), lm: Buffer.concat([hmac(key, challenge.serverChallenge, clientChallenge), clientChallenge]) };
}

/** The AUTHENTICATE message answering `challenge`. */
export function authenticateMessage(credentials: NtlmCredentials, challenge: NtlmChallenge): Buffer {
  const { nt, lm } = ntlmv2Responses(credentials, challenge, randomBytes(8), timestamp(challenge.targetInfo));
  const fields = [lm, nt, Buffer.from(credentials.domain, 'utf16le'), Buffer.from(credentials.username, 'utf16le'), Buffer.alloc(0), Buffer.alloc(0)];
  const header = Buffer.alloc(64);
  SIGNATURE.copy(header, 0);
  header.writeUInt32LE(3, 8);
  let offset = 64;
  fields.forEach((field, i) => {
    header.writeUInt16LE(field.length, 12 + i * 8);
    header.writeUInt16LE(field.length, 14 + i * 8);
    header.writeUInt32LE(offset, 16 + i * 8);
    offset += field.length;
  });
  header.writeUInt32LE((challenge.flags & NEGOTIATE_FLAGS) >>> 0 || NEGOTIATE_FLAGS, 60);
  return Buffer.concat([header, ...fields]);
}

/** An AUTHENTICATE message's fields, for the simulator that checks it. */
export function parseAuthenticate(message: Buffer): { domain: string; username: string; nt: Buffer } | null {
  if (message.length < 64 || !message.subarray(0, 8).equals(SIGNATURE) || message.readUInt32LE(8) !== 3) return null;
  const field = (i: number) => {
    const length = message.readUInt16LE(12 + i * 8);
    const offset = message.readUInt32LE(16 + i * 8);
    return offset + length <= message.length ? message.subarray(offset, offset + length) : null;
  };
  const nt = field(1);
  const domain = field(2);
  const username = field(3);
  if (!nt || !domain || !username || nt.length < 48) return null;
  return { domain: domain.toString('utf16le'), username: username.toString('utf16le'), nt };
}

/** Whether an NTLMv2 response proves `credentials` for `serverChallenge` (the simulator's check). */
export function verifyNtlmv2(credentials: NtlmCredentials, serverChallenge: Buffer, nt: Buffer): boolean {
  const proof = hmac(ntowfv2(credentials), serverChallenge, nt.subarray(16));
  return proof.equals(nt.subarray(0, 16));
}
