import type { Identity } from '../auth/identity.ts';
import { safeEqual, type Keyring } from '../crypto.ts';
import type { Db } from '../db/client.ts';

/** Laravel's cookie name (guard `web`), kept so proxies and front ends that know it still match. */
export const REMEMBER_COOKIE = 'remember_web_59ba36addc2b2f9401580f014c7f58ea4e30989d';
export const REMEMBER_MAX_AGE_S = 400 * 24 * 60 * 60;

/**
 * Remember-me tokens: `<user id>|<HMAC(user id, nonce)>`. Nothing secret is stored: the nonce is
 * useless without APP_KEY, and replacing it (logout, password change or reset) voids every
 * remember-me cookie of the user at once.
 */
export class RememberTokens {
  readonly #db: Db;
  readonly #keys: Keyring;
  readonly #identity: Identity;

  constructor(deps: { db: Db; keys: Keyring; identity: Identity }) {
    ({ db: this.#db, keys: this.#keys, identity: this.#identity } = deps);
  }

  async issue(userId: number): Promise<string> {
    const nonce = await this.#identity.rememberNonceOf(this.#db, userId);
    if (nonce === undefined) throw new Error(`No active user ${userId}.`);
    return `${userId}|${this.#keys.sign(`remember|${userId}|${nonce}`)}`;
  }

  /** The user id the cookie stands for, if it is genuine and the user is active. */
  async verify(cookie: string): Promise<number | null> {
    const match = /^(\d{1,15})\|([0-9a-f]{64})$/.exec(cookie);
    if (match === null) return null;
    const userId = Number(match[1]);
    const nonce = await this.#identity.rememberNonceOf(this.#db, userId);
    if (nonce === undefined) return null;
    return safeEqual(this.#keys.sign(`remember|${userId}|${nonce}`), match[2]!) ? userId : null;
  }

  /** Voids every remember-me cookie of the user, in the caller's transaction when given one. */
  async cycle(db: Db, userId: number): Promise<void> {
    await this.#identity.cycleRememberNonce(db, userId);
  }
}
