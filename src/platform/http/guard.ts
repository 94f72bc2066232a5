import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSuperAdmin, type AuthUser } from '../auth/identity.ts';
import type { AppContext } from '../context.ts';
import { safeEqual } from '../crypto.ts';
import {
  CsrfMismatchError,
  EmailNotVerifiedError,
  IdentityNotVerifiedError,
  ForbiddenError,
  NotFoundError,
  PasswordConfirmationRequiredError,
  TwoFactorRequiredError,
  UnauthenticatedError,
} from '../errors.ts';
import type { Db } from '../db/client.ts';
import type { Session } from '../session/store.ts';
import { logUserOf } from './request-log.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Machine callers (webhooks, provider callbacks, health): no cookies, no session, no CSRF. */
    stateless?: boolean;
    /**
     * A stateless route whose caller signs each request: which signature (the OpenAPI security
     * scheme, src/platform/http/openapi.ts). The route's service checks it; the guard does not.
     */
    signedBy?: 'gateway' | 'provider' | 'hub88';
    /** A signed-in user is required (401 otherwise). */
    auth?: boolean;
    /** A permission such as `users.manage` is required (401 for guests, 403 without it). */
    permission?: string;
    /**
     * With EMAIL_VERIFICATION=on, the user's e-mail must be verified (403 "Your email address is
     * not verified." otherwise, where Laravel's `verified` middleware sits: after sign-in, before
     * the route's throttle). Money routes declare it; off, it changes nothing. With
     * REGULATION=br it also waits for a verified identity (403 "Verify your identity before you
     * deposit, play or withdraw.", docs/api.md section 14).
     */
    verified?: boolean;
    /** The session must have confirmed the password within PASSWORD_TIMEOUT_S (423 otherwise). */
    confirmPassword?: boolean;
    /**
     * The record the path names (parameter `param`, an id), looked up after the access checks and
     * before the body is validated: a missing one is a 404 whatever the body (docs/api.md section 3).
     */
    pathRecord?: { param: string; exists(db: Db, id: number): Promise<boolean> };
    /**
     * A machine caller that posts a bare JSON array: the body is read as `{[arrayBodyAs]: array}`
     * (elsewhere a bare array is no input at all, as Laravel reads it; src/platform/input.ts).
     */
    arrayBodyAs?: string;
  }
  interface FastifyRequest {
    session: Session | null;
    user: AuthUser | null;
  }
}

/** The administration's paths: each needs a permission, and under ADMIN_TWO_FACTOR=required a confirmed two-factor. */
const ADMIN_PATH = /^\/api\/admin(\/|$)/;

/** Methods that change nothing, so need no CSRF token. */
export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function submittedToken(request: FastifyRequest): string | undefined {
  const body = request.body as { _token?: unknown } | undefined;
  if (typeof body?._token === 'string') return body._token;
  const header = request.headers['x-csrf-token'] ?? request.headers['x-xsrf-token'];
  return typeof header === 'string' ? header : undefined;
}

/** The signed-in user, for handlers of routes declared with `auth` or `permission`. */
export function currentUser(request: FastifyRequest): AuthUser {
  if (request.user === null) throw new UnauthenticatedError();
  return request.user;
}

export async function hasPermission(ctx: AppContext, user: AuthUser, permission: string): Promise<boolean> {
  if (isSuperAdmin(user)) return true;
  return (await ctx.identity.permissionsOf(ctx.db, user.id)).has(permission);
}

export function passwordRecentlyConfirmed(ctx: AppContext, session: Session | null): boolean {
  const at = session?.passwordConfirmedAt;
  return at != null && Date.now() - at.getTime() <= ctx.config.passwordTimeoutS * 1000;
}

/**
 * The checks after the session is known, in the order of docs/api.md section 3; a promise only when one must
 * wait (a permission, the record in the path).
 */
function checkAccess(ctx: AppContext, request: FastifyRequest): Promise<void> | undefined {
  const config = request.routeOptions.config;
  // Routes of plugins registered before the guard (the /docs pages) lack the decorator: undefined, not null.
  if (request.user) logUserOf(request, request.user.id);
  if (!SAFE_METHODS.has(request.method)) {
    const token = submittedToken(request);
    if (request.session === null || token === undefined || !safeEqual(token, request.session.csrfToken)) {
      throw new CsrfMismatchError();
    }
  }
  if (config.auth !== true && config.permission === undefined) return undefined;
  const user = request.user;
  if (user === null) throw new UnauthenticatedError();
  if (config.verified === true) {
    if (user.emailVerifiedAt === null && ctx.config.emailVerification) throw new EmailNotVerifiedError();
    // The status travels with the cached user; every identity change calls sessions.userChanged.
    if (user.identityStatus !== 'verified' && ctx.config.regulation === 'br') throw new IdentityNotVerifiedError();
  }
  if (config.permission === undefined && config.pathRecord === undefined) {
    if (config.confirmPassword === true && !passwordRecentlyConfirmed(ctx, request.session)) {
      throw new PasswordConfirmationRequiredError();
    }
    return undefined;
  }
  return permissionAndRecord(ctx, request, user);
}

async function permissionAndRecord(ctx: AppContext, request: FastifyRequest, user: AuthUser): Promise<void> {
  const config = request.routeOptions.config;
  if (config.permission !== undefined && !(await hasPermission(ctx, user, config.permission))) {
    throw new ForbiddenError();
  }
  // Staff, since they hold the route's permission; the account routes (/api/user, two-factor
  // set-up) are not admin paths, so they stay open to set it up. The flag travels with the cached
  // user, and confirming two-factor calls sessions.userChanged.
  if (ctx.config.adminTwoFactor === 'required' && !user.twoFactorEnabled && ADMIN_PATH.test(request.routeOptions.url ?? '')) {
    throw new TwoFactorRequiredError();
  }
  if (config.confirmPassword === true && !passwordRecentlyConfirmed(ctx, request.session)) {
    throw new PasswordConfirmationRequiredError();
  }
  const record = config.pathRecord;
  if (record !== undefined) {
    const raw = (request.params as Record<string, unknown>)[record.param];
    const id = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(id) || !(await record.exists(ctx.db, id))) throw new NotFoundError();
  }
}

/**
 * Session, CSRF and access checks, in the order of docs/api.md section 3: CSRF (419) → signed in (401) →
 * verified e-mail and permission (403) → password confirmation (423) → the record in the path (404). It runs after
 * the body is parsed (so 400/413 win) and before schema validation (so 422 loses).
 */
export function registerGuard(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('session', null);
  app.decorateRequest('user', null);
  // Every admin route is behind a permission: one forgotten is a start-up error, not an open door.
  app.addHook('onRoute', (route) => {
    if (ADMIN_PATH.test(route.url) && route.config?.permission === undefined) {
      throw new Error(`${String(route.method)} ${route.url} is an admin route without a permission.`);
    }
  });
  // A plain function, not an async one: a signed-in request whose session is cached passes every
  // check without a promise (most requests); only a load or a permission lookup waits. It either
  // calls `done` or returns a promise, never both (Fastify's hook runner takes either).
  app.addHook('preValidation', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    const config = request.routeOptions.config;
    // An unknown path or method is answered (404/405) before any session or CSRF work, as routing does in Laravel.
    if (config.stateless === true || request.is404) return done();
    if (!ctx.sessions.resolveKept(request)) return ctx.sessions.resolve(request, reply).then(() => checkAccess(ctx, request));
    const pending = checkAccess(ctx, request);
    return pending === undefined ? done() : pending;
  });
}
