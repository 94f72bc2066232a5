import { PGlite, types } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { AdvisoryLeaderLock, soleLeader, type LeaderLock } from './leader.ts';
import { connectSession, openPool } from './primary.ts';
import { acquireDataDirLock, type DataDirLock, type LockRole } from './lock.ts';
import { freshDatabaseTemplate, holdsDatabase, type TemplateSource } from './template.ts';

/** Anything that runs queries: the database itself or a transaction opened on it. */
export type Db = PgDatabase<PgQueryResultHKT>;

/** How busy a connection pool is (node-postgres' own counters), for the metrics. */
export interface PoolUsage {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The pool's connection string (DATABASE_URL): PostgreSQL itself, or a pooler in front of it. */
  url: string | undefined;
  /**
   * PostgreSQL itself (DATABASE_DIRECT_URL, else the pool's), for what needs a server session of
   * its own that a transaction pooler would not keep: LISTEN and leader locks.
   */
  directUrl: string | undefined;
  /** PostgreSQL's connection pool; the embedded database has one connection and no pool. */
  pool?: PoolUsage;
  /**
   * An embedded database made by this open (a new DATA_DIR): from initdb, or copied from a
   * template, the migrated one bringing every migration (template.ts). Undefined otherwise.
   */
  created?: 'initdb' | 'template' | 'migrated template';
  /** A lock only one process using this database holds at a time, for singleton jobs (leader.ts). */
  leaderLock(name: string): LeaderLock;
  /**
   * Runs `work` on one server session of its own (migrations: one transaction with DDL and a lock):
   * a connection to `directUrl` opened for it when a pooler stands in between, the pool otherwise.
   */
  onDirectConnection<T>(work: (db: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  /** PostgreSQL itself when `databaseUrl` is a pooler (PgBouncer); unset: `databaseUrl` is PostgreSQL. */
  directUrl?: string;
  /**
   * Named prepared statements on the pool. Unset: on when nothing pools in between (no
   * `directUrl`, or the same one), off behind a pooler (see UnnamedStatementClient).
   */
  preparedStatements?: boolean;
  dataDir: string;
  /** Tests run the embedded database in memory. */
  inMemory?: boolean;
  poolSize?: number;
  /**
   * Where a fresh data directory is copied from instead of running initdb and the migrations
   * (template.ts; default: the migrated template of today's schema, else the initialised one);
   * false: always initdb.
   */
  template?: TemplateSource | false;
  /** Who holds the embedded database's lock: a server takes commands run beside it (lock.ts); a command by default. */
  lockRole?: LockRole;
}

/** The database settings of the configuration (src/config.ts). */
export interface DatabaseConfig {
  databaseUrl: string | undefined;
  databaseDirectUrl: string | undefined;
  databasePreparedStatements: boolean;
  databasePoolSize: number;
  dataDir: string;
}

/** What a server opens: its pool on DATABASE_URL (maybe a pooler), its own sessions on DATABASE_DIRECT_URL. */
export function serverDatabase(config: DatabaseConfig): DatabaseOptions {
  return {
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    preparedStatements: config.databasePreparedStatements,
    poolSize: config.databasePoolSize,
    dataDir: config.dataDir,
    lockRole: 'serve',
  };
}

/**
 * What a command (migrate, admin:create, seed:demo, ledger:verify, the primary of `serve
 * --workers`) opens: PostgreSQL itself, as it migrates first and runs once. Its statements run
 * one after another, so it holds one connection, two at most.
 */
export function commandDatabase(config: DatabaseConfig): DatabaseOptions {
  return { databaseUrl: config.databaseDirectUrl, dataDir: config.dataDir, poolSize: 2 };
}

/**
 * A node-postgres client that sends every statement unnamed, for a pool behind a transaction
 * pooler. Such a pooler (PgBouncer in transaction mode, before 1.21 or without
 * max_prepared_statements) gives each transaction whichever server connection is free, so a
 * statement prepared by name on one connection is missing on the next ("prepared statement …
 * does not exist") or is there already ("… already exists"). Unnamed, a statement is parsed,
 * bound and run in one exchange, which the pooler keeps on one server connection. The cost is
 * the parse and plan on every call, which is why a pool on PostgreSQL itself keeps the names.
 */
class UnnamedStatementClient extends pg.Client {
  override query(...args: unknown[]): never {
    const [config] = args;
    if (typeof config === 'object' && config !== null && typeof (config as { name?: unknown }).name === 'string') {
      args[0] = { ...config, name: undefined };
    }
    return (super.query as (...params: unknown[]) => never).apply(this, args);
  }
}

/**
 * node-postgres returns BIGINT as text; PGlite would return a number, or a bigint past 2^53.
 * Text on both gives a raw row one type per column on either driver, and Drizzle's bigint
 * columns still map it to their mode (ids to numbers, cents to bigint: src/platform/db/columns.ts).
 */
const PGLITE_OPTIONS = {
  parsers: { [types.INT8]: (value: string) => value },
  // PostgreSQL's 128 MB of shared buffers are zeroed at start, so the embedded database held them
  // resident from its first query: 16 MB caches a development database and keeps `npm start`
  // light (docs/deployment.md, "The embedded database's memory").
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
};

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const url = options.databaseUrl;
  if (url !== undefined) {
    const directUrl = options.directUrl ?? url;
    const pooled = directUrl !== url;
    const named = options.preparedStatements ?? !pooled;
    // Several hosts (a pg_auto_failover formation): a pool on whichever is the primary now (primary.ts).
    const pool = openPool(url, { max: options.poolSize ?? 10, ...(named ? {} : { Client: UnnamedStatementClient }) });
    // A client that loses its connection emits an error, and one without a listener crashes the
    // process. The pool listens for its idle clients only; a client checked out between two
    // statements of a transaction needs its own listener. Either way the next query on it fails
    // (a 503), and the pool discards it when it comes back.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = drizzlePg(pool) as unknown as Db;
    return {
      db,
      kind: 'postgres',
      url,
      directUrl,
      pool,
      leaderLock: (name) => new AdvisoryLeaderLock(directUrl, name),
      onDirectConnection: (work) => (pooled ? onConnectionOf(directUrl, work) : work(db)),
      close: () => pool.end(),
    };
  }
  let lock: DataDirLock | undefined;
  if (options.inMemory !== true) lock = acquireDataDirLock(options.dataDir, options.lockRole);
  try {
    const template = options.template ?? freshDatabaseTemplate();
    if (options.inMemory === true) return embeddedDatabase(await openInMemory(template), () => lock?.release());
    const { client, created } = await openDataDir(`${options.dataDir}/pgdata`, template);
    return { ...embeddedDatabase(client, () => lock?.release()), ...(created === undefined ? {} : { created }) };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

function embeddedDatabase(client: PGlite, released: () => void): Database {
  const db = drizzlePglite(client) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    url: undefined,
    directUrl: undefined,
    leaderLock: () => soleLeader,
    onDirectConnection: (work) => work(db),
    close: async () => {
      await client.close();
      released();
    },
  };
}

/** Runs `work` on a connection of its own to `connectionString`, closed after. */
async function onConnectionOf<T>(connectionString: string, work: (db: Db) => Promise<T>): Promise<T> {
  const client = await connectSession(connectionString, 'croupier: migrations');
  try {
    return await work(drizzlePg(client));
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ready(client: PGlite): Promise<PGlite> {
  await client.waitReady;
  return client;
}

/** `client` once ready, or undefined (and closed) when it cannot start: a damaged template. */
async function startedCopy(client: PGlite): Promise<PGlite | undefined> {
  try {
    return await ready(client);
  } catch {
    await client.close().catch(() => undefined);
    return undefined;
  }
}

/** An embedded database in memory (the tests'), copied from the template's tarball when there is one. */
async function openInMemory(template: TemplateSource | false): Promise<PGlite> {
  const tarball = template === false ? undefined : template.tarball();
  const copy = tarball === undefined ? undefined : await startedCopy(new PGlite({ ...PGLITE_OPTIONS, loadDataDir: tarball }));
  return copy ?? ready(new PGlite(PGLITE_OPTIONS));
}

/** The embedded database in `pgdata`, a fresh one copied from the template when there is one. */
async function openDataDir(pgdata: string, template: TemplateSource | false): Promise<{ client: PGlite; created?: Database['created'] }> {
  if (template === false || holdsDatabase(pgdata)) {
    const created = holdsDatabase(pgdata) ? undefined : 'initdb';
    return { client: await ready(new PGlite(pgdata, PGLITE_OPTIONS)), ...(created === undefined ? {} : { created }) };
  }
  if (template.copyTo(pgdata)) {
    const copy = await startedCopy(new PGlite(pgdata, PGLITE_OPTIONS));
    if (copy !== undefined) return { client: copy, created: template.migrated ? 'migrated template' : 'template' };
    // A damaged template costs this start its initdb; the next `npm install` makes it again.
    template.discard();
  }
  rmSync(pgdata, { recursive: true, force: true });
  return { client: await ready(new PGlite(pgdata, PGLITE_OPTIONS)), created: 'initdb' };
}

/**
 * Makes a template's data directory in `pgdata` (empty): initdb, or a copy of `from`, then
 * `prepare` on it (the migrations), and answers the result as a tarball too.
 */
export async function prepareDataDir(
  pgdata: string,
  from: TemplateSource | false = false,
  prepare: (database: Database) => Promise<unknown> = async () => undefined,
): Promise<Blob> {
  const { client } = await openDataDir(pgdata, from);
  try {
    await prepare(embeddedDatabase(client, () => undefined));
    return await client.dumpDataDir('none');
  } finally {
    await client.close();
  }
}

/** Rows of a raw query; both drivers answer with `{ rows }`. */
export async function rows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return (result as { rows: T[] }).rows;
}

export async function one<T>(db: Db, query: SQL): Promise<T | undefined> {
  const [first] = await rows<T>(db, query);
  return first;
}

const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Runs `work` in one transaction. Serialization failures and deadlocks are retried, so the
 * loser of a race sees the winner's outcome instead of a 500.
 */
export async function transaction<T>(db: Db, work: (tx: Db) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction((tx) => work(tx as unknown as Db));
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
    }
  }
}

/**
 * A statement run on its own (no transaction, e.g. one money function call) is tried again when
 * the database rolled it back for a serialization failure or a deadlock.
 */
export async function retrying<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
    }
  }
}

