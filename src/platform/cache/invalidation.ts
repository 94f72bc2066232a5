/**
 * Invalidation messages for in-process caches. A change announces what it made stale (a
 * `topic`, and optionally one `key` under it); every cache of that topic on every instance drops
 * it. This instance's caches hear it at once, before `publish` returns, so the request that made
 * the change and every later one on this instance read fresh data; other instances hear it
 * through Redis pub/sub or PostgreSQL's NOTIFY (channel-bus.ts).
 */
export type InvalidationListener = (key: string | undefined) => void;

export interface InvalidationBus {
  /** Drops `key` (or everything, when absent) under `topic` here at once, and on other instances. */
  publish(topic: string, key?: string): Promise<void>;
  /** Calls `listener` for each message of `topic`; the returned function unsubscribes. */
  subscribe(topic: string, listener: InvalidationListener): () => void;
  /**
   * Whether every invalidation published anywhere reaches this instance. A cache must not keep
   * entries while it is false (the connection carrying them is down), and must drop everything
   * when it turns true again: messages sent meanwhile were lost.
   */
  readonly live: boolean;
  /** Resolves once the bus is live for the first time (at once for a single instance). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** The listeners of one instance, by topic. */
export class Listeners {
  readonly #byTopic = new Map<string, Set<InvalidationListener>>();

  add(topic: string, listener: InvalidationListener): () => void {
    let set = this.#byTopic.get(topic);
    if (set === undefined) {
      set = new Set();
      this.#byTopic.set(topic, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  notify(topic: string, key: string | undefined): void {
    for (const listener of this.#byTopic.get(topic) ?? []) listener(key);
  }

  /** Everything under every topic: after a gap in which messages may have been lost. */
  notifyAll(): void {
    for (const [topic] of this.#byTopic) this.notify(topic, undefined);
  }
}

/** One instance alone (no REDIS_URL): nothing to tell anyone else. */
export class LocalInvalidationBus implements InvalidationBus {
  readonly #listeners = new Listeners();
  readonly live = true;

  async publish(topic: string, key?: string): Promise<void> {
    this.#listeners.notify(topic, key);
  }

  subscribe(topic: string, listener: InvalidationListener): () => void {
    return this.#listeners.add(topic, listener);
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {}
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The invalidation bus of this app (built in app.ts), for tests that wait on another instance. */
    invalidation: InvalidationBus;
  }
}
