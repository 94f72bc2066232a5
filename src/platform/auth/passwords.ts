import { hash, parseOptions, verify, type Algorithm } from '@node-rs/argon2';
import { verify as verifyBcrypt } from '@node-rs/bcrypt';

export interface HashingOptions {
  /** KiB of memory per hash. */
  memoryCost: number;
  timeCost: number;
}

/** OWASP's argon2id baseline: 19 MiB, 2 passes, one lane. */
export const DEFAULT_HASHING: HashingOptions = { memoryCost: 19456, timeCost: 2 };

// `Algorithm` is a const enum in the typings, which Node's type stripping cannot inline.
const ARGON2ID = 2 as Algorithm;

/** argon2id for new hashes; bcrypt hashes imported from the Laravel system still verify. */
export class PasswordHasher {
  readonly #options: HashingOptions;
  readonly #dummy: Promise<string>;

  constructor(options: HashingOptions = DEFAULT_HASHING) {
    this.#options = options;
    // Verified against when the e-mail is unknown, so that case costs the same time.
    this.#dummy = this.hash('unknown-user-placeholder');
  }

  hash(password: string): Promise<string> {
    return hash(password, { algorithm: ARGON2ID, memoryCost: this.#options.memoryCost, timeCost: this.#options.timeCost, parallelism: 1 });
  }

  async verify(stored: string, password: string): Promise<boolean> {
    try {
      if (/^\$2[aby]\$/.test(stored)) return await verifyBcrypt(password, stored.replace(/^\$2y\$/, '$2b$'));
      return await verify(stored, password);
    } catch {
      return false;
    }
  }

  /** Spends the time of one verification without a real hash. */
  async verifyNothing(password: string): Promise<void> {
    await this.verify(await this.#dummy, password);
  }

  needsRehash(stored: string): boolean {
    if (!stored.startsWith('$argon2id$')) return true;
    try {
      const parsed = parseOptions(stored);
      return parsed.memoryCost !== this.#options.memoryCost || parsed.timeCost !== this.#options.timeCost;
    } catch {
      return true;
    }
  }
}
