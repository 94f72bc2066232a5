import type { AppContext } from '../../platform/context.ts';
import type { App } from '../../platform/http/app.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.ts';
import { withDatabaseRules } from '../../platform/http/database-rules.ts';
import { currentUser } from '../../platform/http/guard.ts';
import { throttle } from '../../platform/rate-limit.ts';
import { REMEMBER_COOKIE } from '../../platform/session/remember.ts';
import {
  errorResponses,
  MessageBody,
  NoContent,
  EmptyString,
  sendEmptyString,
  sendNoContent,
  truthy,
} from '../../platform/http/schemas.ts';
import { presentUser, UserSchema } from '../users/present.ts';
import { localizedMessage } from '../../platform/i18n/http.ts';
import { RESET_MESSAGES, type PasswordResetService } from './password-reset.ts';
import * as S from './schemas.ts';
import { AccountService, MESSAGES } from './service.ts';

const CHALLENGE_LIMIT = 5;
const CHALLENGE_WINDOW_S = 60;
const tags = ['Account'];

/** The Account endpoints of docs/api.md section 6, answering exactly as Fortify + Sanctum do. */
export function registerAuthRoutes(app: App, ctx: AppContext, accounts: AccountService, resets: PasswordResetService): void {
  const { sessions } = ctx;

  app.get(
    '/api/csrf-cookie',
    { schema: { tags, summary: 'Start a session and set the XSRF-TOKEN cookie', response: { 204: NoContent } } },
    async (request, reply) => {
      await sessions.ensure(request, reply);
      return sendNoContent(reply);
    },
  );

  app.post(
    '/api/login',
    {
      schema: {
        tags,
        summary: 'Sign in with e-mail and password (answers `two_factor: true` when a code must follow)',
        body: S.LoginBody,
        response: { 200: S.LoginResponse, ...errorResponses },
      },
      // The lockout answers before validation, as in Fortify: order is CSRF → throttle → 422.
      preValidation: async (request) => {
        const email: unknown = request.body?.email;
        if (typeof email === 'string') await accounts.ensureLoginNotLocked(email, request.ip);
      },
    },
    async (request, reply) => {
      const body = request.body;
      const outcome = await accounts.attemptLogin(body.email, body.password, request.ip);
      const remember = truthy(body.remember);
      if (outcome.twoFactor) {
        // Not signed in yet: the session only remembers who is half-way through. A sign-in the
        // browser already had ends here, as a completed login would end it.
        const pending = { pendingUserId: outcome.userId, pendingRemember: remember, pendingAt: new Date() };
        if (request.user !== null) {
          await sessions.regenerate(request, reply, pending);
          request.user = null;
        } else await sessions.update(request, pending);
        return reply.send({ two_factor: true });
      }
      await sessions.signIn(request, reply, outcome.userId, remember);
      await accounts.clearLoginFailures(body.email, request.ip);
      return reply.send({ two_factor: false });
    },
  );

  app.post(
    '/api/two-factor-challenge',
    {
      schema: {
        tags,
        summary: 'Finish a two-factor sign-in with a code from the authenticator app or a recovery code',
        body: S.ChallengeBody,
        response: { 204: NoContent, ...errorResponses },
      },
      preValidation: async (request) => {
        const pending = request.session?.pendingUserId;
        if (pending === null || pending === undefined) return;
        await throttle(ctx.limiter, `two-factor|${pending}`, CHALLENGE_LIMIT, CHALLENGE_WINDOW_S);
      },
    },
    async (request, reply) => {
      const body = request.body;
      const session = request.session!;
      const userId = await accounts.passChallenge(session.pendingUserId, body.code, body.recovery_code);
      await sessions.signIn(request, reply, userId, session.pendingRemember);
      // The challenge completes the login, so it clears the failed-login counter as a direct login does.
      await accounts.clearLoginFailuresOf(userId, request.ip);
      return sendNoContent(reply);
    },
  );

  app.get(
    '/api/user',
    {
      config: { auth: true },
      schema: { tags, summary: 'The signed-in user (not wrapped)', response: { 200: UserSchema, ...errorResponses } },
    },
    async (request) => presentUser(currentUser(request), ctx.config.regulation),
  );

  app.post(
    '/api/register',
    {
      schema: {
        tags,
        summary: 'Create an account and sign in to it',
        body: S.RegisterBody,
        response: { 201: EmptyString, ...errorResponses },
      },
      preValidation: async (request) => {
        if (request.user !== null) throw new ConflictError('Already signed in.', 'already_signed_in');
      },
      // A taken e-mail is reported with the other fields' errors, not on a second submit.
      ...withDatabaseRules(S.RegisterBody, (body) => accounts.registrationConflicts(body)),
    },
    async (request, reply) => {
      const body = request.body;
      const ref = body.ref === undefined ? 0 : Number(body.ref);
      const userId = await accounts.register({ name: body.name, email: body.email, password: body.password, ref });
      await sessions.signIn(request, reply, userId, truthy(body.remember));
      return sendEmptyString(reply, 201);
    },
  );

  app.post(
    '/api/forgot-password',
    {
      schema: {
        tags,
        summary: 'E-mail a password reset link',
        body: S.ForgotPasswordBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      await resets.sendLink(request.body.email, request.locale);
      return localizedMessage(request, reply, RESET_MESSAGES.sent);
    },
  );

  app.post(
    '/api/reset-password',
    {
      schema: {
        tags,
        summary: 'Set a new password with the token of a reset link',
        body: S.ResetPasswordBody,
        response: { 200: MessageBody, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      await resets.reset({
        token: body.token,
        email: body.email,
        password: body.password,
        passwordConfirmation: body.password_confirmation,
      });
      return localizedMessage(request, reply, RESET_MESSAGES.reset);
    },
  );

  app.post(
    '/api/logout',
    {
      config: { auth: true },
      schema: { tags, summary: 'Sign out (forgets remembered devices)', response: { 204: NoContent, ...errorResponses } },
    },
    async (request, reply) => {
      const user = currentUser(request);
      await accounts.forgetRememberedDevices(user.id);
      sessions.clearRememberCookie(reply);
      await sessions.regenerate(request, reply, {});
      request.user = null;
      return sendNoContent(reply);
    },
  );

  app.get(
    '/api/user/confirmed-password-status',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Whether the password was confirmed recently enough in this session',
        querystring: S.ConfirmedStatusQuery,
        response: { 200: S.ConfirmedResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const at = request.session?.passwordConfirmedAt;
      const elapsed = at == null ? null : Math.floor((Date.now() - at.getTime()) / 1000);
      const limit = request.query.seconds ?? ctx.config.passwordTimeoutS;
      const confirmed = elapsed !== null && elapsed < limit;
      // Fortify sends the time elapsed since the confirmation, not the time left.
      if (confirmed) reply.header('x-retry-after', String(elapsed));
      return { confirmed };
    },
  );

  app.post(
    '/api/user/confirm-password',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Confirm the password before a sensitive change',
        body: S.ConfirmPasswordBody,
        response: { 201: EmptyString, ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = currentUser(request);
      if (!(await accounts.checkPassword(user.id, request.body.password))) {
        throw ValidationError.field('password', MESSAGES.wrongPassword);
      }
      await sessions.update(request, { passwordConfirmedAt: new Date() });
      return sendEmptyString(reply, 201);
    },
  );

  const twoFactor = { auth: true, confirmPassword: true };

  app.post(
    '/api/user/two-factor-authentication',
    {
      config: twoFactor,
      schema: {
        tags,
        summary: 'Turn two-factor authentication on (unconfirmed until a code is sent)',
        body: S.EnableTwoFactorBody,
        response: { 200: EmptyString, ...errorResponses },
      },
    },
    async (request, reply) => {
      await accounts.enableTwoFactor(currentUser(request).id, truthy(request.body.force));
      return sendEmptyString(reply);
    },
  );

  app.delete(
    '/api/user/two-factor-authentication',
    {
      config: twoFactor,
      schema: { tags, summary: 'Turn two-factor authentication off', response: { 200: EmptyString, ...errorResponses } },
    },
    async (request, reply) => {
      await accounts.disableTwoFactor(currentUser(request).id);
      return sendEmptyString(reply);
    },
  );

  app.get(
    '/api/user/two-factor-qr-code',
    {
      config: twoFactor,
      schema: {
        tags,
        summary: 'The QR code to scan into an authenticator app (SVG and its otpauth URL)',
        response: { 200: S.QrCodeResponse, ...errorResponses },
      },
    },
    async (request) => (await accounts.qrCode(currentUser(request).id)) ?? [],
  );

  app.get(
    '/api/user/two-factor-secret-key',
    {
      config: twoFactor,
      schema: { tags, summary: 'The two-factor secret key, to type in by hand', response: { 200: S.SecretKeyResponse, ...errorResponses } },
    },
    async (request) => {
      const secretKey = await accounts.secretKey(currentUser(request).id);
      if (secretKey === null) throw new NotFoundError('Two factor authentication has not been enabled.');
      return { secretKey };
    },
  );

  app.post(
    '/api/user/confirmed-two-factor-authentication',
    {
      config: twoFactor,
      schema: {
        tags,
        summary: 'Confirm two-factor authentication with a first code',
        body: S.ConfirmTwoFactorBody,
        response: { 200: EmptyString, ...errorResponses },
      },
    },
    async (request, reply) => {
      await accounts.confirmTwoFactor(currentUser(request).id, request.body.code);
      return sendEmptyString(reply);
    },
  );

  app.get(
    '/api/user/two-factor-recovery-codes',
    {
      config: twoFactor,
      schema: { tags, summary: 'The two-factor recovery codes', response: { 200: S.RecoveryCodesResponse, ...errorResponses } },
    },
    async (request) => accounts.recoveryCodes(currentUser(request).id),
  );

  app.post(
    '/api/user/two-factor-recovery-codes',
    {
      config: twoFactor,
      schema: { tags, summary: 'Replace the recovery codes with new ones', response: { 200: EmptyString, ...errorResponses } },
    },
    async (request, reply) => {
      await accounts.regenerateRecoveryCodes(currentUser(request).id);
      return sendEmptyString(reply);
    },
  );

  app.put(
    '/api/user/password',
    {
      config: { auth: true },
      schema: {
        tags,
        summary: 'Change the password (the current one is asked)',
        body: S.UpdatePasswordBody,
        response: { 200: EmptyString, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const user = currentUser(request);
      await accounts.changePassword(user.id, request.session!.id, {
        current: body.current_password,
        password: body.password,
        confirmation: body.password_confirmation,
      });
      // The old remember-me cookies were voided; this browser keeps one if it had one.
      if (request.cookies[REMEMBER_COOKIE] !== undefined) await sessions.issueRememberCookie(reply, user.id);
      return sendEmptyString(reply);
    },
  );

  app.put(
    '/api/user/profile-information',
    {
      config: { auth: true },
      schema: { tags, summary: 'Change the name and e-mail', body: S.UpdateProfileBody, response: { 200: EmptyString, ...errorResponses } },
    },
    async (request, reply) => {
      const body = request.body;
      await accounts.updateProfile(currentUser(request).id, body.name, body.email);
      return sendEmptyString(reply);
    },
  );
}
