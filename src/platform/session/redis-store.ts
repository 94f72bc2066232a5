import type { Redis } from 'ioredis';
import type { Identity } from '../auth/identity.ts';
import { sha256 } from '../crypto.ts';
import type { Db } from '../db/client.ts';
import type { LoadedSession, Session, SessionData, SessionEndRule, SessionStore } from './store.ts';

const SESSION = 'croupier:session:';
const USER_SESSIONS = 'croupier:user-sessions:';

interface Stored extends Omit<SessionData, 'pendingAt' | 'passwordConfirmedAt' | 'endsAt' | 'signedInAt'> {
  pendingAt: string | null;
  /** Absent in sessions stored before the field existed. */
  endsAt?: string | null;
  /** Absent in sessions stored before the field existed: their sign-in is not known. */
  signedInAt?: string | null;
  passwordConfirmedAt: string | null;
  lastActivity: string;
}

function revive(id: string, stored: Stored): Session {
  return {
    ...stored,
    id,
    pendingAt: stored.pendingAt === null ? null : new Date(stored.pendingAt),
    passwordConfirmedAt: stored.passwordConfirmedAt === null ? null : new Date(stored.passwordConfirmedAt),
    lastActivity: new Date(stored.lastActivity),
    endsAt: stored.endsAt == null ? null : new Date(stored.endsAt),
    signedInAt: stored.signedInAt == null ? null : new Date(stored.signedInAt),
  };
}

function freeze(data: SessionData, lastActivity: Date): Stored {
  return {
    userId: data.userId,
    csrfToken: data.csrfToken,
    pendingUserId: data.pendingUserId,
    pendingRemember: data.pendingRemember,
    pendingAt: data.pendingAt?.toISOString() ?? null,
    passwordConfirmedAt: data.passwordConfirmedAt?.toISOString() ?? null,
    persistent: data.persistent,
    ip: data.ip,
    userAgent: data.userAgent,
    lastActivity: lastActivity.toISOString(),
    endsAt: data.endsAt?.toISOString() ?? null,
    signedInAt: data.signedInAt?.toISOString() ?? null,
  };
}

/**
 * Writes a session only if it is still what was read (ARGV[1]), so two writers of one session (a
 * touch and a shortened end) never undo each other: 0 when it changed meanwhile. ARGV[2] is the
 * new value, ARGV[3] the idle lifetime in seconds (the key's own TTL is kept when empty: a change
 * that is not the user's activity does not move the idle clock), ARGV[4] the session's digest for
 * the sets of its owners, KEYS[2…].
 */
const WRITE_IF_UNCHANGED = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
else
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  for i = 2, #KEYS do
    redis.call('SADD', KEYS[i], ARGV[4])
    redis.call('EXPIRE', KEYS[i], ARGV[3])
  end
end
return 1`;
/** A session is written by a few requests at most at once; this many lost races in a row is a fault. */
const WRITE_TRIES = 10;

/**
 * Sessions in Redis (REDIS_URL), for several instances without a sessions table. Keys expire
 * with the idle lifetime; a set per user lets a password change end the user's other sessions.
 * The user is still read from the database, so disabling or deleting a user takes effect at once.
 */
export class RedisSessionStore implements SessionStore {
  readonly #redis: Redis;
  readonly #db: Db;
  readonly #identity: Identity;
  readonly #ttlSeconds: number;

  constructor(redis: Redis, db: Db, identity: Identity, idleSeconds: number) {
    this.#redis = redis;
    this.#db = db;
    this.#identity = identity;
    this.#ttlSeconds = idleSeconds;
  }

  async load(id: string, idleSeconds: number): Promise<LoadedSession | null> {
    const raw = await this.#redis.get(SESSION + sha256(id));
    if (raw === null) return null;
    const session = revive(id, JSON.parse(raw) as Stored);
    if (Date.now() - session.lastActivity.getTime() >= idleSeconds * 1000) return null;
    const user = session.userId === null ? undefined : await this.#identity.findActive(this.#db, session.userId);
    if (user === undefined) {
      session.userId = null;
      return { session, user: null };
    }
    return { session, user };
  }

  async create(id: string, data: SessionData): Promise<Session> {
    const now = new Date();
    await this.#write(sha256(id), freeze(data, now));
    return { ...data, id, lastActivity: now };
  }

  async update(id: string, patch: Partial<SessionData>): Promise<void> {
    await this.#change(sha256(id), (current) => ({ data: { ...current, ...patch }, active: true }));
  }

  async touch(id: string): Promise<void> {
    await this.update(id, {});
  }

  async destroy(id: string): Promise<void> {
    await this.#redis.del(SESSION + sha256(id));
  }

  async destroyForUser(userId: number, exceptId?: string): Promise<void> {
    const keep = exceptId === undefined ? undefined : sha256(exceptId);
    const hashes = (await this.#redis.smembers(USER_SESSIONS + userId)).filter((hash) => hash !== keep);
    if (hashes.length === 0) return;
    await this.#redis
      .multi()
      .del(...hashes.map((hash) => SESSION + hash))
      .srem(USER_SESSIONS + userId, ...hashes)
      .exec();
  }

  async shortenForUser(userId: number, endOf: SessionEndRule): Promise<void> {
    for (const hash of await this.#redis.smembers(USER_SESSIONS + userId)) {
      await this.#change(hash, (current) => {
        // The set also lists logins half-way through their challenge, and sessions since signed out.
        if (current.userId !== userId) return undefined;
        const end = endOf(current.signedInAt);
        if (end === null || (current.endsAt !== null && current.endsAt <= end)) return undefined;
        return { data: { ...current, endsAt: end }, active: false };
      });
    }
  }

  /** Redis expires idle sessions itself. */
  async prune(): Promise<number> {
    return 0;
  }

  /**
   * Read, change, write unless it changed meanwhile (then again). `change` answers the new data,
   * and whether it is the user's activity (which moves the idle clock and the key's lifetime), or
   * undefined to leave the session as it is.
   */
  async #change(hash: string, change: (current: Session) => { data: SessionData; active: boolean } | undefined): Promise<void> {
    for (let tries = 1; ; tries++) {
      const raw = await this.#redis.get(SESSION + hash);
      if (raw === null) return;
      const current = revive('', JSON.parse(raw) as Stored);
      const next = change(current);
      if (next === undefined) return;
      const stored = freeze(next.data, next.active ? new Date() : current.lastActivity);
      const owners = next.active ? [...new Set([stored.userId, stored.pendingUserId])].filter((owner) => owner !== null) : [];
      const written = await this.#redis.eval(
        WRITE_IF_UNCHANGED,
        1 + owners.length,
        SESSION + hash,
        ...owners.map((owner) => USER_SESSIONS + owner),
        raw,
        JSON.stringify(stored),
        next.active ? String(this.#ttlSeconds) : '',
        hash,
      );
      if (written === 1) return;
      if (tries === WRITE_TRIES) throw new Error(`A session changed under ${WRITE_TRIES} writes in a row.`);
    }
  }

  async #write(hash: string, stored: Stored): Promise<void> {
    const pipeline = this.#redis.multi().set(SESSION + hash, JSON.stringify(stored), 'EX', this.#ttlSeconds);
    // A login half-way through its two-factor challenge is listed under its user too, so a
    // password change or reset ends it.
    for (const owner of new Set([stored.userId, stored.pendingUserId])) {
      if (owner !== null) pipeline.sadd(USER_SESSIONS + owner, hash).expire(USER_SESSIONS + owner, this.#ttlSeconds);
    }
    await pipeline.exec();
  }
}
