// Host side of D.crypto: node:crypto does the work on copied inputs; cipher objects
// live here, addressed from the sandbox by a per-run handle number.
import { createCipheriv, createDecipheriv, createHash, createHmac, pbkdf2Sync, type Cipher, type Decipher } from 'node:crypto';
import type { CryptoAnswer, CryptoCall, WireValue } from '../../runtime/protocol.js';

const MAX_CIPHERS = 256;
/**
 * pbkdf2 runs on the sandbox thread outside the isolate, where the run's time limits cannot
 * stop it: its work is bounded instead. The work is one HMAC per iteration per block of the
 * derived key (a block is the digest's size), not per byte: iterations × ceil(keyLength /
 * digest size), weighted by the digest's cost. 2 million units take about 0.4 s here (sha256 at
 * 2 million iterations, sha512 at a million, sha3 at 250 000): past what device logins use.
 */
export const MAX_PBKDF2_WORK = 2_000_000;
/** Cost of one HMAC block relative to sha1/sha256 (measured: sha512 about 2×, sha3 and others up to 8×). */
function digestWeight(digest: string): number {
  const name = digest.toLowerCase();
  if (['sha1', 'sha224', 'sha256', 'md5', 'sha-1', 'sha-256'].includes(name)) return 1;
  if (/^sha-?(384|512)(-?\/?(224|256))?$/.test(name)) return 2;
  return 8;
}
const MAX_PBKDF2_KEY_BYTES = 1024;
const encodings = new Set(['utf8', 'utf-8', 'ascii', 'binary', 'latin1', 'hex', 'base64', 'base64url', 'ucs2', 'ucs-2', 'utf16le', 'utf-16le']);

type Value = string | Buffer | number | boolean | null;

function decode(value: WireValue | undefined): Value {
  if (!value) return null;
  if ('s' in value) return value.s;
  if ('b64' in value) return Buffer.from(value.b64, 'base64');
  return value.v;
}

function encoding(value: Value, what: string): BufferEncoding | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string' || !encodings.has(value.toLowerCase())) {
    throw new Error(`${what}: unknown encoding ${JSON.stringify(value)} (use utf8, ascii, binary, latin1, hex or base64)`);
  }
  return value.toLowerCase() as BufferEncoding;
}

function bytesOrText(value: Value, what: string): string | Buffer {
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  if (typeof value === 'number') return String(value);
  throw new Error(`${what}: data must be a string or a Buffer`);
}

function answer(out: string | Buffer): CryptoAnswer {
  return typeof out === 'string' ? { ok: true, value: out } : { ok: true, value: out.toString('base64'), bytes: true };
}

/**
 * pbkdf2 work units per millisecond, as last measured on this machine (starts low, so that the
 * first estimate errs on the side of refusing): how long a derivation will hold the thread.
 */
let unitsPerMs = 4_000;

export interface CryptoBudget {
  /** Milliseconds left before the run's deadline: host-side work counts against the run's time. */
  timeLeftMs(): number;
}

export class CryptoSession {
  readonly #ciphers = new Map<number, Cipher | Decipher>();
  #nextHandle = 1;
  readonly #budget: CryptoBudget | null;
  /** Time this run's D.crypto calls held the thread, in ms. */
  hostMs = 0;

  /** With a budget, a call past the run's deadline, or a pbkdf2 that would run past it, is refused. */
  constructor(budget: CryptoBudget | null = null) {
    this.#budget = budget;
  }

