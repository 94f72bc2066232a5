import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { Listeners, type InvalidationBus, type InvalidationListener } from './invalidation.ts';
import { ECHO_TIMEOUT_MS, Echoes, encodeMessage, parseMessage } from './wire.ts';

/** One channel for every topic: instances subscribe once, whatever their caches. */
export const INVALIDATION_CHANNEL = 'croupier:invalidate';

/**
 * Tells every instance listening on `redis` that `topic` (or one key under it) is stale: for
 * commands that change data beside running servers (`croupier seed:demo`).
 */
export async function publishInvalidation(redis: Redis, topic: string, key?: string, origin = 'command', nonce?: string): Promise<void> {
  await redis.publish(INVALIDATION_CHANNEL, encodeMessage(origin, topic, key, nonce));
}

/**
 * Invalidations across instances through Redis pub/sub (REDIS_URL). Publishing uses the app's
 * Redis connection; listening needs a connection of its own (a subscribed connection can do
 * nothing else). Pub/sub delivers only to those connected when a message is sent, so while the
 * listening connection is down the bus is not `live` (caches keep nothing), and when it is back
 * every topic is dropped once: what changed meanwhile was announced to no one.
 */
export class RedisInvalidationBus implements InvalidationBus {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #listeners = new Listeners();
  readonly #origin = randomUUID();
  readonly #log: FastifyBaseLogger | undefined;
  readonly #echoes = new Echoes();
  #live = false;
  #subscribed: Promise<void>;
  #resolveSubscribed!: () => void;
  #closed = false;

  constructor(redis: Redis, log?: FastifyBaseLogger) {
    this.#publisher = redis;
    this.#log = log;
    this.#subscribed = new Promise((resolve) => (this.#resolveSubscribed = resolve));
    this.#subscriber = redis.duplicate();
    this.#subscriber.on('error', (error: Error) => this.#log?.warn({ err: error }, 'cache invalidation: Redis connection error'));
    this.#subscriber.on('message', (channel: string, raw: string) => {
      const message = channel === INVALIDATION_CHANNEL ? parseMessage(raw) : undefined;
      if (message === undefined) return;
      if (message.o === this.#origin) this.#echoes.heard(message.n);
      else this.#listeners.notify(message.t, message.k);
    });
    const down = () => {
      this.#live = false;
      this.#echoes.settleAll();
    };
    this.#subscriber.on('close', down);
    this.#subscriber.on('reconnecting', down);
    this.#subscriber.on('end', down);
    this.#subscriber.on('ready', () => void this.#listen());
  }

  get live(): boolean {
    return this.#live;
  }

  /** Resolves once this instance hears other instances' invalidations. */
  ready(): Promise<void> {
    return this.#subscribed;
  }

  async #listen(): Promise<void> {
    try {
      await this.#subscriber.subscribe(INVALIDATION_CHANNEL);
    } catch (error) {
      // The connection went down again; its next `ready` tries once more.
      this.#log?.warn({ err: error }, 'cache invalidation: subscribing failed');
      return;
    }
    if (this.#closed) return;
    this.#listeners.notifyAll();
    this.#live = true;
    this.#resolveSubscribed();
  }

  async publish(topic: string, key?: string): Promise<void> {
    this.#listeners.notify(topic, key);
    const echo = this.#live ? this.#echoes.expect(ECHO_TIMEOUT_MS) : undefined;
    try {
      await publishInvalidation(this.#publisher, topic, key, this.#origin, echo?.nonce);
      await echo?.heard;
    } catch (error) {
      if (echo !== undefined) this.#echoes.heard(echo.nonce);
      // The change is committed; other instances' entries still expire by age.
      this.#log?.warn({ err: error, topic }, 'cache invalidation: publishing to Redis failed');
    }
  }

  subscribe(topic: string, listener: InvalidationListener): () => void {
    return this.#listeners.add(topic, listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    this.#echoes.settleAll();
    this.#subscriber.disconnect();
  }
}
