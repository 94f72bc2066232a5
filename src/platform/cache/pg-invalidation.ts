import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { Listeners, type InvalidationBus, type InvalidationListener } from './invalidation.ts';
import { ECHO_TIMEOUT_MS, Echoes, encodeMessage, parseMessage } from './wire.ts';

/** PostgreSQL's NOTIFY channel, the counterpart of Redis' `croupier:invalidate`. */
export const PG_INVALIDATION_CHANNEL = 'croupier_invalidate';
const RETRY_MS = [250, 1000, 5000];

/**
 * Invalidations across instances through PostgreSQL's LISTEN/NOTIFY, for several instances on
 * one PostgreSQL without Redis. Listening holds a connection of its own, outside the pool; like
 * Redis pub/sub, a notification reaches only those listening when it is sent, so while that
 * connection is down the bus is not `live` (caches keep nothing) and every topic is dropped once
 * it is back.
 */
export class PgInvalidationBus implements InvalidationBus {
  readonly #connectionString: string;
  readonly #publisher: pg.Pool;
  readonly #listeners = new Listeners();
  readonly #origin = randomUUID();
  readonly #log: FastifyBaseLogger | undefined;
  readonly #echoes = new Echoes();
  #client: pg.Client | undefined;
  #live = false;
  #closed = false;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;
  readonly #ready: Promise<void>;
  #resolveReady!: () => void;

  constructor(connectionString: string, log?: FastifyBaseLogger) {
    this.#connectionString = connectionString;
    this.#log = log;
    // Publishing borrows one short connection at a time; the app's pool is not reachable from here.
    this.#publisher = new pg.Pool({ connectionString, max: 2, idleTimeoutMillis: 10_000 });
    this.#publisher.on('error', () => undefined);
    this.#ready = new Promise((resolve) => (this.#resolveReady = resolve));
    void this.#listen();
  }

  get live(): boolean {
    return this.#live;
  }

  ready(): Promise<void> {
    return this.#ready;
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#connectionString });
    this.#client = client;
    client.on('notification', (message) => {
      const parsed =
        message.channel === PG_INVALIDATION_CHANNEL && message.payload !== undefined ? parseMessage(message.payload) : undefined;
      if (parsed === undefined) return;
      if (parsed.o === this.#origin) this.#echoes.heard(parsed.n);
      else this.#listeners.notify(parsed.t, parsed.k);
    });
    client.on('error', (error) => {
      this.#log?.warn({ err: error }, 'cache invalidation: PostgreSQL listening connection error');
      this.#down(client);
    });
    client.on('end', () => this.#down(client));
    try {
      await client.connect();
      await client.query(`listen ${PG_INVALIDATION_CHANNEL}`);
    } catch (error) {
      this.#log?.warn({ err: error }, 'cache invalidation: listening on PostgreSQL failed');
      this.#down(client);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#failures = 0;
    this.#listeners.notifyAll();
    this.#live = true;
    this.#resolveReady();
  }

  #down(client: pg.Client): void {
    // Only the current connection's end counts: an earlier one's late events are its own.
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#live = false;
    this.#echoes.settleAll();
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (this.#closed || this.#retry !== undefined) return;
    const delay = RETRY_MS[Math.min(this.#failures, RETRY_MS.length - 1)]!;
    this.#failures += 1;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#listen();
    }, delay);
    this.#retry.unref();
  }

  async publish(topic: string, key?: string): Promise<void> {
    this.#listeners.notify(topic, key);
    const echo = this.#live ? this.#echoes.expect(ECHO_TIMEOUT_MS) : undefined;
    try {
      await this.#publisher.query('select pg_notify($1, $2)', [
        PG_INVALIDATION_CHANNEL,
        encodeMessage(this.#origin, topic, key, echo?.nonce),
      ]);
      await echo?.heard;
    } catch (error) {
      if (echo !== undefined) this.#echoes.heard(echo.nonce);
      // The change is committed; other instances' entries still expire by age.
      this.#log?.warn({ err: error, topic }, 'cache invalidation: NOTIFY failed');
    }
  }

  subscribe(topic: string, listener: InvalidationListener): () => void {
    return this.#listeners.add(topic, listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#live = false;
    this.#echoes.settleAll();
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    client?.removeAllListeners('end');
    await client?.end().catch(() => undefined);
    await this.#publisher.end().catch(() => undefined);
  }
}
