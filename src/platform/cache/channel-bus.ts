import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Listeners, type InvalidationBus, type InvalidationListener } from './invalidation.ts';
import { ECHO_TIMEOUT_MS, Echoes, encodeMessage, parseMessage } from './wire.ts';

/** What a transport tells its bus. */
export interface ChannelEvents {
  /** A message heard on the channel (this instance's own ones included). */
  message(raw: string): void;
  /** Listening (again): from now on every message sent reaches this instance. */
  up(): void;
  /** Listening stopped: messages sent from now on may never reach this instance. */
  down(): void;
}

/**
 * One channel that every instance listens on and any can send to (Redis pub/sub, PostgreSQL
 * LISTEN/NOTIFY): the connections, their errors and reconnection. The rest (origins, echoes,
 * liveness, the listeners) is the same for each and lives in `ChannelInvalidationBus`.
 */
export interface Channel {
  /** Starts listening, then reports on `events`: `up` each time listening starts, `down` each time it stops. */
  listen(events: ChannelEvents): void;
  /** Sends `raw` to every instance listening, this one included. */
  send(raw: string): Promise<void>;
  /** Stops listening and sending, and never comes up again. */
  close(): Promise<void>;
  /** The log line of a failed send, e.g. `NOTIFY failed`. */
  readonly sendFailed: string;
}

/**
 * Invalidations across instances through a `Channel`. A message delivered only to those
 * listening when it is sent is lost to an instance whose listening connection is down, so while
 * it is down the bus is not `live` (caches keep nothing) and when it is back every topic is
 * dropped once. A publisher waits (up to `ECHO_TIMEOUT_MS`) until its own message comes back
 * (wire.ts, `Echoes`).
 */
export class ChannelInvalidationBus implements InvalidationBus {
  readonly #channel: Channel;
  readonly #listeners = new Listeners();
  readonly #origin = randomUUID();
  readonly #log: FastifyBaseLogger | undefined;
  readonly #echoes = new Echoes();
  #live = false;
  #closed = false;
  readonly #ready: Promise<void>;
  #resolveReady!: () => void;

  constructor(channel: Channel, log?: FastifyBaseLogger) {
    this.#channel = channel;
    this.#log = log;
    this.#ready = new Promise((resolve) => (this.#resolveReady = resolve));
    channel.listen({
      message: (raw) => {
        const message = parseMessage(raw);
        if (message === undefined) return;
        if (message.o === this.#origin) this.#echoes.heard(message.n);
        else this.#listeners.notify(message.t, message.k);
      },
      up: () => {
        if (this.#closed) return;
        this.#listeners.notifyAll();
        this.#live = true;
        this.#resolveReady();
      },
      down: () => {
        this.#live = false;
        this.#echoes.settleAll();
      },
    });
  }

  get live(): boolean {
    return this.#live;
  }

  /** Resolves once this instance hears other instances' invalidations. */
  ready(): Promise<void> {
    return this.#ready;
  }

  async publish(topic: string, key?: string): Promise<void> {
    this.#listeners.notify(topic, key);
    const echo = this.#live ? this.#echoes.expect(ECHO_TIMEOUT_MS) : undefined;
    try {
      await this.#channel.send(encodeMessage(this.#origin, topic, key, echo?.nonce));
      await echo?.heard;
    } catch (error) {
      if (echo !== undefined) this.#echoes.heard(echo.nonce);
      // The change is committed; other instances' entries still expire by age.
      this.#log?.warn({ err: error, topic }, `cache invalidation: ${this.#channel.sendFailed}`);
    }
  }

  subscribe(topic: string, listener: InvalidationListener): () => void {
    return this.#listeners.add(topic, listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    this.#echoes.settleAll();
    await this.#channel.close();
  }
}
