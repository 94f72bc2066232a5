import type { InvalidationBus } from '../cache/invalidation.ts';
import { sha256 } from '../crypto.ts';
import type { LoadedSession, Session, SessionData, SessionEndRule, SessionStore } from './store.ts';

/** The invalidation topic of cached sessions; keys are `s:<id digest>` or `u:<user id>`, none means all. */
export const SESSIONS_TOPIC = 'sessions';

const sessionKey = (idHash: string) => `s:${idHash}`;
/** The key under SESSIONS_TOPIC that drops every cached session of one user (commands announce changes with it). */
export const userKey = (userId: number) => `u:${userId}`;

interface Entry {
  /** The session id itself (memory only), so forgetting the entry forgets its digest too. */
  id: string;
  loaded: LoadedSession;
  storedAt: number;
  /** Users whose change makes this entry stale (the signed-in one and a pending two-factor login's). */
  owners: number[];
}

export interface SessionCacheOptions {
  /** Longest an entry is served; 0 turns the cache off. Bounds what no invalidation announces. */
  maxAgeMs: number;
  /** Entries kept; the least recently used goes first. */
  maxEntries: number;
}

function copy(loaded: LoadedSession): LoadedSession {
  // Requests write to their session object (SessionManager.update), never to the cached one.
  return { session: { ...loaded.session }, user: loaded.user };
}

/**
 * A per-instance cache in front of a session store, so a signed-in read costs no round trip.
 * Every write through this store, and every change to a user announced with `forgetUser`, drops
 * the entries it makes stale on every instance (invalidation bus) before the next request is
 * served; a load that was running when an invalidation arrived is answered but not kept. The
 * idle lifetime is checked on every hit against the entry's own clock, so an expired session is
 * refused even while cached.
 */
export class CachedSessionStore implements SessionStore {
  readonly #inner: SessionStore;
  readonly #bus: InvalidationBus;
  readonly #options: SessionCacheOptions;
  readonly #entries = new Map<string, Entry>();
  readonly #byUser = new Map<number, Set<string>>();
  readonly #loading = new Map<string, Promise<LoadedSession | null>>();
  /** The digest of each cached session's id: a hit then costs no hashing. */
  readonly #digests = new Map<string, string>();
  #generation = 0;

  constructor(inner: SessionStore, bus: InvalidationBus, options: SessionCacheOptions) {
    this.#inner = inner;
    this.#bus = bus;
    this.#options = options;
    bus.subscribe(SESSIONS_TOPIC, (key) => this.#drop(key));
  }

  get size(): number {
    return this.#entries.size;
  }

  peek(id: string, idleSeconds: number): LoadedSession | null | undefined {
    if (this.#options.maxAgeMs <= 0 || !this.#bus.live) return undefined;
    const idHash = this.#digests.get(id);
    const entry = idHash === undefined ? undefined : this.#entries.get(idHash);
    if (idHash === undefined || entry === undefined) return undefined;
    const now = Date.now();
    if (now - entry.storedAt > this.#options.maxAgeMs) {
      this.#forget(idHash);
      return undefined;
    }
    if (now - entry.loaded.session.lastActivity.getTime() >= idleSeconds * 1000) {
      this.#forget(idHash);
      return null;
    }
    this.#entries.delete(idHash);
    this.#entries.set(idHash, entry);
    return copy(entry.loaded);
  }

  async load(id: string, idleSeconds: number): Promise<LoadedSession | null> {
    if (this.#options.maxAgeMs <= 0 || !this.#bus.live) return this.#inner.load(id, idleSeconds);
    const kept = this.peek(id, idleSeconds);
    if (kept !== undefined) return kept;
    const idHash = sha256(id);
    let loading = this.#loading.get(idHash);
    if (loading === undefined) {
      const generation = this.#generation;
      loading = this.#inner.load(id, idleSeconds).then(
        (loaded) => {
          if (this.#loading.get(idHash) === loading) this.#loading.delete(idHash);
          if (loaded !== null && generation === this.#generation && this.#bus.live) this.#store(id, idHash, loaded);
          return loaded;
        },
        (error: unknown) => {
          if (this.#loading.get(idHash) === loading) this.#loading.delete(idHash);
          throw error;
        },
      );
      this.#loading.set(idHash, loading);
    }
    const loaded = await loading;
    return loaded === null ? null : copy(loaded);
  }

  create(id: string, data: SessionData): Promise<Session> {
    return this.#inner.create(id, data);
  }

  async update(id: string, patch: Partial<SessionData>): Promise<void> {
    await this.#inner.update(id, patch);
    await this.#bus.publish(SESSIONS_TOPIC, sessionKey(sha256(id)));
  }

  async touch(id: string): Promise<void> {
    await this.#inner.touch(id);
    // Other instances keep their entries: each moves its own clock when its copy looks stale.
    const entry = this.#entries.get(sha256(id));
    if (entry !== undefined) entry.loaded.session.lastActivity = new Date();
  }

  async destroy(id: string): Promise<void> {
    await this.#inner.destroy(id);
    await this.#bus.publish(SESSIONS_TOPIC, sessionKey(sha256(id)));
  }

  async destroyForUser(userId: number, exceptId?: string): Promise<void> {
    await this.#inner.destroyForUser(userId, exceptId);
    await this.forgetUser(userId);
  }

  prune(idleSeconds: number): Promise<number> {
    return this.#inner.prune(idleSeconds);
  }

  async shortenForUser(userId: number, endOf: SessionEndRule): Promise<void> {
    await this.#inner.shortenForUser(userId, endOf);
    await this.forgetUser(userId);
  }

  /**
   * Announces, once the change is committed, that a user changed (status, password, profile,
   * roles, two-factor): their sessions are read afresh everywhere. Without an id: every user
   * (a role renamed or deleted).
   */
  async forgetUser(userId?: number): Promise<void> {
    await this.#bus.publish(SESSIONS_TOPIC, userId === undefined ? undefined : userKey(userId));
  }

  #store(id: string, idHash: string, loaded: LoadedSession): void {
    this.#forget(idHash);
    const owners = [...new Set([loaded.session.userId, loaded.session.pendingUserId])].filter((id): id is number => id !== null);
    this.#entries.set(idHash, { id, loaded, storedAt: Date.now(), owners });
    this.#digests.set(id, idHash);
    for (const owner of owners) {
      let set = this.#byUser.get(owner);
      if (set === undefined) this.#byUser.set(owner, (set = new Set()));
      set.add(idHash);
    }
    if (this.#entries.size > this.#options.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#forget(oldest);
    }
  }

  #forget(idHash: string): void {
    const entry = this.#entries.get(idHash);
    if (entry === undefined) return;
    this.#entries.delete(idHash);
    this.#digests.delete(entry.id);
    for (const owner of entry.owners) {
      const set = this.#byUser.get(owner);
      set?.delete(idHash);
      if (set?.size === 0) this.#byUser.delete(owner);
    }
  }

  #drop(key: string | undefined): void {
    this.#generation += 1;
    if (key === undefined) {
      this.#entries.clear();
      this.#digests.clear();
      this.#byUser.clear();
      this.#loading.clear();
    } else if (key.startsWith('s:')) {
      this.#forget(key.slice(2));
      this.#loading.delete(key.slice(2));
    } else if (key.startsWith('u:')) {
      for (const idHash of this.#byUser.get(Number(key.slice(2))) ?? []) this.#forget(idHash);
      // Whose session a running load belongs to is not known until it answers: none is kept.
    }
  }
}
