// D.crypto: thin in-sandbox side; hashing and ciphers run on the host's node:crypto.
// Results without an output encoding come back as Buffers, as on the public collector.
import type { Bridge } from './bridge';
import { raise } from './error-text';
import type { CryptoAnswer, CryptoFn, WireValue } from './protocol';

type BufferCtor = {
  from(data: unknown, encoding?: string): Uint8Array & { toString(enc?: string): string };
  isBuffer(x: unknown): boolean;
};

export function createCrypto(bridge: Bridge, buffer: () => BufferCtor) {
  const wire = (value: unknown): WireValue => {
    if (value instanceof Uint8Array) return { b64: buffer().from(value).toString('base64') };
    if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return { v: value ?? null };
    return { s: String(value) };
  };
  const call = (fn: CryptoFn, ...args: unknown[]): unknown => {
    const answer = bridge.call('crypto', { fn, args: args.map(wire) }) as CryptoAnswer;
    if (!answer.ok) throw raise(new Error(answer.error));
    if (answer.bytes) return buffer().from(answer.value as string, 'base64');
    return answer.value;
  };

  const cipher = (decipher: boolean) =>
    function (algorithm: unknown, key: unknown, iv?: unknown) {
      const handle = call('cipherCreate', decipher, algorithm, key, iv ?? null) as number;
      return {
        update: (data: unknown, inputEncoding?: unknown, outputEncoding?: unknown) => call('cipherUpdate', handle, data, inputEncoding, outputEncoding),
        final: (outputEncoding?: unknown) => call('cipherFinal', handle, outputEncoding),
        setAutoPadding: (on?: unknown) => {
          call('cipherSetAutoPadding', handle, on !== false);
        },
      };
    };

  return {
    hash: (data: unknown, algorithm: unknown, inputEncoding?: unknown, outputEncoding?: unknown) =>
      call('hash', data, algorithm, inputEncoding, outputEncoding),
    hmac: (data: unknown, key: unknown, algorithm: unknown, outputEncoding?: unknown) => call('hmac', data, key, algorithm, outputEncoding),
    pbkdf2Sync: (password: unknown, salt: unknown, iterations: unknown, keyLength: unknown, digest?: unknown) =>
      call('pbkdf2', password, salt, iterations, keyLength, digest),
    createCipher: cipher(false),
    createDecipher: cipher(true),
  };
}
