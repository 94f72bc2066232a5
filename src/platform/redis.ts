import type { FastifyBaseLogger } from 'fastify';
import { Redis, type RedisOptions } from 'ioredis';
import { loggableError } from './log-safety.ts';
import type { RateLimiter, RateLimitState } from './rate-limit.ts';

/**
 * How a connection behaves when Redis goes away (docs/production.md, "A Redis outage"): no
 * request waits for a Redis that is not there. Commands fail at once while the connection is
 * down, and the error handler answers them 503 as it does a lost database.
 */
const OPTIONS: RedisOptions = {
  // Queued only until the first connection (connectRedis): a command sent at start waits for it.
  enableOfflineQueue: true,
  // A command in flight when the connection drops fails then and is never sent again: an INCR
  // resent after a reconnect would count a sign-in attempt twice.
  maxRetriesPerRequest: 0,
  connectTimeout: 2000,
  // A connection given up (reconnectWhenSilent) waits for no goodbye from a Redis that is silent.
  disconnectTimeout: 100,
  // Reconnects for ever, at most a second apart: the service recovers on its own once Redis is back.
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
};

/**
 * A connection to REDIS_URL. Commands sent before it first connects wait for it (a command
 * starting up, the first requests); from then on, while it is down, they fail at once. With
 * `log`, the loss and the return of the connection are logged once each, not every retry.
 */
export function connectRedis(url: string, log?: FastifyBaseLogger): Redis {
  const redis = new Redis(url, OPTIONS);
  redis.once('ready', () => (redis.options.enableOfflineQueue = false));
  reconnectWhenSilent(redis);
  if (log !== undefined) watchConnection(redis, log, 'Redis');
  return redis;
}

/** How often a connection asks Redis whether it still answers. */
const PROBE_MS = 250;
/** Probes left unanswered (a second) before a connection is given up and opened again. */
const MISSED_PROBES = 4;

/**
 * A Redis that stops answering without closing the connection (paused, a network partition)
 * would hold every command sent to it until the system's TCP keep-alive gives up, minutes later.
 * Each connection PINGs every PROBE_MS; one whose PING is unanswered for MISSED_PROBES probes is
 * dropped and opened again, which fails the commands it held (a 503 within about a second) and
 * the commands after it at once until Redis answers again. The same holds for a connection that
 * does not finish connecting. Counted in probes, not measured in time: a stall of this process
 * is one probe, after which the answer that arrived meanwhile is read, so a slow process is never
 * taken for a silent Redis.
 */
export function reconnectWhenSilent(redis: Redis): void {
  let waiting = false;
  let missed = 0;
  const probe = setInterval(() => {
    if (redis.status !== 'ready' && redis.status !== 'connect') {
      missed = 0;
      return;
    }
    if (redis.status === 'ready' && !waiting) {
      waiting = true;
      missed = 0;
      const answered = () => (waiting = false);
      redis.ping().then(answered, answered);
      return;
    }
    // Connecting (or reconnecting) takes a few round trips: twice the allowance.
    if (++missed >= (redis.status === 'ready' ? MISSED_PROBES : 2 * MISSED_PROBES)) {
      missed = 0;
      redis.disconnect(true);
    }
  }, PROBE_MS);
  probe.unref();
  redis.once('end', () => clearInterval(probe));
}

/** Logs when `redis` loses its connection and when it has it again; its retries' errors at debug only. */
export function watchConnection(redis: Redis, log: FastifyBaseLogger, name: string): void {
  let lost = false;
  redis.on('error', (error: Error) => log.debug({ err: loggableError(error) }, `${name}: connection error`));
  // Not on 'close': a connection closed on purpose (shutting down) is not lost.
  redis.on('reconnecting', () => {
    if (lost) return;
    lost = true;
    log.warn(`${name}: connection lost, reconnecting`);
  });
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    log.info(`${name}: connected again`);
  });
}

/**
 * Whether `error` says Redis did not answer, rather than that a command was wrong: no connection,
 * a command cut off by the connection's loss (or dropped as silent), or a reply saying Redis cannot
 * serve now (loading, a read-only replica, out of memory under `noeviction`).
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'MaxRetriesPerRequestError' || UNAVAILABLE_MESSAGE.test(error.message);
}

const UNAVAILABLE_MESSAGE =
  /^(Stream isn't writeable|Command aborted due to connection close|Connection is closed|(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|MISCONF|OOM|NOREPLICAS) )/;

/**
 * Closes `redis` for good: with QUIT when Redis answers, at once when it does not (QUIT then
 * fails, and the connection would go on reconnecting and keep a stopping process alive).
 */
export async function closeRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}

/** Whether Redis answers a PING now, for /ready; a silent one is given up within about a second. */
export async function redisAnswers(redis: Redis): Promise<boolean> {
  return redis.ping().then(
    () => true,
    () => false,
  );
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