  call(request: CryptoCall): CryptoAnswer {
    const started = performance.now();
    try {
      if (this.#budget && this.#budget.timeLeftMs() <= 0) throw new Error(`D.crypto: the run's time limit is reached`);
      return this.#call(request);
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    } finally {
      this.hostMs += performance.now() - started;
    }
  }

  #call({ fn, args }: CryptoCall): CryptoAnswer {
    const a = args.map(decode);
    switch (fn) {
      case 'hash': {
        const [data, algorithm, inEnc, outEnc] = a;
        const hash = createHash(String(algorithm));
        const input = bytesOrText(data, 'D.crypto.hash');
        if (typeof input === 'string') hash.update(input, encoding(inEnc, 'D.crypto.hash input') ?? 'utf8');
        else hash.update(input);
        const out = encoding(outEnc, 'D.crypto.hash output');
        const digest = hash.digest();
        return answer(out ? digest.toString(out) : digest);
      }
      case 'hmac': {
        const [data, key, algorithm, outEnc] = a;
        const hmac = createHmac(String(algorithm), bytesOrText(key, 'D.crypto.hmac key'));
        hmac.update(bytesOrText(data, 'D.crypto.hmac'));
        const out = encoding(outEnc, 'D.crypto.hmac output');
        const digest = hmac.digest();
        return answer(out ? digest.toString(out) : digest);
      }
      case 'pbkdf2': {
        const [password, salt, iterations, keyLength, digest] = a;
        const rounds = Number(iterations);
        const bytes = Number(keyLength);
        const algorithm = typeof digest === 'string' ? digest : 'sha1';
        if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`D.crypto.pbkdf2Sync: iterations must be a positive integer (got ${String(iterations)})`);
        if (!Number.isInteger(bytes) || bytes < 0) throw new Error(`D.crypto.pbkdf2Sync: keyLength must be an integer >= 0 (got ${String(keyLength)})`);
        if (bytes > MAX_PBKDF2_KEY_BYTES) throw new Error(`D.crypto.pbkdf2Sync: keyLength ${bytes} is past the limit of ${MAX_PBKDF2_KEY_BYTES} bytes`);
        const digestBytes = createHash(algorithm).digest().length; // an unknown digest throws here, as pbkdf2 would
        const blocks = Math.max(1, Math.ceil(bytes / digestBytes));
        const work = rounds * blocks * digestWeight(algorithm);
        if (work > MAX_PBKDF2_WORK) {
          throw new Error(
            `D.crypto.pbkdf2Sync: iterations × hash blocks (${rounds} × ${blocks} of ${algorithm}) is past the limit of ${MAX_PBKDF2_WORK} (cost units): it would hold the sandbox past the run's time limit`,
          );
        }
        const left = this.#budget?.timeLeftMs() ?? Infinity;
        if (work / unitsPerMs > left) {
          throw new Error(`D.crypto.pbkdf2Sync: ${rounds} iterations would take about ${Math.ceil(work / unitsPerMs)} ms, more than the ${Math.max(0, Math.floor(left))} ms left of the run's time limit`);
        }
        const started = performance.now();
        const key = pbkdf2Sync(bytesOrText(password, 'D.crypto.pbkdf2Sync'), bytesOrText(salt, 'D.crypto.pbkdf2Sync salt'), rounds, bytes, algorithm);
        const elapsed = performance.now() - started;
        // Only derivations long enough to time well teach the rate.
        if (elapsed >= 20) unitsPerMs = (unitsPerMs + work / elapsed) / 2;
        return answer(key);
      }
      case 'cipherCreate': {
        const [decipher, algorithm, key, iv] = a;
        if (this.#ciphers.size >= MAX_CIPHERS) throw new Error(`too many ciphers in one run (at most ${MAX_CIPHERS})`);
        const k = bytesOrText(key, 'cipher key');
        const v = iv === null ? null : bytesOrText(iv, 'cipher iv');
        const made = decipher ? createDecipheriv(String(algorithm), k, v) : createCipheriv(String(algorithm), k, v);
        const handle = this.#nextHandle++;
        this.#ciphers.set(handle, made);
        return { ok: true, value: handle };
      }
      case 'cipherUpdate': {
        const [handle, data, inEnc, outEnc] = a;
        const c = this.#cipher(handle);
        const input = bytesOrText(data, 'cipher.update');
        const out = encoding(outEnc, 'cipher.update output');
        const inputBytes = typeof input === 'string' ? Buffer.from(input, encoding(inEnc, 'cipher.update input') ?? 'utf8') : input;
        const result = c.update(inputBytes);
        return answer(out ? result.toString(out) : result);
      }
      case 'cipherFinal': {
        const [handle, outEnc] = a;
        const c = this.#cipher(handle);
        const out = encoding(outEnc, 'cipher.final output');
        const result = c.final();
        this.#ciphers.delete(Number(handle));
        return answer(out ? result.toString(out) : result);
      }
      case 'cipherSetAutoPadding': {
        const [handle, on] = a;
        this.#cipher(handle).setAutoPadding(on !== false);
        return { ok: true, value: 0 };
      }
    }
  }

  #cipher(handle: Value): Cipher | Decipher {
    const c = this.#ciphers.get(Number(handle));
    if (!c) throw new Error('this cipher was already finalised or could not be created');
    return c;
  }
}
