import { createHash } from 'node:crypto';
import type { BaseLogger } from 'pino';
import type { AppContext, RegistrationHook } from '../../platform/context.ts';
import { safeEqual } from '../../platform/crypto.ts';
import { ForbiddenError } from '../../platform/errors.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Locale } from '../../platform/i18n/locale.ts';
import { catalogueMail } from '../../platform/mail/action-mail.ts';
import { throttle } from '../../platform/rate-limit.ts';
import { signedUrl, verifySignedUrl } from '../../platform/signed-url.ts';
import { findUserById, markEmailVerified } from '../users/repository.ts';

const LINK_LIFETIME_MIN = 60;
/** Fortify's `throttle:6,1` on the notification route. */
export const NOTIFICATION_LIMIT = 6;
const NOTIFICATION_WINDOW_S = 60;

/** The `{hash}` of the link: SHA-1 of the lower-cased e-mail, as Laravel's `sha1(getEmailForVerification())`. */
export function emailHash(email: string): string {
  return createHash('sha1').update(email.toLowerCase()).digest('hex');
}

/** Laravel's VerifyEmail notification in `locale` (src/platform/i18n: `mail.verify.*`). */
function verificationMail(link: string, locale: Locale) {
  return catalogueMail(locale, 'verify', link);
}

/**
 * Fortify's e-mail verification (docs/api.md section 12): the signed link sent on request (and at
 * registration with EMAIL_VERIFICATION=on), and the visit to it that sets `email_verified_at`.
 */
export class EmailVerificationService {
  readonly #ctx: AppContext;
  readonly #log: Pick<BaseLogger, 'warn'>;

  constructor(ctx: AppContext, log: Pick<BaseLogger, 'warn'>) {
    this.#ctx = ctx;
    this.#log = log;
  }

  /** `{APP_URL}/api/email/verify/{id}/{hash}?expires=…&signature=…`, valid 60 minutes from `now`. */
  link(user: { id: number; email: string }, now = new Date()): string {
    const url = `${this.#ctx.config.appUrl}/api/email/verify/${user.id}/${emailHash(user.email)}`;
    return signedUrl(this.#ctx.keys, url, new Date(now.getTime() + LINK_LIFETIME_MIN * 60_000));
  }

  /**
   * `POST /api/email/verification-notification`: counts against the user's six a minute, then
   * sends the mail unless the address is verified already. Answers whether it was sent.
   */
  async notify(userId: number, locale: Locale = this.#ctx.config.appLocale): Promise<boolean> {
    await throttle(this.#ctx.limiter, `verification-notification|${userId}`, NOTIFICATION_LIMIT, NOTIFICATION_WINDOW_S);
    const user = await findUserById(this.#ctx.db, userId);
    if (user === undefined || user.emailVerifiedAt !== null) return false;
    await this.#ctx.mailer.send({ to: user.email, ...verificationMail(this.link(user), locale) });
    return true;
  }

  /** Laravel's `signed` middleware on the link as requested (403 "Invalid signature." when wrong or expired). */
  checkSignature(requestUrl: string): void {
    verifySignedUrl(this.#ctx.keys, this.#ctx.config.appUrl, requestUrl, new Date());
  }

  /**
   * The visit to a link whose signature passed, signed in as user `userId`: the link must name
   * this user and their current e-mail (403 otherwise). The first visit sets `email_verified_at`;
   * later ones change nothing.
   */
  async verify(userId: number, link: { id: string; hash: string }): Promise<void> {
    const row = await findUserById(this.#ctx.db, userId);
    if (row === undefined || !safeEqual(link.id, String(row.id)) || !safeEqual(link.hash, emailHash(row.email))) {
      throw new ForbiddenError();
    }
    // Only while the e-mail is still the one hashed: a change in between leaves it unverified.
    if (await markEmailVerified(this.#ctx.db, row.id, row.email)) await this.#ctx.sessions.userChanged(row.id);
  }

  /**
   * With EMAIL_VERIFICATION=on, each new account gets the mail once its registration committed.
   * Sent in the background: a mail server that fails or is slow never fails or delays the sign-up
   * (the user asks again from the verify page), and the failure is logged.
   */
  registrationHook(): RegistrationHook {
    return async (_tx, registered) => {
      if (!this.#ctx.config.emailVerification) return undefined;
      return () => {
        void this.#sendAfterRegistration(registered.id);
      };
    };
  }

  async #sendAfterRegistration(userId: number): Promise<void> {
    try {
      const user = await findUserById(this.#ctx.db, userId);
      // After the commit, away from the request: APP_LOCALE's language.
      if (user !== undefined) {
        await this.#ctx.mailer.send({ to: user.email, ...verificationMail(this.link(user), this.#ctx.config.appLocale) });
      }
    } catch (error) {
      this.#log.warn({ err: loggableError(error), userId }, 'the verification e-mail of a new account was not sent');
    }
  }
}
