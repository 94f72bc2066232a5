import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { ChannelInvalidationBus, type Channel, type ChannelEvents } from './channel-bus.ts';
import { reconnectWhenSilent, watchConnection } from '../redis.ts';
import { encodeMessage } from './wire.ts';

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
 * Redis pub/sub as the channel. Publishing uses the app's Redis connection; listening needs a
 * connection of its own (a subscribed connection waits for messages and sends nothing else),
 * which ioredis reconnects.
 */
class RedisChannel implements Channel {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #log: FastifyBaseLogger | undefined;
  readonly sendFailed = 'publishing to Redis failed';

  constructor(redis: Redis, log?: FastifyBaseLogger) {
    this.#publisher = redis;
    this.#log = log;
    // It sends only once connected (SUBSCRIBE on `ready`, the probes): nothing to queue.
    this.#subscriber = redis.duplicate({ enableOfflineQueue: false });
    // A listening connection that Redis stopped answering would leave this instance deaf while
    // its caches still serve: dropped, it turns the bus down until it is back and subscribed.
    reconnectWhenSilent(this.#subscriber);
  }

  listen(events: ChannelEvents): void {
    if (this.#log === undefined) this.#subscriber.on('error', () => undefined);
    else watchConnection(this.#subscriber, this.#log, 'cache invalidation');
    this.#subscriber.on('message', (channel: string, raw: string) => {
      if (channel === INVALIDATION_CHANNEL) events.message(raw);
    });
    const down = () => events.down();
    this.#subscriber.on('close', down);
    this.#subscriber.on('reconnecting', down);
    this.#subscriber.on('end', down);
    this.#subscriber.on('ready', () => void this.#subscribe(events));
  }

  async #subscribe(events: ChannelEvents): Promise<void> {
    try {
      await this.#subscriber.subscribe(INVALIDATION_CHANNEL);
    } catch (error) {
      // The connection went down again; its next `ready` tries once more.
      this.#log?.warn({ err: error }, 'cache invalidation: subscribing failed');
      return;
    }
    events.up();
  }

  async send(raw: string): Promise<void> {
    await this.#publisher.publish(INVALIDATION_CHANNEL, raw);
  }

  async close(): Promise<void> {
    this.#subscriber.disconnect();
  }
}

/**
 * Invalidations across instances through Redis pub/sub (REDIS_URL). Pub/sub delivers only to
 * those connected when a message is sent, so while the listening connection is down the bus is
 * not `live` (caches keep nothing), and when it is back every topic is dropped once: what
 * changed meanwhile was announced to no one (channel-bus.ts).
 */
export class RedisInvalidationBus extends ChannelInvalidationBus {
  constructor(redis: Redis, log?: FastifyBaseLogger) {
    super(new RedisChannel(redis, log), log);
  }
}
