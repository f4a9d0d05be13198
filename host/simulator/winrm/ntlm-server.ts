// The server side of NTLM for the simulated WinRM service: a CHALLENGE message for a
// NEGOTIATE, and the check of the AUTHENTICATE that follows on the same connection.
import { randomBytes } from 'node:crypto';
import { parseAuthenticate, verifyNtlmv2 } from '../../bridges/winrm/ntlm.js';

const SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1');
// UNICODE | REQUEST_TARGET | NTLM | ALWAYS_SIGN | TARGET_TYPE_DOMAIN | EXTENDED_SESSION_SECURITY | TARGET_INFO | 128 | 56
const FLAGS = (0x1 | 0x4 | 0x200 | 0x8000 | 0x10000 | 0x80000 | 0x800000 | 0x20000000 | 0x80000000) >>> 0;

function avPair(id: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(id, 0);
  head.writeUInt16LE(value.length, 2);
  return Buffer.concat([head, value]);
}

/** A CHALLENGE message for `domain`, and the server challenge it carries. */
export function challengeMessage(domain: string, computer: string): { message: Buffer; serverChallenge: Buffer } {
  const serverChallenge = randomBytes(8);
  const target = Buffer.from(domain, 'utf16le');
  const time = Buffer.alloc(8);
  time.writeBigUInt64LE((BigInt(Date.now()) + 11_644_473_600_000n) * 10_000n);
  const info = Buffer.concat([avPair(2, target), avPair(1, Buffer.from(computer, 'utf16le')), avPair(7, time), avPair(0, Buffer.alloc(0))]);
  const header = Buffer.alloc(48);
  SIGNATURE.copy(header, 0);
  header.writeUInt32LE(2, 8);
  header.writeUInt16LE(target.length, 12);
  header.writeUInt16LE(target.length, 14);
  header.writeUInt32LE(48, 16);
  header.writeUInt32LE(FLAGS, 20);
  serverChallenge.copy(header, 24);
  header.writeUInt16LE(info.length, 40);
  header.writeUInt16LE(info.length, 42);
  header.writeUInt32LE(48 + target.length, 44);
  return { message: Buffer.concat([header, target, info]), serverChallenge };
}

/** The NTLM message type of a token (1, 2, 3), or 0 when it is none. */
export function ntlmType(token: Buffer): number {
  return token.length >= 12 && token.subarray(0, 8).equals(SIGNATURE) ? token.readUInt32LE(8) : 0;
}

/** Whether an AUTHENTICATE proves `account` ("DOMAIN\user") with `password` for the challenge. */
export function checkAuthenticate(token: Buffer, serverChallenge: Buffer, account: string, password: string): { ok: boolean; user: string } {
  const message = parseAuthenticate(token);
  if (!message) return { ok: false, user: '' };
  const user = `${message.domain}\\${message.username}`;
  const at = account.indexOf('\\');
  const [domain, name] = at < 0 ? ['', account] : [account.slice(0, at), account.slice(at + 1)];
  const sameAccount = message.username.toLowerCase() === name.toLowerCase() && (domain === '' || message.domain.toLowerCase() === domain.toLowerCase());
  return { ok: sameAccount && verifyNtlmv2({ domain: message.domain, username: message.username, password }, serverChallenge, message.nt), user };
}
