import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import { logUserOf } from '../http/request-log.ts';
import { systemClock, type Clock } from '../clock.ts';
import { randomAlphanumeric } from '../crypto.ts';
import { REMEMBER_COOKIE, REMEMBER_MAX_AGE_S, type RememberTokens } from './remember.ts';
import type { CachedSessionStore } from './cached-store.ts';
import type { Session, SessionData, SessionEndRule } from './store.ts';

export const XSRF_COOKIE = 'XSRF-TOKEN';
const PERSISTENT_MAX_AGE_S = 30 * 24 * 60 * 60;
/**
 * Writing the session on every request would cost a write per read, so its idle clock is moved
 * at most once a minute, or every tenth of the lifetime when that is shorter: an active session
 * then never expires, and an idle one ends within a tenth of its lifetime of the exact moment.
 */
const TOUCH_INTERVAL_MS = 60_000;

function blankSession(request: FastifyRequest): SessionData {
  return {
    userId: null,
    csrfToken: randomAlphanumeric(40),
    pendingUserId: null,
    pendingRemember: false,
    pendingAt: null,
    passwordConfirmedAt: null,
    persistent: false,
    ip: request.ip,
    userAgent: request.headers['user-agent']?.slice(0, 500) ?? null,
    endsAt: null,
    signedInAt: null,
  };
}

/** Session lifecycle and its cookies (docs/api.md section 2). */
export class SessionManager {
  readonly #store: CachedSessionStore;
  readonly #remember: RememberTokens;
  readonly #config: Config;
  /** The time of sign-ins and of sessions' ends (tests move it); idle lifetimes are the stores' own. */
  readonly #clock: Clock;
  /**
   * When a session of `userId` signed in at `signedInAt` must end whatever its activity (null:
   * never), set by app.ts (REGULATION=br: the player's `session_minutes`); platform code knows no limits.
   */
  sessionEnd: ((userId: number, signedInAt: Date) => Promise<Date | null>) | undefined;
  /** What ends with a signed-in session found past its end (its game sessions), set by app.ts. */
  sessionEnded: ((session: Session & { userId: number }) => Promise<void>) | undefined;

  constructor(store: CachedSessionStore, remember: RememberTokens, config: Config, clock: Clock = systemClock) {
    this.#store = store;
    this.#remember = remember;
    this.#config = config;
    this.#clock = clock;
  }

  /** Milliseconds until the session's fixed end (session_minutes), 0 once past; null when it has none. */
  timeLeft(session: Pick<Session, 'endsAt'>): number | null {
    return session.endsAt === null ? null : Math.max(0, session.endsAt.getTime() - this.#clock.now().getTime());
  }

  #ended(session: Session): boolean {
    return this.timeLeft(session) === 0;
  }

  /**
   * A time limit came into force (REGULATION=br: session_minutes set or lowered): every signed-in
   * session of the user, on every instance, ends by what `endOf` answers for its sign-in.
   */
  shortenSessions(userId: number, endOf: SessionEndRule): Promise<void> {
    return this.#store.shortenForUser(userId, endOf);
  }

  get store(): CachedSessionStore {
    return this.#store;
  }

  /**
   * Call once a change to a user is committed (status, password, name, e-mail, roles,
   * two-factor): every instance reads their sessions afresh. Without an id: every user.
   */
  userChanged(userId?: number): Promise<void> {
    return this.#store.forgetUser(userId);
  }

  get remember(): RememberTokens {
    return this.#remember;
  }

  get idleSeconds(): number {
    return this.#config.sessionLifetimeMin * 60;
  }

  /** Drops sessions idle for longer than the lifetime (housekeeping). */
  prune(): Promise<number> {
    return this.#store.prune(this.idleSeconds);
  }

