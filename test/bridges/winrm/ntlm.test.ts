// The pieces of NTLM written for WinRM, against the published test vectors: MD4 against
// RFC 1320's test suite, NTLMv2 against MS-NLMP 4.2.4 — so the client and the simulator that
// checks it are both proven against the specifications, not only against each other.
import { describe, expect, it } from 'vitest';
import { md4 } from '../../../host/bridges/winrm/md4.js';
import { authenticateMessage, negotiateMessage, ntlmv2Responses, ntowfv2, parseAuthenticate, parseChallenge, verifyNtlmv2 } from '../../../host/bridges/winrm/ntlm.js';
import { challengeMessage } from '../../../host/simulator/winrm/ntlm-server.js';

describe('MD4 (RFC 1320 appendix A.5)', () => {
  it.each([
    ['', '31d6cfe0d16ae931b73c59d7e0c089c0'],
    ['a', 'bde52cb31de33e46245e05fbdbd6fb24'],
    ['abc', 'a448017aaf21d8525fc10ae87aa6729d'],
    ['message digest', 'd9130a8164549fe818874806e1c7014b'],
    ['abcdefghijklmnopqrstuvwxyz', 'd79e1c308aa5bbcdeea8ed63df412da9'],
    ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', '043f8582f241db351ce627e153e7f0e4'],
    ['1234567890'.repeat(8), 'e33b4ddc9c38f2199c3e7b164fcc0536'],
  ])('MD4(%j)', (input, digest) => {
    expect(md4(Buffer.from(input, 'latin1')).toString('hex')).toBe(digest);
  });
});

describe('NTLMv2 (MS-NLMP 4.2.4)', () => {
  const credentials = { domain: 'Domain', username: 'User', password: 'Password' };
  const avPair = (id: number, text: string) => {
    const value = Buffer.from(text, 'utf16le');
    const head = Buffer.alloc(4);
    head.writeUInt16LE(id, 0);
    head.writeUInt16LE(value.length, 2);
    return Buffer.concat([head, value]);
  };
  const challenge = { flags: 0, serverChallenge: Buffer.from('0123456789abcdef', 'hex'), targetInfo: Buffer.concat([avPair(2, 'Domain'), avPair(1, 'Server'), Buffer.alloc(4)]) };

  it('NTOWFv2, NTProofStr and the LMv2 response are those of the specification', () => {
    expect(ntowfv2(credentials).toString('hex')).toBe('0c868a403bfd7a93a3001ef22ef02e3f');
    const { nt, lm } = ntlmv2Responses(credentials, challenge, Buffer.alloc(8, 0xaa), Buffer.alloc(8));
    expect(nt.subarray(0, 16).toString('hex')).toBe('68cd0ab851e51c96aabc927bebef6a1c');
    expect(lm.toString('hex')).toBe('86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa');
  });

  it('a NEGOTIATE, the simulator\'s CHALLENGE and the AUTHENTICATE fit together; a wrong password does not verify', () => {
    expect(negotiateMessage().subarray(0, 12).toString('hex')).toBe('4e544c4d5353500001000000');
    const { message, serverChallenge } = challengeMessage('CORP', 'WIN-01');
    const parsed = parseChallenge(message);
    expect(parsed.serverChallenge.equals(serverChallenge)).toBe(true);
    const auth = parseAuthenticate(authenticateMessage({ domain: 'CORP', username: 'svc', password: 'Secr3t' }, parsed))!;
    expect(auth).toMatchObject({ domain: 'CORP', username: 'svc' });
    expect(verifyNtlmv2({ domain: 'CORP', username: 'svc', password: 'Secr3t' }, serverChallenge, auth.nt)).toBe(true);
    expect(verifyNtlmv2({ domain: 'CORP', username: 'svc', password: 'secr3t' }, serverChallenge, auth.nt)).toBe(false);
  });

  it("a forged CHALLENGE: named when it cannot be one; AV pairs cut short are not read past the end", () => {
    const forge = (targetInfo: Buffer, patch: (m: Buffer) => void = () => {}) => {
      const message = Buffer.concat([Buffer.alloc(48), targetInfo]);
      message.write('NTLMSSP\0', 0, 'latin1');
      message.writeUInt32LE(2, 8);
      message.writeUInt32LE(0x00800201, 20); // UNICODE | NTLM | TARGET_INFO
      message.writeUInt16LE(targetInfo.length, 40);
      message.writeUInt32LE(48, 44);
      patch(message);
      return message;
    };
    expect(() => parseChallenge(forge(Buffer.alloc(4), (m) => m.writeUInt32LE(0xfffffff0, 44)))).toThrow(/target information \(4 bytes at offset 4294967280\) lies outside the 52-byte message/);
    expect(() => parseChallenge(forge(Buffer.alloc(4)).subarray(0, 40))).toThrow(/only 40 bytes long/);
    expect(() => parseChallenge(Buffer.from('NTLMSSP\0\x03\0\0\0'.padEnd(32, '\0'), 'latin1'))).toThrow(/message type 3, not a CHALLENGE/);
    // A timestamp pair (7) announcing 8 bytes with 4 present: the client's own time is used, 8 bytes.
    const info = Buffer.from([7, 0, 8, 0, 1, 2, 3, 4]);
    const auth = parseAuthenticate(authenticateMessage({ domain: 'D', username: 'u', password: 'p' }, parseChallenge(forge(info))))!;
    // NTProofStr (16), then the blob: header (8), time (8), client challenge (8), 4 zero bytes, target info, 4 zero bytes.
    expect(auth.nt.length).toBe(16 + 8 + 8 + 8 + 4 + info.length + 4);
  });
});
