import type { AuthUser } from '../auth/identity.ts';

export interface SessionData {
  userId: number | null;
  csrfToken: string;
  pendingUserId: number | null;
  pendingRemember: boolean;
  pendingAt: Date | null;
  passwordConfirmedAt: Date | null;
  /** Remember-me sessions get a persistent cookie (30 days) instead of a browser-session one. */
  persistent: boolean;
  ip: string | null;
  userAgent: string | null;
  /**
   * When the session ends whatever its activity (REGULATION=br: `session_minutes` after sign-in,
   * docs/api.md section 14); null: only the idle lifetime ends it.
   */
  endsAt: Date | null;
  /**
   * When the user signed in on this session (the app's clock); null for a guest session. A time
   * limit that comes into force later counts from it.
   */
  signedInAt: Date | null;
}

/** When a session signed in at `signedInAt` (null: not known) must end; null: it need not. */
export type SessionEndRule = (signedInAt: Date | null) => Date | null;

export interface Session extends SessionData {
  /** The plain id; only the cookie and this object ever hold it. */
  id: string;
  lastActivity: Date;
}

export interface LoadedSession {
  session: Session;
  /** The signed-in, active user, or null for a guest session. */
  user: AuthUser | null;
}

/**
 * Server-side session storage. The database store is the default; a Redis store can implement
 * the same interface without the rest of the code noticing.
 */
export interface SessionStore {
  /** A live session (idle for less than `idleSeconds`) with its user, or null. */
  load(id: string, idleSeconds: number): Promise<LoadedSession | null>;
  /** What `load` would answer, when a store can tell without waiting (a cache hit); undefined otherwise. */
  peek?(id: string, idleSeconds: number): LoadedSession | null | undefined;
  create(id: string, data: SessionData): Promise<Session>;
  update(id: string, patch: Partial<SessionData>): Promise<void>;
  touch(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  /** Ends every session of a user, except the one given. */
  destroyForUser(userId: number, exceptId?: string): Promise<void>;
  prune(idleSeconds: number): Promise<number>;
  /**
   * Brings the end of each signed-in session of the user forward to what `endOf` answers for its
   * sign-in; an end is never moved later, and nothing else of the session changes (nor its idle clock).
   */
  shortenForUser(userId: number, endOf: SessionEndRule): Promise<void>;
}
