import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Equal strings in time that depends only on their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // Compare against itself on a length mismatch so both branches do the same work.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Random letters and digits without modulo bias. */
export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: bytes above it would favour the first letters.
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/**
 * Keys derived from APP_KEY, one per purpose, so an HMAC key can never decrypt a secret and the
 * other way round.
 */
export class Keyring {
  readonly #encryption: Buffer;
  readonly #signing: Buffer;

  constructor(appKey: Buffer) {
    this.#encryption = Buffer.from(hkdfSync('sha256', appKey, '', 'croupier:encryption', 32));
    this.#signing = Buffer.from(hkdfSync('sha256', appKey, '', 'croupier:signing', 32));
  }

  /** AES-256-GCM; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#encryption, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || body === undefined) {
      throw new Error('Unknown ciphertext format.');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#encryption, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  sign(value: string): string {
    return createHmac('sha256', this.#signing).update(value).digest('hex');
  }
}
