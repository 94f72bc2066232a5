import { and, eq, gt, isNull, lt, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Identity } from '../auth/identity.ts';
import { sha256 } from '../crypto.ts';
import type { Db } from '../db/client.ts';
import type { LoadedSession, Session, SessionData, SessionEndRule, SessionStore } from './store.ts';
import { sessions } from './table.ts';

interface SessionRow {
  user_id: number | null;
  csrf_token: string;
  pending_user_id: number | null;
  pending_remember: boolean;
  pending_at: string | null;
  password_confirmed_at: string | null;
  persistent: boolean;
  ip: string | null;
  user_agent: string | null;
  last_activity: string;
  ends_at: string | null;
  signed_in_at: string | null;
  /** The active user as the identity's JSON, or null. */
  user: unknown;
}

const date = (value: string | null): Date | null => (value === null ? null : new Date(value));

/**
 * Every session-checked request runs this, so it is tuned (docs/benchmarks.md): a named prepared
 * statement, which PostgreSQL parses and plans once per connection instead of on each request
 * (planning costs several times running it), answering one JSON column, which the driver decodes
 * in a fraction of the time it takes to describe and convert twenty columns. The user comes from
 * the identity's own subquery, so this file knows nothing of the users tables.
 */
function prepareLoad(db: Db, identity: Identity) {
  const fields: Record<keyof SessionRow, SQL> = {
    user_id: sql`${sessions.userId}`,
    csrf_token: sql`${sessions.csrfToken}`,
    pending_user_id: sql`${sessions.pendingUserId}`,
    pending_remember: sql`${sessions.pendingRemember}`,
    pending_at: sql`${sessions.pendingAt}`,
    password_confirmed_at: sql`${sessions.passwordConfirmedAt}`,
    persistent: sql`${sessions.persistent}`,
    ip: sql`${sessions.ip}`,
    user_agent: sql`${sessions.userAgent}`,
    last_activity: sql`${sessions.lastActivity}`,
    ends_at: sql`${sessions.endsAt}`,
    signed_in_at: sql`${sessions.signedInAt}`,
    user: identity.activeUserJson(sql`${sessions.userId}`),
  };
  const pairs = Object.entries(fields).map(([name, value]) => sql`${sql.raw(`'${name}'`)}, ${value}`);
  return db
    .select({ row: sql<SessionRow>`json_build_object(${sql.join(pairs, sql`, `)})` })
    .from(sessions)
    .where(
      and(
        eq(sessions.idHash, sql.placeholder('idHash')),
        gt(sessions.lastActivity, sql`now() - make_interval(secs => ${sql.placeholder('idleSeconds')})`),
      ),
    )
    .prepare('session_load');
}

/** Sessions in the `sessions` table; the session and its user come back in one round trip. */
export class DbSessionStore implements SessionStore {
  readonly #db: Db;
  readonly #identity: Identity;
  readonly #load;
  readonly #touching = new Map<string, Promise<void>>();

  constructor(db: Db, identity: Identity) {
    this.#db = db;
    this.#identity = identity;
    this.#load = prepareLoad(db, identity);
  }

  async load(sessionId: string, idleSeconds: number): Promise<LoadedSession | null> {
    const [found] = await this.#load.execute({ idHash: sha256(sessionId), idleSeconds });
    const row = found?.row;
    if (row === undefined) return null;
    const session: Session = {
      id: sessionId,
      userId: row.user_id,
      csrfToken: row.csrf_token,
      pendingUserId: row.pending_user_id,
      pendingRemember: row.pending_remember,
      pendingAt: date(row.pending_at),
      passwordConfirmedAt: date(row.password_confirmed_at),
      persistent: row.persistent,
      ip: row.ip,
      userAgent: row.user_agent,
      lastActivity: new Date(row.last_activity),
      endsAt: date(row.ends_at),
      signedInAt: date(row.signed_in_at),
    };
    const user = row.user === null ? null : this.#identity.fromJson(row.user);
    // A session whose user was disabled or deleted is a guest session from now on.
    if (user === null) session.userId = null;
    return { session, user };
  }

  async create(sessionId: string, data: SessionData): Promise<Session> {
    const [row] = await this.#db
      .insert(sessions)
      .values({ idHash: sha256(sessionId), ...data })
      .returning({ lastActivity: sessions.lastActivity });
    return { id: sessionId, ...data, lastActivity: row!.lastActivity };
  }

  async update(sessionId: string, patch: Partial<SessionData>): Promise<void> {
    await this.#db
      .update(sessions)
      .set({ ...patch, lastActivity: sql`now()` })
      .where(eq(sessions.idHash, sha256(sessionId)));
  }

  async touch(sessionId: string): Promise<void> {
    // Every request of a busy session sees the same stale clock until the first touch commits;
    // they share that one UPDATE instead of queueing one each on the row lock.
    const idHash = sha256(sessionId);
    const pending = this.#touching.get(idHash);
    if (pending !== undefined) return pending;
    const touching = this.#db
      .update(sessions)
      .set({ lastActivity: sql`now()` })
      .where(eq(sessions.idHash, idHash))
      .then(() => undefined)
      .finally(() => this.#touching.delete(idHash));
    this.#touching.set(idHash, touching);
    return touching;
  }

  async destroy(sessionId: string): Promise<void> {
    await this.#db.delete(sessions).where(eq(sessions.idHash, sha256(sessionId)));
  }

  async destroyForUser(userId: number, exceptId?: string): Promise<void> {
    // A login half-way through its two-factor challenge belongs to the user too.
    const own = or(eq(sessions.userId, userId), eq(sessions.pendingUserId, userId))!;
    await this.#db.delete(sessions).where(exceptId === undefined ? own : and(own, ne(sessions.idHash, sha256(exceptId))));
  }

  async shortenForUser(userId: number, endOf: SessionEndRule): Promise<void> {
    const held = await this.#db
      .select({ idHash: sessions.idHash, signedInAt: sessions.signedInAt, endsAt: sessions.endsAt })
      .from(sessions)
      .where(eq(sessions.userId, userId));
    for (const session of held) {
      const end = endOf(session.signedInAt);
      if (end === null || (session.endsAt !== null && session.endsAt <= end)) continue;
      // The condition again in the statement: a concurrent change of the limit may have ended it earlier.
      await this.#db
        .update(sessions)
        .set({ endsAt: end })
        .where(and(eq(sessions.idHash, session.idHash), or(isNull(sessions.endsAt), gt(sessions.endsAt, end))));
    }
  }

  async prune(idleSeconds: number): Promise<number> {
    const deleted = await this.#db
      .delete(sessions)
      .where(lt(sessions.lastActivity, sql`now() - make_interval(secs => ${idleSeconds})`))
      .returning({ idHash: sessions.idHash });
    return deleted.length;
  }
}
