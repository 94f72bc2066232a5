import anyAscii from 'any-ascii';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../platform/context.ts';
import { isUniqueViolation, transaction, type Db } from '../../platform/db/client.ts';
import { LockoutError, ValidationError, type FieldErrors } from '../../platform/errors.ts';
import { assignRole } from '../access/repository.ts';
import {
  claimTotpStep,
  emailTaken,
  findUserByEmail,
  findUserById,
  insertUser,
  updateUser,
  userExists,
  USERS_EMAIL_UNIQUE,
} from '../users/repository.ts';
import type { UserRow } from '../users/tables.ts';
import type { PasswordHasher } from '../../platform/auth/passwords.ts';
import {
  findRecoveryCode,
  matchTotpStep,
  newRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  otpauthUrl,
  qrCodeSvg,
  TwoFactorVault,
} from './two-factor.ts';

export const MESSAGES = {
  credentials: 'These credentials do not match our records.',
  disabled: 'This account is disabled.',
  invalidCode: 'The provided two factor authentication code was invalid.',
  invalidRecoveryCode: 'The provided two factor recovery code was invalid.',
  wrongPassword: 'The provided password was incorrect.',
  wrongCurrentPassword: 'The provided password does not match your current password.',
  emailTaken: 'The email has already been taken.',
  invalidRef: 'The selected ref is invalid.',
  passwordMin: 'The password field must be at least 8 characters.',
  passwordConfirmation: 'The password field confirmation does not match.',
} as const;

const LOGIN_MAX_FAILURES = 5;
const LOGIN_DECAY_S = 60;
export const PASSWORD_MIN = 8;

/** Laravel's `Password::min(8)` and `confirmed` rules, in that order, for a password that is present. */
export function newPasswordMessages(password: string, confirmation: string | undefined): string[] {
  const messages: string[] = [];
  if ([...password].length < PASSWORD_MIN) messages.push(MESSAGES.passwordMin);
  if (confirmation !== password) messages.push(MESSAGES.passwordConfirmation);
  return messages;
}

export interface LoginOutcome {
  userId: number;
  twoFactor: boolean;
}

export interface Registration {
  name: string;
  email: string;
  password: string;
  ref: number;
}

/** Account rules of docs/api.md section 6; HTTP and cookies stay in the routes. */
export class AccountService {
  readonly #ctx: AppContext;
  readonly #hasher: PasswordHasher;
  readonly #vault: TwoFactorVault;
  readonly #appName: string;

  constructor(ctx: AppContext, hasher: PasswordHasher, appName = 'croupier') {
    this.#ctx = ctx;
    this.#hasher = hasher;
    this.#vault = new TwoFactorVault(ctx.keys);
    this.#appName = appName;
  }

  get hasher(): PasswordHasher {
    return this.#hasher;
  }