  /**
   * `resolve` without waiting, when the store can answer at once (a cached session that needs no
   * touch, or no session cookie) and nothing needs reviving; false leaves the request untouched
   * for `resolve`.
   */
  resolveKept(request: FastifyRequest): boolean {
    const id = request.cookies[this.#config.sessionCookie];
    const revivable = request.cookies[REMEMBER_COOKIE] !== undefined;
    if (id === undefined || id.length !== 40) return !revivable;
    const loaded = this.#store.peek?.(id, this.idleSeconds);
    if (loaded === undefined) return false;
    if (loaded === null) return !revivable;
    if (this.#needsTouch(loaded.session) || this.#ended(loaded.session)) return false;
    request.session = loaded.session;
    request.user = loaded.user;
    return true;
  }

  #needsTouch(session: Session): boolean {
    return Date.now() - session.lastActivity.getTime() > Math.min(TOUCH_INTERVAL_MS, this.idleSeconds * 100);
  }

  /** Loads the request's session and user; a remember-me cookie revives an expired sign-in. */
  async resolve(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = request.cookies[this.#config.sessionCookie];
    let loaded = id === undefined || id.length !== 40 ? null : await this.#store.load(id, this.idleSeconds);
    if (loaded !== null && this.#ended(loaded.session)) {
      // Past its end (session_minutes): gone, as an idle one is, with its game sessions; the player signs in again.
      const { session } = loaded;
      if (session.userId !== null) await this.sessionEnded?.({ ...session, userId: session.userId });
      await this.#store.destroy(session.id);
      loaded = null;
    }
    if (loaded !== null) {
      request.session = loaded.session;
      request.user = loaded.user;
      if (this.#needsTouch(loaded.session)) {
        await this.#store.touch(loaded.session.id);
        if (loaded.session.persistent) this.writeCookies(reply, loaded.session);
      }
    }
    if (request.user === null) await this.#revive(request, reply);
  }

  async #revive(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const cookie = request.cookies[REMEMBER_COOKIE];
    if (cookie === undefined) return;
    const userId = await this.#remember.verify(cookie);
    // A player with a session time is not signed in again by a cookie: the time would restart.
    if (userId === null || (this.sessionEnd !== undefined && (await this.sessionEnd(userId, this.#clock.now())) !== null)) {
      this.clearRememberCookie(reply);
      return;
    }
    // The user chose to be remembered, so the revived session keeps a persistent cookie too.
    await this.regenerate(request, reply, { userId, persistent: true });
    const loaded = await this.#store.load(request.session!.id, this.idleSeconds);
    request.user = loaded?.user ?? null;
  }

  /** The request's session, created (with its cookies) when there is none. */
  async ensure(request: FastifyRequest, reply: FastifyReply): Promise<Session> {
    if (request.session !== null) {
      this.writeCookies(reply, request.session);
      return request.session;
    }
    const session = await this.#store.create(randomAlphanumeric(40), blankSession(request));
    request.session = session;
    this.writeCookies(reply, session);
    return session;
  }

  /**
   * A new session id and CSRF token; the old session is destroyed (no fixation). `data` is what
   * the new session holds; everything else starts blank.
   */
  async regenerate(request: FastifyRequest, reply: FastifyReply, data: Partial<SessionData>): Promise<Session> {
    if (request.session !== null) await this.#store.destroy(request.session.id);
    // A session that holds a user is a sign-in: its time is known, as a later time limit counts from it.
    const signedIn = data.userId != null ? { signedInAt: data.signedInAt ?? this.#clock.now() } : {};
    const session = await this.#store.create(randomAlphanumeric(40), { ...blankSession(request), ...data, ...signedIn });
    request.session = session;
    // Signing in: the rest of this request's log names the user.
    if (data.userId != null) logUserOf(request, data.userId);
    this.writeCookies(reply, session);
    return session;
  }

  async update(request: FastifyRequest, patch: Partial<SessionData>): Promise<void> {
    const session = request.session;
    if (session === null) throw new Error('No session to update.');
    await this.#store.update(session.id, patch);
    Object.assign(session, patch);
  }

  /** Signs the user in on a fresh session, with a remember-me cookie when asked. */
  async signIn(request: FastifyRequest, reply: FastifyReply, userId: number, remember: boolean): Promise<Session> {
    const signedInAt = this.#clock.now();
    const endsAt = (await this.sessionEnd?.(userId, signedInAt)) ?? null;
    const session = await this.regenerate(request, reply, { userId, persistent: remember, endsAt, signedInAt });
    if (remember) await this.issueRememberCookie(reply, userId);
    return session;
  }

  async issueRememberCookie(reply: FastifyReply, userId: number): Promise<void> {
    reply.setCookie(REMEMBER_COOKIE, await this.#remember.issue(userId), {
      ...this.#cookieBase(),
      httpOnly: true,
      maxAge: REMEMBER_MAX_AGE_S,
    });
  }

  writeCookies(reply: FastifyReply, session: Session): void {
    const base = { ...this.#cookieBase(), ...(session.persistent ? { maxAge: PERSISTENT_MAX_AGE_S } : {}) };
    reply.setCookie(this.#config.sessionCookie, session.id, { ...base, httpOnly: true });
    reply.setCookie(XSRF_COOKIE, session.csrfToken, { ...base, httpOnly: false });
  }

  clearRememberCookie(reply: FastifyReply): void {
    reply.clearCookie(REMEMBER_COOKIE, { ...this.#cookieBase(), httpOnly: true });
  }

  #cookieBase() {
    return {
      path: '/',
      sameSite: 'lax' as const,
      secure: this.#config.secureCookies,
      ...(this.#config.sessionDomain === undefined ? {} : { domain: this.#config.sessionDomain }),
    };
  }
}
