import { sql } from 'drizzle-orm';
import { randomAlphanumeric, safeEqual, type Keyring } from '../crypto.ts';
import { one, type Db } from '../db/client.ts';

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

  constructor(db: Db, keys: Keyring) {
    this.#db = db;
    this.#keys = keys;
  }

  async issue(userId: number): Promise<string> {
    const row = await one<{ remember_nonce: string }>(this.#db, sql`select remember_nonce from users where id = ${userId}`);
    if (row === undefined) throw new Error(`No user ${userId}.`);
    return `${userId}|${this.#keys.sign(`remember|${userId}|${row.remember_nonce}`)}`;
  }

  /** The user id the cookie stands for, if it is genuine and the user is active. */
  async verify(cookie: string): Promise<number | null> {
    const match = /^(\d{1,15})\|([0-9a-f]{64})$/.exec(cookie);
    if (match === null) return null;
    const userId = Number(match[1]);
    const row = await one<{ remember_nonce: string }>(this.#db, sql`select remember_nonce from users where id = ${userId} and status = 1`);
    if (row === undefined) return null;
    return safeEqual(this.#keys.sign(`remember|${userId}|${row.remember_nonce}`), match[2]!) ? userId : null;
  }

  async cycle(db: Db, userId: number): Promise<void> {
    await db.execute(sql`update users set remember_nonce = ${randomAlphanumeric(40)} where id = ${userId}`);
  }
}
