import { EventEmitter } from 'node:events';
import pg from 'pg';
import { isPlainUrl, parseConnectionUrl, type ConnectionInfo, type HostTarget, type SessionAttrs, type TlsAttempt } from './conninfo.ts';

/**
 * Finding the primary of a formation (pg_auto_failover: docs/production.md) as libpq's
 * target_session_attrs does, which node-postgres cannot (brianc/node-postgres#1470): try each
 * host of the URL, keep the first whose session fits, and after a failover or a switchover (a
 * lost connection, a read-only transaction) look again.
 */

/** One host reached one way: TLS or not. */
export interface Endpoint {
  target: HostTarget;
  tls: TlsAttempt;
}

/** How long one search of the hosts goes on before it answers that none fits. */
const SEARCH_MS = 5000;
/** Between two rounds over the hosts while none fits (a promotion under way). */
const ROUND_PAUSE_MS = 200;
/**
 * How long a request waits for a pooled connection on the host found (a new one, or a free one
 * under load): with a search, still under the contract's 10 s for an answer.
 */
const CONNECTION_WAIT_MS = 4000;
/** How long one host may take to accept a connection, when the URL sets no connect_timeout. */
const DEFAULT_CONNECT_TIMEOUT_S = 2;

/** No host answered with a fitting session: libpq's "could not connect", a 503 (isDatabaseUnavailable). */
export class NoFittingHostError extends Error {
  readonly code = '08001';
}

function clientConfig(endpoint: Endpoint, extra: pg.ClientConfig): pg.ClientConfig {
  const tls = endpoint.tls === 'tls' ? { ssl: { rejectUnauthorized: false } } : endpoint.tls === 'plain' ? { ssl: false } : {};
  return { ...extra, ...tls, connectionString: endpoint.target.url };
}

function sameEndpoint(a: Endpoint, b: Endpoint): boolean {
  return a.target.url === b.target.url && a.tls === b.tls;
}

/** Whether a connected session is one `attrs` accepts; prefer-standby's fall-back to a primary is the search's. */
async function sessionFits(client: pg.Client, attrs: SessionAttrs): Promise<boolean> {
  if (attrs === 'any') return true;
  const { rows } = await client.query<{ standby: boolean; read_only: string }>(
    "select pg_is_in_recovery() as standby, current_setting('transaction_read_only') as read_only",
  );
  const standby = rows[0]?.standby === true;
  const readOnly = rows[0]?.read_only === 'on';
  if (attrs === 'read-write') return !readOnly;
  if (attrs === 'read-only') return readOnly;
  if (attrs === 'primary') return !standby;
  return standby;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The hosts of one URL and the last one found fitting, shared by the pool and the sessions on that URL. */
export class PrimaryLocator {
  readonly info: ConnectionInfo;
  #last: Endpoint | undefined;
  #search: Promise<Endpoint> | undefined;

  constructor(info: ConnectionInfo) {
    this.info = info;
  }

  get last(): Endpoint | undefined {
    return this.#last;
  }

  /** Every host reached every way, the last one found first. */
  #endpoints(): Endpoint[] {
    const all = this.info.hosts.flatMap((target) => this.info.tls.map((tls) => ({ target, tls })));
    const last = this.#last;
    if (last === undefined) return all;
    return [...all.filter((endpoint) => sameEndpoint(endpoint, last)), ...all.filter((endpoint) => !sameEndpoint(endpoint, last))];
  }

  /** Where a fitting session is now; one search at a time, whoever asks. */
  find(): Promise<Endpoint> {
    this.#search ??= this.connect({ application_name: 'croupier: primary search' })
      .then(async ({ client, endpoint }) => {
        await client.end().catch(() => undefined);
        return endpoint;
      })
      .finally(() => {
        this.#search = undefined;
      });
    return this.#search;
  }

  /**
   * A connected session that fits, and where: rounds over the hosts until one does, for
   * SEARCH_MS at most. prefer-standby takes a primary only when a whole round found no standby.
   */
  async connect(extra: pg.ClientConfig): Promise<{ client: pg.Client; endpoint: Endpoint }> {
    const deadline = Date.now() + SEARCH_MS;
    const attrs = this.info.targetSessionAttrs;
    const perHostMs = (this.info.connectTimeoutS ?? DEFAULT_CONNECT_TIMEOUT_S) * 1000;
    let lastError: unknown;
    for (;;) {
      let fallback: { client: pg.Client; endpoint: Endpoint } | undefined;
      let tlsRefused: string | undefined;
      for (const endpoint of this.#endpoints()) {
        if (tlsRefused === endpoint.target.url) continue;
        const remaining = deadline - Date.now();
        if (remaining <= 0) break;
        const client = new pg.Client({ ...clientConfig(endpoint, extra), connectionTimeoutMillis: Math.min(perHostMs, remaining) });
        client.on('error', () => undefined);
        try {
          await client.connect();
        } catch (error) {
          lastError = error;
          continue;
        }
        try {
          const fits = await sessionFits(client, attrs === 'prefer-standby' ? 'standby' : attrs);
          if (fits) {
            await fallback?.client.end().catch(() => undefined);
            this.#last = endpoint;
            return { client, endpoint };
          }
          // A host reached in TLS need not be tried plain (libpq's prefer).
          tlsRefused = endpoint.target.url;
          if (attrs === 'prefer-standby' && fallback === undefined) {
            fallback = { client, endpoint };
            continue;
          }
        } catch (error) {
          lastError = error;
        }
        await client.end().catch(() => undefined);
      }
      if (fallback !== undefined) {
        this.#last = fallback.endpoint;
        return fallback;
      }
      if (Date.now() + ROUND_PAUSE_MS >= deadline) break;
      await sleep(ROUND_PAUSE_MS);
    }
    const hosts = this.info.hosts.map((target) => `${target.host}:${target.port}`).join(',');
    throw new NoFittingHostError(`No host of ${hosts} accepts a ${attrs} session within ${SEARCH_MS / 1000} s.`, { cause: lastError });
  }
}

