import { Redis } from 'ioredis';
import type { RateLimiter, RateLimitState } from './rate-limit.ts';

export function connectRedis(url: string): Redis {
  // Commands wait for the connection instead of failing while Redis restarts.
  return new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
}

const PREFIX = 'croupier:rate:';

/** The same fixed windows as the database limiter, in Redis: INCR, and EXPIRE set by the first hit. */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: Redis;

  constructor(redis: Redis) {
    this.#redis = redis;
  }

  async hit(key: string, windowSeconds: number): Promise<RateLimitState> {
    const results = await this.#redis
      .multi()
      .incr(PREFIX + key)
      .expire(PREFIX + key, windowSeconds, 'NX')
      .ttl(PREFIX + key)
      .exec();
    const hits = Number(results?.[0]?.[1] ?? 1);
    const ttl = Number(results?.[2]?.[1] ?? windowSeconds);
    return { hits, retryAfter: Math.max(1, ttl) };
  }

  async peek(key: string): Promise<RateLimitState | null> {
    const results = await this.#redis
      .multi()
      .get(PREFIX + key)
      .ttl(PREFIX + key)
      .exec();
    const value = results?.[0]?.[1] as string | null | undefined;
    if (value === null || value === undefined) return null;
    return { hits: Number(value), retryAfter: Math.max(1, Number(results?.[1]?.[1] ?? 1)) };
  }

  async clear(key: string): Promise<void> {
    await this.#redis.del(PREFIX + key);
  }

  /** Redis expires finished windows itself. */
  async prune(): Promise<number> {
    return 0;
  }
}
