import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Db } from '../db/client.ts';
import { connectSession, openPool } from '../db/primary.ts';
import { ChannelInvalidationBus, type Channel, type ChannelEvents } from './channel-bus.ts';
import { encodeMessage } from './wire.ts';

/** PostgreSQL's NOTIFY channel, the counterpart of Redis' `croupier:invalidate`. */
export const PG_INVALIDATION_CHANNEL = 'croupier_invalidate';
const RETRY_MS = [250, 1000, 5000];

/**
 * For commands run beside the servers (no bus of their own): tells every listening instance,
 * as `publishInvalidation` does on Redis. Outside a transaction, so it is delivered at once.
 */
export async function notifyInvalidation(db: Db, topic: string, key?: string, origin = 'command'): Promise<void> {
  await db.execute(sql`select pg_notify(${PG_INVALIDATION_CHANNEL}, ${encodeMessage(origin, topic, key)})`);
}

/**
 * Where an instance listens and where it sends: LISTEN needs a server session of its own, so it
 * goes to PostgreSQL itself (DATABASE_DIRECT_URL); a NOTIFY is one statement, which a transaction
 * pooler (DATABASE_URL) carries as well and without a server connection held for it.
 */
export interface PgChannelUrls {
  listen: string;
  publish: string;
}

/**
 * PostgreSQL's LISTEN/NOTIFY as the channel. Listening holds a connection of its own, outside the
 * pool, opened again (with backoff) whenever it is lost.
 */
class PgChannel implements Channel {
  readonly #listenUrl: string;
  readonly #publisher: pg.Pool;
  readonly #log: FastifyBaseLogger | undefined;
  readonly sendFailed = 'NOTIFY failed';
  #client: pg.Client | undefined;
  #closed = false;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;

  constructor(urls: PgChannelUrls, log?: FastifyBaseLogger) {
    this.#listenUrl = urls.listen;
    this.#log = log;
    // Publishing borrows one short connection at a time; the app's pool is not reachable from here.
    this.#publisher = openPool(urls.publish, { max: 2, idleTimeoutMillis: 10_000 });
    this.#publisher.on('error', () => undefined);
  }

  listen(events: ChannelEvents): void {
    void this.#listen(events);
  }

  async #listen(events: ChannelEvents): Promise<void> {
    let client: pg.Client;
    try {
      // On a formation, the primary's (primary.ts): a NOTIFY is delivered on the server that runs it.
      client = await connectSession(this.#listenUrl, 'croupier: cache invalidation');
    } catch (error) {
      this.#log?.warn({ err: error }, 'cache invalidation: listening on PostgreSQL failed');
      events.down();
      this.#retryLater(events);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    client.on('notification', (message) => {
      if (message.channel === PG_INVALIDATION_CHANNEL && message.payload !== undefined) events.message(message.payload);
    });
    client.on('error', (error) => {
      this.#log?.warn({ err: error }, 'cache invalidation: PostgreSQL listening connection error');
      this.#down(client, events);
    });
    client.on('end', () => this.#down(client, events));
    try {
      await client.query(`listen ${PG_INVALIDATION_CHANNEL}`);
    } catch (error) {
      this.#log?.warn({ err: error }, 'cache invalidation: listening on PostgreSQL failed');
      this.#down(client, events);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#failures = 0;
    events.up();
  }

  #down(client: pg.Client, events: ChannelEvents): void {
    // Only the current connection's end counts: an earlier one's late events are its own.
    if (this.#client !== client) return;
    this.#client = undefined;
    events.down();
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    this.#retryLater(events);
  }

  #retryLater(events: ChannelEvents): void {
    if (this.#closed || this.#retry !== undefined) return;
    const delay = RETRY_MS[Math.min(this.#failures, RETRY_MS.length - 1)]!;
    this.#failures += 1;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#listen(events);
    }, delay);
    this.#retry.unref();
  }

  async send(raw: string): Promise<void> {
    await this.#publisher.query('select pg_notify($1, $2)', [PG_INVALIDATION_CHANNEL, raw]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    client?.removeAllListeners('end');
    await client?.end().catch(() => undefined);
    await this.#publisher.end().catch(() => undefined);
  }
}

/**
 * Invalidations across instances through PostgreSQL's LISTEN/NOTIFY, for several instances on
 * one PostgreSQL without Redis. Like Redis pub/sub, a notification reaches only those listening
 * when it is sent, so while the listening connection is down the bus is not `live` (caches keep
 * nothing) and every topic is dropped once it is back (channel-bus.ts).
 */
export class PgInvalidationBus extends ChannelInvalidationBus {
  constructor(urls: PgChannelUrls, log?: FastifyBaseLogger) {
    super(new PgChannel(urls, log), log);
  }
}
