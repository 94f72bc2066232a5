import { sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.ts';
import { randomHex, safeEqual, sha256 } from '../../platform/crypto.ts';
import { one } from '../../platform/db/client.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { Locale } from '../../platform/i18n/locale.ts';
import { message } from '../../platform/i18n/translate.ts';
import { catalogueMail } from '../../platform/mail/action-mail.ts';
import { findUserByEmail } from '../users/repository.ts';
import { newPasswordMessages, type AccountService } from './service.ts';

const TOKEN_LIFETIME_MIN = 60;
const RETRY_AFTER_S = 60;

export const RESET_MESSAGES = {
  sent: 'We have emailed your password reset link.',
  reset: 'Your password has been reset.',
  unknownUser: "We can't find a user with that email address.",
  throttled: 'Please wait before retrying.',
  invalidToken: 'This password reset token is invalid.',
} as const;

/** Laravel's ResetPassword notification in `locale` (src/platform/i18n: `mail.reset.*`). */
function resetMail(link: string, locale: Locale) {
  return catalogueMail(locale, 'reset', link, [message(locale, 'mail.reset.expire', { count: TOKEN_LIFETIME_MIN })]);
}

/** Password reset links: one live token per e-mail, stored as a hash, valid 60 minutes. */
export class PasswordResetService {
  readonly #ctx: AppContext;
  readonly #accounts: AccountService;

  constructor(ctx: AppContext, accounts: AccountService) {
    this.#ctx = ctx;
    this.#accounts = accounts;
  }

  /** `locale`: the language of the mail, the asking request's (docs/i18n.md). */
  async sendLink(email: string, locale: Locale = this.#ctx.config.appLocale): Promise<void> {
    const user = await findUserByEmail(this.#ctx.db, email);
    if (user === undefined) throw ValidationError.field('email', RESET_MESSAGES.unknownUser);
    const token = randomHex(32);
    // A new token supersedes the old one, unless the old one is under a minute old.
    const stored = await one(
      this.#ctx.db,
      sql`insert into password_reset_tokens as t (email, token_hash, created_at) values (${user.email}, ${sha256(token)}, now())
        on conflict (email) do update set token_hash = excluded.token_hash, created_at = excluded.created_at
        where t.created_at <= now() - make_interval(secs => ${RETRY_AFTER_S})
        returning email`,
    );
    if (stored === undefined) throw ValidationError.field('email', RESET_MESSAGES.throttled);
    const link = `${this.#ctx.config.frontendUrl}/password-reset/${token}?email=${encodeURIComponent(user.email)}`;
    try {
      await this.#ctx.mailer.send({ to: user.email, ...resetMail(link, locale) });
    } catch (error) {
      // A link nobody received must not hold the one-a-minute slot.
      await this.#ctx.db.execute(sql`delete from password_reset_tokens where email = ${user.email} and token_hash = ${sha256(token)}`);
      throw error;
    }
  }

  async reset(input: { token: string; email: string; password: string; passwordConfirmation: string | undefined }): Promise<void> {
    const user = await findUserByEmail(this.#ctx.db, input.email);
    if (user === undefined) throw ValidationError.field('email', RESET_MESSAGES.unknownUser);
    const row = await one<{ token_hash: string }>(
      this.#ctx.db,
      sql`select token_hash from password_reset_tokens
        where email = ${user.email} and created_at > now() - make_interval(mins => ${TOKEN_LIFETIME_MIN})`,
    );
    if (row === undefined || !safeEqual(row.token_hash, sha256(input.token))) {
      throw ValidationError.field('email', RESET_MESSAGES.invalidToken);
    }
    // The password rules come after the token check, and a weak password leaves the token usable.
    const messages = newPasswordMessages(input.password, input.passwordConfirmation);
    if (messages.length > 0) throw new ValidationError({ password: messages });
    // Consuming the token is the atomic step: of two resets racing with one link, one wins.
    const consumed = await one(
      this.#ctx.db,
      sql`delete from password_reset_tokens where email = ${user.email} and token_hash = ${row.token_hash} returning email`,
    );
    if (consumed === undefined) throw ValidationError.field('email', RESET_MESSAGES.invalidToken);
    await this.#accounts.setPasswordAfterReset(user.id, input.password);
  }
}
