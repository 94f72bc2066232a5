import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Identity } from './auth/identity.ts';
import type { InvalidationBus } from './cache/invalidation.ts';
import type { Keyring } from './crypto.ts';
import type { Database, Db } from './db/client.ts';
import type { Mailer } from './mail/mailer.ts';
import type { MoneyEvents } from './metrics/money.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { SessionManager } from './session/manager.ts';

/**
 * Runs inside the registration transaction, after the user row exists; other modules (referral
 * rewards) hook in here without the account code knowing them. A hook may answer a function to
 * run once the registration committed (never if it rolled back), e.g. to count a ledger line.
 */
export type RegistrationHook = (tx: Db, user: { id: number; ref: number | null }) => Promise<void | (() => void)>;

/** The long-lived services of one running app, built once in app.ts and handed to routes. */
export interface AppContext {
  config: Config;
  database: Database;
  db: Db;
  keys: Keyring;
  /** Users as the platform knows them (sessions, guard, admin convention); implemented by the users module. */
  identity: Identity;
  sessions: SessionManager;
  mailer: Mailer;
  limiter: RateLimiter;
  /** REDIS_URL's connection (sessions, rate limits), which /ready checks; undefined without Redis. */
  redis: Redis | undefined;
  /** Tells in-process caches, here and on other instances (Redis), what a change made stale. */
  invalidation: InvalidationBus;
  registrationHooks: RegistrationHook[];
  /** Counts committed money movements for the metrics (a no-op when metrics are off). */
  money: MoneyEvents;
}
