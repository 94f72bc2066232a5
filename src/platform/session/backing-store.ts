import type { Redis } from 'ioredis';
import type { Identity } from '../auth/identity.ts';
import type { Db } from '../db/client.ts';
import { DbSessionStore } from './db-store.ts';
import { RedisSessionStore } from './redis-store.ts';
import type { SessionStore } from './store.ts';

/**
 * Where sessions live: Redis when REDIS_URL gives one (keys expire after `idleSeconds`), the
 * sessions table otherwise. The servers and the commands that end sessions beside them
 * (`croupier admin:create`) must choose alike.
 */
export function backingSessionStore(db: Db, identity: Identity, redis: Redis | undefined, idleSeconds: number): SessionStore {
  return redis === undefined ? new DbSessionStore(db, identity) : new RedisSessionStore(redis, db, identity, idleSeconds);
}
