import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from './db/client.ts';
import { describeHosts } from './db/conninfo.ts';

/** What a start came to, for the one line an operator reads first. */
export interface StartFacts {
  config: Config;
  database: Pick<Database, 'kind' | 'url' | 'directUrl'>;
  /** How many migrations this start applied, of how many there are; all of them with a new DATA_DIR copied from the migrated template. */
  migrations: { applied: number; total: number; fromTemplate?: true };
  workers: number;
  /** The port the server listens on (PORT, or the one the system chose for PORT=0). */
  port: number;
}

/** A Redis URL without its credentials: host, port and database. */
function where(url: string, defaultPort: number): string {
  const parsed = new URL(url);
  const database = parsed.pathname.replace(/^\//, '');
  return `${parsed.hostname}:${parsed.port === '' ? defaultPort : parsed.port}${database === '' ? '' : `/${database}`}`;
}

function describeDatabase(config: Config, database: StartFacts['database']): string {
  if (database.kind === 'pglite' || database.url === undefined) return `embedded ${join(config.dataDir, 'pgdata')}`;
  const pool = `PostgreSQL ${describeHosts(database.url)}`;
  if (database.directUrl === undefined || database.directUrl === database.url) return pool;
  return `${pool} through a pooler (direct ${describeHosts(database.directUrl)})`;
}

function describeScheduler(config: Config, database: StartFacts['database']): string {
  if (!config.drawScheduler) return 'off';
  if (database.kind === 'pglite') return 'leads (the embedded database has one process)';
  return 'leader-elected (the instance that leads says so in its log)';
}

function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/**
 * One line at start: the database, DATA_DIR, migrations, workers, the draw scheduler's role,
 * Redis, the URL links point at, the modes that change what players are asked (REGULATION,
 * EMAIL_VERIFICATION: an operator confirms them here rather than by trying), and the pid that
 * stops the service (SIGTERM; the primary's with several workers). Credentials of the URLs stay out.
 */
export function startupSummary(facts: StartFacts): { message: string; startup: Record<string, unknown> } {
  const { config, database, migrations, workers } = facts;
  const startup = {
    url: config.appUrl,
    listening: hostPort(config.host, facts.port),
    database: describeDatabase(config, database),
    dataDir: config.dataDir,
    migrations,
    workers,
    scheduler: describeScheduler(config, database),
    redis: config.redisUrl === undefined ? 'off' : where(config.redisUrl, 6379),
    regulation: config.regulation,
    emailVerification: config.emailVerification ? 'on' : 'off',
    locale: config.appLocaleNegotiate ? `${config.appLocale} (Accept-Language negotiated)` : config.appLocale,
    pid: process.pid,
  };
  const applied =
    migrations.applied === 0
      ? `up to date (${migrations.total})`
      : `${migrations.applied} applied${migrations.fromTemplate === true ? ' (a new DATA_DIR, copied from the migrated template)' : ''}, ${migrations.total} in total`;
  const message =
    `croupier ready at ${startup.url} (listening on ${startup.listening}); database: ${startup.database}; DATA_DIR: ${startup.dataDir}; ` +
    `migrations: ${applied}; workers: ${workers}; draw scheduler: ${startup.scheduler}; Redis: ${startup.redis}; ` +
    `REGULATION: ${startup.regulation}; EMAIL_VERIFICATION: ${startup.emailVerification}; APP_LOCALE: ${startup.locale}; pid: ${startup.pid} (SIGTERM or Ctrl-C stops it)`;
  return { message, startup };
}

const LOCAL = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;
const WILDCARD = /^(0\.0\.0\.0|::|\[::\])$/;

/**
 * When APP_URL is set and does not name where this server listens, the line that says so (links
 * point at APP_URL: right behind a proxy, a mistake otherwise); undefined when it does.
 */
export function appUrlNote(config: Config, port: number): string | undefined {
  if (!config.appUrlSet) return undefined;
  const url = new URL(config.appUrl);
  const urlPort = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const sameHost = WILDCARD.test(config.host) || (LOCAL.test(url.hostname) && LOCAL.test(config.host)) || url.hostname === config.host;
  if (urlPort === port && sameHost && url.protocol === 'http:') return undefined;
  return (
    `APP_URL is ${config.appUrl}, not where this server listens (http://${hostPort(config.host, port)}): ` +
    'generated links (payment pages, launch pages, files, paginator links, the OpenAPI server) point at APP_URL'
  );
}
