// Device credentials are encrypted at rest with AES-256-GCM. The key is derived with scrypt
// from the user's secret (config or DRIVERBOX_SECRET_KEY) and a random salt kept in the store,
// so the same secret gives different keys in different stores. A known text encrypted at first
// use tells a wrong secret apart from a damaged value.
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { StoreError } from '../../contract/errors.js';

const PREFIX = 'v1:';
const CHECK_TEXT = 'driverbox-secret-check';

export interface SecretBox {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

export function deriveKey(secret: string, salt: Buffer): Buffer {
  return scryptSync(secret, salt, 32, { N: 1 << 14, r: 8, p: 1 });
}

export function sealWith(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function openWith(key: Buffer, sealed: string): string | null {
  if (!sealed.startsWith(PREFIX)) return null;
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  if (raw.length < 28) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** A box for a store: `check` is the store's sealed check text (null on first use: made now). */
export function makeSecretBox(key: Buffer): SecretBox {
  return {
    encrypt: (plain) => sealWith(key, plain),
    decrypt(sealed) {
      const plain = openWith(key, sealed);
      if (plain === null) throw new StoreError('SECRET_KEY_MISMATCH', 'a stored credential cannot be decrypted with this secret key');
      return plain;
    },
  };
}

export function makeCheck(key: Buffer): string {
  return sealWith(key, CHECK_TEXT);
}

export function keyMatchesCheck(key: Buffer, check: string): boolean {
  return openWith(key, check) === CHECK_TEXT;
}

/** Used when the store was opened without a secret key: any credential read or write says so. */
export const lockedSecretBox: SecretBox = {
  encrypt() {
    throw new StoreError('SECRET_KEY_MISSING', 'storing device credentials needs a secret key: set DRIVERBOX_SECRET_KEY or the secretKey option');
  },
  decrypt() {
    throw new StoreError('SECRET_KEY_MISSING', 'reading device credentials needs a secret key: set DRIVERBOX_SECRET_KEY or the secretKey option');
  },
};