/** A serialization failure or a deadlock: the work can be tried again from the start. */
export function isRetryable(error: unknown): boolean {
  return RETRYABLE.has(errorCode(error) ?? '');
}

/** PostgreSQL's SQLSTATE of an error, looking through drizzle's wrapper. */
export function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error; current !== undefined && current !== null;) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * SQLSTATEs of a database that is gone rather than a query that is wrong: lost connections
 * (class 08), shutdowns and restarts (57P01-57P05), a dropped database (3D000), a primary
 * demoted to a standby under the session (25006, read-only transaction: a switchover), and a schema
 * that is not there (undefined table or schema: dropped, or never migrated). Besides these, any
 * error the server sends as FATAL or PANIC: it ends the session, whatever its code (a database
 * that refuses connections, 55000 with ALLOW_CONNECTIONS false; too many connections, 53300).
 */
const UNAVAILABLE_STATES = new Set(['25006', '57P01', '57P02', '57P03', '57P04', '57P05', '3D000', '42P01', '3F000']);
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
/** What pg and PGlite say, without a code, when the connection or the engine is gone. */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|PGlite is clos(ed|ing))/;

/** Whether `error` (or what it wraps) says the database cannot be reached or is not migrated. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const pending: unknown[] = [error];
  // Bounded: a cause chain is short, and one that loops must not hang the error handler.
  for (let steps = 0; pending.length > 0 && steps < 16; steps++) {
    const current = pending.pop();
    if (current === null || typeof current !== 'object') continue;
    const { code, message, cause, errors, severity } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
      severity?: unknown;
    };
    if (typeof code === 'string' && (/^08[0-9A-Z]{3}$/.test(code) || UNAVAILABLE_STATES.has(code) || UNAVAILABLE_NODE_CODES.has(code))) {
      return true;
    }
    if (severity === 'FATAL' || severity === 'PANIC') return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    pending.push(cause);
    // A connection attempt on every address of a host fails as one AggregateError.
    if (Array.isArray(errors)) pending.push(...(errors as unknown[]));
  }
  return false;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (errorCode(error) !== '23505') return false;
  if (constraint === undefined) return true;
  for (let current: unknown = error; current !== undefined && current !== null;) {
    if ((current as { constraint?: unknown }).constraint === constraint) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export { sql };