  get #db(): Db {
    return this.#ctx.db;
  }

  /**
   * Fortify's throttle key: lower-cased, transliterated e-mail and the client IP, so
   * look-alike Unicode spellings of one address share a counter.
   */
  static loginKey(email: string, ip: string): string {
    return `login|${anyAscii(email.toLowerCase())}|${ip}`;
  }

  async ensureLoginNotLocked(email: string, ip: string): Promise<void> {
    const state = await this.#ctx.limiter.peek(AccountService.loginKey(email, ip));
    if (state !== null && state.hits >= LOGIN_MAX_FAILURES) {
      const message = `Too many login attempts. Please try again in ${state.retryAfter} seconds.`;
      throw new LockoutError('email', message, state.retryAfter);
    }
  }

  async attemptLogin(email: string, password: string, ip: string): Promise<LoginOutcome> {
    const user = await findUserByEmail(this.#db, email);
    const valid =
      user === undefined ? (await this.#hasher.verifyNothing(password), false) : await this.#hasher.verify(user.password, password);
    if (user === undefined || !valid) {
      await this.#ctx.limiter.hit(AccountService.loginKey(email, ip), LOGIN_DECAY_S);
      throw ValidationError.field('email', MESSAGES.credentials);
    }
    if (user.status !== 1) throw ValidationError.field('email', MESSAGES.disabled);
    if (this.#hasher.needsRehash(user.password)) {
      await updateUser(this.#db, user.id, { password: await this.#hasher.hash(password) });
    }
    const twoFactor = user.twoFactorSecret !== null && user.twoFactorConfirmedAt !== null;
    return { userId: user.id, twoFactor };
  }

  /** Only a fully passed login clears the failed-login counter. */
  async clearLoginFailures(email: string, ip: string): Promise<void> {
    await this.#ctx.limiter.clear(AccountService.loginKey(email, ip));
  }

  async clearLoginFailuresOf(userId: number, ip: string): Promise<void> {
    const user = await findUserById(this.#db, userId);
    if (user !== undefined) await this.clearLoginFailures(user.email, ip);
  }

  /** The pending user when the code or a recovery code is right; a 422 otherwise. */
  async passChallenge(pendingUserId: number | null, code?: string, recoveryCode?: string): Promise<number> {
    const failure =
      recoveryCode !== undefined
        ? ValidationError.field('recovery_code', MESSAGES.invalidRecoveryCode)
        : ValidationError.field('code', MESSAGES.invalidCode);
    const user = pendingUserId === null ? undefined : await findUserById(this.#db, pendingUserId);
    if (user === undefined || user.status !== 1 || user.twoFactorSecret === null) throw failure;
    if (recoveryCode !== undefined && (await this.#useRecoveryCode(user, recoveryCode))) return user.id;
    if (code !== undefined && (await this.#useTotp(user, code))) return user.id;
    throw failure;
  }

  async #useTotp(user: UserRow, code: string): Promise<boolean> {
    const secret = this.#vault.openSecret(user.twoFactorSecret);
    const step = secret === null ? null : matchTotpStep(secret, code);
    return step !== null && (await claimTotpStep(this.#db, user.id, step));
  }

  /** A used code is replaced in place, so there are always eight. */
  async #useRecoveryCode(user: UserRow, candidate: string): Promise<boolean> {
    return transaction(this.#db, async (tx) => {
      // Lock the row: two requests with the same code must not both succeed.
      await tx.execute(sql`select 1 from users where id = ${user.id} for update`);
      const fresh = await findUserById(tx, user.id);
      const codes = this.#vault.openCodes(fresh?.twoFactorRecoveryCodes ?? null);
      const index = findRecoveryCode(codes, candidate);
      if (index === -1) return false;
      codes[index] = newRecoveryCode();
      await updateUser(tx, user.id, { twoFactorRecoveryCodes: this.#vault.sealCodes(codes) });
      return true;
    });
  }

  /**
   * Registration's rules that need the database, Laravel's `unique` on email and `exists` on ref,
   * for a body as sent: a value of the wrong type is the schema's to report, and is skipped here.
   */
  async registrationConflicts(body: { email?: unknown; ref?: unknown }): Promise<FieldErrors> {
    const errors: FieldErrors = {};
    if (typeof body.email === 'string' && (await emailTaken(this.#db, body.email))) errors.email = [MESSAGES.emailTaken];
    const ref = typeof body.ref === 'string' && /^[0-9]{1,15}$/.test(body.ref) ? Number(body.ref) : body.ref;
    if (typeof ref === 'number' && Number.isSafeInteger(ref) && ref > 0 && !(await userExists(this.#db, ref))) {
      errors.ref = [MESSAGES.invalidRef];
    }
    return errors;
  }

  async register(input: Registration): Promise<number> {
    const errors = await this.registrationConflicts(input);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    const passwordHash = await this.#hasher.hash(input.password);
    try {
      // What the hooks asked to run after the commit, from the attempt that committed.
      let afterCommit: (() => void)[] = [];
      const userId = await transaction(this.#db, async (tx) => {
        afterCommit = [];
        const user = await insertUser(tx, { name: input.name, email: input.email, passwordHash, ref: input.ref === 0 ? null : input.ref });
        await assignRole(tx, user.id, 'player');
        for (const hook of this.#ctx.registrationHooks) {
          const after = await hook(tx, { id: user.id, ref: user.ref });
          if (after !== undefined) afterCommit.push(after);
        }
        return user.id;
      });
      for (const after of afterCommit) after();
      return userId;
    } catch (error) {
      if (isUniqueViolation(error, USERS_EMAIL_UNIQUE)) throw ValidationError.field('email', MESSAGES.emailTaken);
      throw error;
    }
  }

  /** Logging out: every remember-me cookie of the user stops working (Fortify cycles the remember token). */
  async forgetRememberedDevices(userId: number): Promise<void> {
    await this.#ctx.sessions.remember.cycle(this.#db, userId);
  }

  async checkPassword(userId: number, password: unknown): Promise<boolean> {
    if (typeof password !== 'string') return false;
    const user = await findUserById(this.#db, userId);
    return user !== undefined && (await this.#hasher.verify(user.password, password));
  }

  /**
   * A new password: every other session of the user ends, remember-me cookies are voided and any
   * pending reset link dies with the old password.
   */
  async changePassword(
    userId: number,
    currentSessionId: string,
    input: { current: string; password: string; confirmation: string | undefined },
  ): Promise<void> {
    // One validator in Fortify's stub: a wrong current password and a weak new one are reported together.
    const errors: FieldErrors = {};
    if (!(await this.checkPassword(userId, input.current))) errors.current_password = [MESSAGES.wrongCurrentPassword];
    const passwordMessages = newPasswordMessages(input.password, input.confirmation);
    if (passwordMessages.length > 0) errors.password = passwordMessages;
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
    await this.#setPassword(userId, input.password);
    await this.#ctx.sessions.store.destroyForUser(userId, currentSessionId);
  }

  async #setPassword(userId: number, password: string): Promise<void> {
    const passwordHash = await this.#hasher.hash(password);
    await transaction(this.#db, async (tx) => {
      await updateUser(tx, userId, { password: passwordHash });
      await this.#ctx.sessions.remember.cycle(tx, userId);
      await tx.execute(sql`delete from password_reset_tokens where email = (select email from users where id = ${userId})`);
    });
  }

  /** After a completed reset nobody stays signed in with the old password. */
  async setPasswordAfterReset(userId: number, password: string): Promise<void> {
    await this.#setPassword(userId, password);
    await this.#ctx.sessions.store.destroyForUser(userId);
  }

  async updateProfile(userId: number, name: string, email: string | undefined): Promise<void> {
    if (email !== undefined && (await emailTaken(this.#db, email, userId))) throw ValidationError.field('email', MESSAGES.emailTaken);
    try {
      await updateUser(this.#db, userId, { name, ...(email === undefined ? {} : { email: email.toLowerCase() }) });
    } catch (error) {
      if (isUniqueViolation(error, USERS_EMAIL_UNIQUE)) throw ValidationError.field('email', MESSAGES.emailTaken);
      throw error;
    }
    await this.#ctx.sessions.userChanged(userId);
  }

  // Two-factor management ------------------------------------------------------------------

  /** A secret that already exists is kept unless `force`; a new secret must be confirmed again. */
  async enableTwoFactor(userId: number, force: boolean): Promise<void> {
    const user = await findUserById(this.#db, userId);
    if (user === undefined || (user.twoFactorSecret !== null && !force)) return;
    await updateUser(this.#db, userId, {
      twoFactorSecret: this.#vault.sealSecret(newTotpSecret()),
      twoFactorRecoveryCodes: this.#vault.sealCodes(newRecoveryCodes()),
      twoFactorConfirmedAt: null,
    });
    await this.#ctx.sessions.userChanged(userId);
  }

  async confirmTwoFactor(userId: number, code: string | undefined): Promise<void> {
    const user = await findUserById(this.#db, userId);
    if (user === undefined || code === undefined || !(await this.#useTotp(user, code))) {
      throw ValidationError.field('code', MESSAGES.invalidCode);
    }
    await updateUser(this.#db, userId, { twoFactorConfirmedAt: new Date() });
    await this.#ctx.sessions.userChanged(userId);
  }

  async disableTwoFactor(userId: number): Promise<void> {
    await updateUser(this.#db, userId, {
      twoFactorSecret: null,
      twoFactorRecoveryCodes: null,
      twoFactorConfirmedAt: null,
      twoFactorLastStep: null,
    });
    await this.#ctx.sessions.userChanged(userId);
  }

  async secretKey(userId: number): Promise<string | null> {
    const user = await findUserById(this.#db, userId);
    return this.#vault.openSecret(user?.twoFactorSecret ?? null);
  }

  async qrCode(userId: number): Promise<{ svg: string; url: string } | null> {
    const user = await findUserById(this.#db, userId);
    const secret = this.#vault.openSecret(user?.twoFactorSecret ?? null);
    if (user === undefined || secret === null) return null;
    const url = otpauthUrl(secret, this.#appName, user.email);
    return { svg: await qrCodeSvg(url), url };
  }

  async recoveryCodes(userId: number): Promise<string[]> {
    const user = await findUserById(this.#db, userId);
    if (user === undefined || user.twoFactorSecret === null) return [];
    return this.#vault.openCodes(user.twoFactorRecoveryCodes);
  }

  /** Fortify regenerates even while two-factor is off; the codes show once it is on. */
  async regenerateRecoveryCodes(userId: number): Promise<void> {
    await updateUser(this.#db, userId, { twoFactorRecoveryCodes: this.#vault.sealCodes(newRecoveryCodes()) });
  }
}
