import type { Redis } from 'ioredis';
import type { Identity } from '../auth/identity.ts';
import { sha256 } from '../crypto.ts';
import type { Db } from '../db/client.ts';
import type { LoadedSession, Session, SessionData, SessionStore } from './store.ts';

const SESSION = 'croupier:session:';
const USER_SESSIONS = 'croupier:user-sessions:';

interface Stored extends Omit<SessionData, 'pendingAt' | 'passwordConfirmedAt' | 'endsAt'> {
  pendingAt: string | null;
  /** Absent in sessions stored before the field existed. */
  endsAt?: string | null;
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
  };
}

function freeze(data: SessionData, lastActivity: Date): Stored {
  return {
    ...data,
    pendingAt: data.pendingAt?.toISOString() ?? null,
    passwordConfirmedAt: data.passwordConfirmedAt?.toISOString() ?? null,
    lastActivity: lastActivity.toISOString(),
    endsAt: data.endsAt?.toISOString() ?? null,
  };
}

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
    const hash = sha256(id);
    const raw = await this.#redis.get(SESSION + hash);
    if (raw === null) return;
    const current = revive(id, JSON.parse(raw) as Stored);
    await this.#write(hash, freeze({ ...current, ...patch }, new Date()));
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

  /** Redis expires idle sessions itself. */
  async prune(): Promise<number> {
    return 0;
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
