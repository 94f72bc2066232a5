import type { InvalidationBus } from './invalidation.ts';

export interface QueryCacheOptions {
  /** The invalidation topic that empties this cache (a message with a key drops that key only). */
  topic: string;
  /** Entries kept; the least recently read goes first. Keys may come from query strings, so this bounds memory. */
  maxEntries: number;
  /**
   * Longest an entry is served. Invalidations make entries stale at once; the age limit only
   * bounds what no invalidation announces (a change written outside the app, by SQL or a
   * command run beside PostgreSQL without Redis).
   */
  maxAgeMs: number;
}

interface Entry<V> {
  value: V;
  storedAt: number;
}

/**
 * An in-process cache of read results, keyed by the normalized query, emptied by invalidation
 * messages (invalidation.ts). Concurrent misses of one key share one load. A load that was
 * running when an invalidation arrived is answered but not kept: it may have read the data
 * before the change. While the bus is not live nothing is kept at all.
 */
export class QueryCache<V> {
  readonly #bus: InvalidationBus;
  readonly #options: QueryCacheOptions;
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loading = new Map<string, Promise<V>>();
  /** Moves on every invalidation; a load keeps its result only if it has not moved meanwhile. */
  #generation = 0;

  constructor(bus: InvalidationBus, options: QueryCacheOptions) {
    this.#bus = bus;
    this.#options = options;
    bus.subscribe(options.topic, (key) => (key === undefined ? this.clear() : this.delete(key)));
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The value kept for `key`, or undefined when there is none to serve (then `get` loads it): lets
   * a hot path answer a hit without a promise.
   */
  peek(key: string): V | undefined {
    if (!this.#bus.live) return undefined;
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (Date.now() - entry.storedAt > this.#options.maxAgeMs) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-inserted so the map's order is the order of last use.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (!this.#bus.live) return load();
    const kept = this.peek(key);
    if (kept !== undefined) return kept;
    const running = this.#loading.get(key);
    if (running !== undefined) return running;
    const generation = this.#generation;
    const loading = load().then(
      (value) => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
        if (generation === this.#generation && this.#bus.live) this.#store(key, value);
        return value;
      },
      (error: unknown) => {
        if (this.#loading.get(key) === loading) this.#loading.delete(key);
        throw error;
      },
    );
    this.#loading.set(key, loading);
    return loading;
  }

  #store(key: string, value: V): void {
    this.#entries.set(key, { value, storedAt: Date.now() });
    if (this.#entries.size > this.#options.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#loading.clear();
  }

  delete(key: string): void {
    this.#generation += 1;
    this.#entries.delete(key);
    this.#loading.delete(key);
  }
}