const locators = new Map<string, PrimaryLocator>();

/** The locator of a URL that needs one (several hosts, target_session_attrs, sslmode prefer or allow), else undefined. */
export function locatorFor(url: string): PrimaryLocator | undefined {
  const known = locators.get(url);
  if (known !== undefined) return known;
  const info = parseConnectionUrl(url);
  if (isPlainUrl(info)) return undefined;
  const locator = new PrimaryLocator(info);
  locators.set(url, locator);
  return locator;
}

/**
 * A connected session of its own on `url` (LISTEN, a leader lock, migrations): on a formation,
 * on the host that fits. Its loss is the caller's to notice (an 'error' or 'end' event).
 */
export async function connectSession(url: string, applicationName: string): Promise<pg.Client> {
  const locator = locatorFor(url);
  if (locator === undefined) {
    const client = new pg.Client({ connectionString: url, application_name: applicationName });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }
  const { client } = await locator.connect({ application_name: applicationName });
  return client;
}

/** SQLSTATEs after which the pool's host may no longer be the one that fits: a read-only transaction, a lost or ending session. */
function hostMayHaveChanged(error: unknown): boolean {
  for (let current: unknown = error, steps = 0; current !== undefined && current !== null && steps < 8; steps++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (code === '25006' || /^08/.test(code) || /^57P0/.test(code) || /^E[A-Z]+$/.test(code))) return true;
    if (typeof message === 'string' && /^Connection terminated/.test(message)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export interface FailoverPoolOptions extends pg.PoolConfig {
  /** The client class the pool would use on one host (UnnamedStatementClient behind a pooler). */
  Client?: typeof pg.Client;
}

type Inner = { pool: pg.Pool; endpoint: Endpoint };

/**
 * A pool on whichever host of a formation fits (the primary, for read-write): node-postgres'
 * Pool on that host, replaced by one on the next host found after a failover, the old one's
 * connections dropped. Each new connection is checked as libpq checks it (a host demoted
 * since the search is refused), and an error saying the host may have changed starts a search.
 * A request meanwhile waits for the search (SEARCH_MS at most), then fails as unavailable: a 503.
 * The name ends in Pool for drizzle, which checks out a client for a transaction from a pool.
 */
export class FailoverPool extends EventEmitter {
  readonly #locator: PrimaryLocator;
  readonly #options: FailoverPoolOptions;
  #inner: Inner | undefined;
  #relocating: Promise<void> | undefined;
  #lastError: unknown;
  #ended = false;
  readonly #retired = new Set<pg.Pool>();

  constructor(locator: PrimaryLocator, options: FailoverPoolOptions) {
    super();
    this.#locator = locator;
    this.#options = options;
  }

  get totalCount(): number {
    return this.#inner?.pool.totalCount ?? 0;
  }

  get idleCount(): number {
    return this.#inner?.pool.idleCount ?? 0;
  }

  get waitingCount(): number {
    return this.#inner?.pool.waitingCount ?? 0;
  }

  /** The host the pool is on now, for the tests and the log. */
  get endpoint(): Endpoint | undefined {
    return this.#inner?.endpoint;
  }

  query(...args: unknown[]): Promise<unknown> {
    return this.#withPool(async (pool) => (pool.query as (...params: unknown[]) => Promise<unknown>).apply(pool, args));
  }

  connect(): Promise<pg.PoolClient> {
    return this.#withPool((pool) => pool.connect());
  }

  async end(): Promise<void> {
    this.#ended = true;
    const inner = this.#inner;
    this.#inner = undefined;
    const pools = [...(inner === undefined ? [] : [inner.pool]), ...this.#retired];
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
  }

  async #withPool<T>(work: (pool: pg.Pool) => Promise<T>): Promise<T> {
    const pool = await this.#current();
    try {
      return await work(pool);
    } catch (error) {
      if (hostMayHaveChanged(error)) this.#hostInDoubt(pool);
      throw error;
    }
  }

  async #current(): Promise<pg.Pool> {
    if (this.#ended) throw new Error('Cannot use a pool after calling end on the pool');
    // One search at most per request, so that its answer (a 503 when none found) stays within 10 s.
    if (this.#relocating !== undefined) await this.#relocating;
    else if (this.#inner === undefined) await this.#relocate();
    if (this.#inner === undefined) throw this.#lastError instanceof Error ? this.#lastError : new NoFittingHostError('No host found.');
    return this.#inner.pool;
  }

  /** `pool` answered as if its host were gone or demoted: look again, unless a search has replaced it. */
  #hostInDoubt(pool: pg.Pool): void {
    if (this.#inner?.pool === pool) void this.#relocate();
  }

  #relocate(): Promise<void> {
    this.#relocating ??= this.#locator
      .find()
      .then(
        (endpoint) => {
          if (this.#ended) return;
          const old = this.#inner;
          if (old !== undefined && sameEndpoint(old.endpoint, endpoint)) return;
          this.#inner = { pool: this.#newPool(endpoint), endpoint };
          if (old !== undefined) this.#retire(old.pool);
        },
        (error: unknown) => {
          this.#lastError = error;
          // No host fits: the next request searches again rather than waiting on a gone host.
          const old = this.#inner;
          this.#inner = undefined;
          if (old !== undefined) this.#retire(old.pool);
        },
      )
      .finally(() => {
        this.#relocating = undefined;
      });
    return this.#relocating;
  }

  /** Drops a pool on a host left behind: idle connections now, checked-out ones when released. */
  #retire(pool: pg.Pool): void {
    this.#retired.add(pool);
    void pool
      .end()
      .catch(() => undefined)
      .finally(() => this.#retired.delete(pool));
  }

  #newPool(endpoint: Endpoint): pg.Pool {
    const attrs = this.#locator.info.targetSessionAttrs;
    const Base = this.#options.Client ?? pg.Client;
    const options: pg.PoolConfig = { ...this.#options };
    delete options.Client;
    const inDoubt = () => this.#hostInDoubt(pool);
    /** A connection of this pool: checked on connect, and a read-only transaction starts a search. */
    class CheckedClient extends Base {
      override connect(...args: unknown[]): never {
        const callback = args[0] as ((error?: Error) => void) | undefined;
        const connected = (async () => {
          await super.connect();
          if (await sessionFits(this, attrs === 'prefer-standby' ? 'any' : attrs)) return;
          await this.end().catch(() => undefined);
          throw new NoFittingHostError(`${endpoint.target.host}:${endpoint.target.port} no longer accepts a ${attrs} session.`);
        })();
        if (callback === undefined) return connected as never;
        connected.then(
          () => callback(),
          (error: Error) => callback(error),
        );
        return undefined as never;
      }

      override query(...args: unknown[]): never {
        const result = (super.query as (...params: unknown[]) => unknown).apply(this, args);
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            if (hostMayHaveChanged(error)) inDoubt();
            throw error;
          }) as never;
        }
        return result as never;
      }
    }
    const pool = new pg.Pool({
      ...clientConfig(endpoint, options),
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? CONNECTION_WAIT_MS,
      Client: CheckedClient as unknown as typeof pg.Client,
    });
    // A lost idle connection may be a lost host: look again (the same host found keeps this pool).
    pool.on('error', (error) => {
      if (hostMayHaveChanged(error)) inDoubt();
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
      this.emit('connect', client);
    });
    return pool;
  }
}

/** A pool on `url`: node-postgres' own on one plain host, a FailoverPool on a formation. */
export function openPool(url: string, options: FailoverPoolOptions): pg.Pool {
  const locator = locatorFor(url);
  if (locator === undefined) return new pg.Pool({ ...options, connectionString: url });
  // What its users call of a Pool (query, connect, end, its counts and events), FailoverPool has.
  return new FailoverPool(locator, options) as unknown as pg.Pool;
}
