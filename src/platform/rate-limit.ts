import { sql } from 'drizzle-orm';
import { one, rows, type Db } from './db/client.ts';
import { TooManyAttemptsError } from './errors.ts';

export interface RateLimitState {
  hits: number;
  /** Seconds until the window ends. */
  retryAfter: number;
}

/** Fixed-window counters shared by every instance: the database by default, Redis when configured. */
export interface RateLimiter {
  hit(key: string, windowSeconds: number): Promise<RateLimitState>;
  /** The live count, or null when the window is over. */
  peek(key: string): Promise<RateLimitState | null>;
  clear(key: string): Promise<void>;
  /** Drops finished windows; answers how many. */
  prune(): Promise<number>;
}

/** Counts one try under `key`; past `limit` in the window, a 429 with Retry-After. */
export async function throttle(limiter: RateLimiter, key: string, limit: number, windowSeconds: number): Promise<void> {
  const state = await limiter.hit(key, windowSeconds);
  if (state.hits > limit) throw new TooManyAttemptsError(state.retryAfter);
}

/**
 * Fixed-window counters in the database, so every instance sees the same count. The window
 * starts at the first hit and all hits expire together, like Laravel's limiter.
 */
export class DbRateLimiter implements RateLimiter {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async hit(key: string, windowSeconds: number): Promise<RateLimitState> {
    const row = await one<{ hits: number; retry_after: number }>(
      this.#db,
      sql`insert into rate_limits as r (key, hits, reset_at)
        values (${key}, 1, now() + make_interval(secs => ${windowSeconds}))
        on conflict (key) do update set
          hits = case when r.reset_at <= now() then 1 else r.hits + 1 end,
          reset_at = case when r.reset_at <= now() then excluded.reset_at else r.reset_at end
        returning hits, ceil(extract(epoch from reset_at - now()))::int as retry_after`,
    );
    return { hits: row!.hits, retryAfter: Math.max(1, row!.retry_after) };
  }

  async peek(key: string): Promise<RateLimitState | null> {
    const row = await one<{ hits: number; retry_after: number }>(
      this.#db,
      sql`select hits, ceil(extract(epoch from reset_at - now()))::int as retry_after
        from rate_limits where key = ${key} and reset_at > now()`,
    );
    return row === undefined ? null : { hits: row.hits, retryAfter: Math.max(1, row.retry_after) };
  }

  async clear(key: string): Promise<void> {
    await this.#db.execute(sql`delete from rate_limits where key = ${key}`);
  }

  async prune(): Promise<number> {
    const gone = await rows(this.#db, sql`delete from rate_limits where reset_at < now() returning key`);
    return gone.length;
  }
}
