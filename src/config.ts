import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { FileArgumentError, makeDirectorySync } from './platform/file-arguments.ts';
import { ConnectionUrlError, parseConnectionUrl } from './platform/db/conninfo.ts';
import { LOCALES, type Locale } from './platform/i18n/locale.ts';

/** The one place that reads the environment: every variable of docs/api.md section 11. */
export interface Config {
  /** Shown in authenticator apps next to the account (issuer of the TOTP URL). */
  appName: string;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL itself for LISTEN, leader locks, migrations and commands; DATABASE_URL unless set (a pooler in front: docs/production.md). */
  databaseDirectUrl: string | undefined;
  /** Named prepared statements on the pool: off behind a pooler (DATABASE_DIRECT_URL differs) unless DATABASE_PREPARED_STATEMENTS=on. */
  databasePreparedStatements: boolean;
  /** Connections of each process' pool on DATABASE_URL. */
  databasePoolSize: number;
  redisUrl: string | undefined;
  appKey: Buffer;
  /** APP_URL, or derived from HOST and PORT when unset (docs/api.md section 11): where generated links point. */
  appUrl: string;
  /** Whether APP_URL was set (not derived): the server then says so at start when it differs from where it listens. */
  appUrlSet: boolean;
  frontendUrl: string;
  corsOrigins: string[];
  mailUrl: string | undefined;
  mailFrom: string;
  sessionCookie: string;
  sessionDomain: string | undefined;
  sessionLifetimeMin: number;
  /** How long an instance may serve a session and its user from memory; 0 reads them on every request. */
  sessionCacheS: number;
  passwordTimeoutS: number;
  paymentSandboxSecret: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  defaultCurrency: string;
  pixKey: string;
  pixMerchantName: string;
  pixMerchantCity: string;
  uploadMaxBytes: number;
  trustedProxies: string[];
  /** Secure cookies follow the scheme of APP_URL. */
  secureCookies: boolean;
  /** Whether this instance runs the draw scheduler (DRAW_SCHEDULER=off: tests tick it by hand). */
  drawScheduler: boolean;
  /** `pretty` (human lines through pino-pretty) or `json`; unset: pretty when stdout is a terminal. */
  logFormat: 'pretty' | 'json' | undefined;
  /** GET /metrics (Prometheus): off unless enabled; with a token, scrapes must send it as a Bearer token. */
  metrics: { enabled: boolean; token: string | undefined };
  /** EMAIL_VERIFICATION=on: the verification e-mail goes out at registration and money routes wait for it (docs/api.md section 12). */
  emailVerification: boolean;
  /**
   * REGULATION: `none` (the default: the seed's behaviour, unchanged) or `br` (Law 14.790/2023
   * and the Ministry of Finance's ordinances: verified identity, own-account money, no bonuses,
   * five-year records; docs/api.md section 14, docs/regulation.md).
   */
  regulation: Regulation;
  /**
   * ADMIN_TWO_FACTOR=required: every /api/admin/* route refuses staff whose two-factor is not
   * confirmed (403), the account routes stay open so they can set it up (docs/api.md section 8).
   */
  adminTwoFactor: 'off' | 'required';
  /** APP_LOCALE: the language of every message, e-mail and page (`en`, the default, or `pt_BR`; docs/i18n.md). */
  appLocale: Locale;
  /** APP_LOCALE_NEGOTIATE=on: a request's Accept-Language picks `pt_BR` (`pt`, `pt-BR`) or APP_LOCALE. */
  appLocaleNegotiate: boolean;
  /** Seconds between two PIX reconciliation passes on the leading instance (docs/api.md section 13); 0 turns the job off. */
  pixReconcileS: number;
  /**
   * Look-ups at the PSP (`GET /pix/{e2eid}`, `GET /cob/{txid}`) that notifications may make for one
   * payment method in a minute, counted across instances (PIX_NOTIFICATION_LOOKUPS_PER_MIN).
   */
  pixNotificationLookupsPerMin: number;
  /** How often one instance asks the PSP about payouts still open (PIX_PAYOUT_RECONCILE_S; 0: never, tests run it by hand). */
  pixPayoutReconcileS: number;
  /** Payouts approved longer ago than this are looked up by reconciliation (PIX_PAYOUT_RECONCILE_AFTER_S). */
  pixPayoutReconcileAfterS: number;
  /** The back office's language on a first visit (ADMIN_LOCALE, docs/admin.md); the page remembers a switch. */
  adminLocale: AdminLocale;
}

export const ADMIN_LOCALES = ['en', 'pt-BR'] as const;
export type AdminLocale = (typeof ADMIN_LOCALES)[number];

export const REGULATIONS = ['none', 'br'] as const;
export type Regulation = (typeof REGULATIONS)[number];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** Long enough that guessing it is hopeless (short ones are refused, not trusted); no spaces, as it travels in a header. */
const METRICS_TOKEN = /^[\x21-\x7e]{16,}$/;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function fail(name: string, expected: string, got: string): never {
  throw new ConfigError(`Invalid ${name}: expected ${expected}, got ${JSON.stringify(got)}.`);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    fail(name, `an integer from ${min} to ${max}`, raw);
  }
  return Number(raw);
}

function url(env: Env, name: string, fallback: string | undefined, protocols: string[]): string | undefined {
  const raw = read(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return fail(name, `a URL (${protocols.join(', ')})`, raw);
  }
  if (!protocols.includes(parsed.protocol)) fail(name, `a URL (${protocols.join(', ')})`, raw);
  return raw.replace(/\/+$/, '');
}

/** A PostgreSQL URL as libpq reads it: several hosts allowed (a formation: src/platform/db/conninfo.ts). */
function postgresUrl(env: Env, name: string, fallback: string | undefined): string | undefined {
  const raw = read(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  try {
    parseConnectionUrl(raw);
  } catch (error) {
    if (!(error instanceof ConnectionUrlError)) throw error;
    // The URL's password stays out of the message (it goes to the terminal and the logs).
    return fail(name, `a URL (postgres:, postgresql:; ${error.message})`, raw.replace(/^([^:/]+:\/\/[^:@/]*):[^@/]*@/, '$1:***@'));
  }
  return raw.replace(/\/+$/, '');
}

function origin(name: string, raw: string): string {
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
    return parsed.origin;
  } catch {
    return fail(name, 'a comma-separated list of http(s) origins', raw);
  }
}

function proxies(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw.split(',').map((entry) => {
    const item = entry.trim();
    const [address, bits, extra] = item.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      fail('TRUSTED_PROXIES', 'a comma-separated list of IP addresses or CIDR ranges', item);
    }
    return item;
  });
}

/** Reads a generated secret from DATA_DIR, creating it on first use so every restart sees the same value. */
function generated(dataDir: string, file: string, make: () => string): string {
  const path = join(dataDir, file);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    makeDirectorySync(dataDir);
  } catch (error) {
    // One line at start (`DATA_DIR=/proc/nope`), instead of Node's recursive mkdir retrying forever.
    if (error instanceof FileArgumentError) throw new ConfigError(`Invalid DATA_DIR: ${error.message}`);
    throw error;
  }
  const value = make();
  writeFileSync(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return value;
}

function appKey(env: Env, dataDir: string): Buffer {
  const raw = read(env, 'APP_KEY') ?? generated(dataDir, 'app.key', () => `base64:${randomBytes(32).toString('base64')}`);
  // Laravel writes its key as "base64:..."; accepting the prefix lets an operator reuse the old .env line.
  const key = Buffer.from(raw.replace(/^base64:/, ''), 'base64');
  if (key.length !== 32) fail('APP_KEY', '32 bytes in base64', raw.slice(0, 8) + '…');
  return key;
}

/** Addresses that say "this machine" (loopback) or "every interface" (wildcard): links to them say `localhost`. */
const LOCAL_HOSTS = /^(localhost|127(\.\d{1,3}){3}|::1|0\.0\.0\.0|::|::ffff:127(\.\d{1,3}){3}|::ffff:0\.0\.0\.0)$/i;

/**
 * APP_URL when unset (docs/api.md section 11): `http://localhost:{PORT}`, or `http://{HOST}:{PORT}`
 * when HOST names one interface other than loopback, so that links point where the server listens.
 */
export function defaultAppUrl(host: string, port: number): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (LOCAL_HOSTS.test(bare)) return `http://localhost:${port}`;
  return `http://${isIP(bare) === 6 ? `[${bare}]` : bare}:${port}`;
}

export function loadConfig(env: Env = process.env): Config {
  const dataDir = resolve(read(env, 'DATA_DIR') ?? './data');
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const port = integer(env, 'PORT', 8000, 0, 65535);
  const appUrlSet = read(env, 'APP_URL') !== undefined;
  const appUrl = url(env, 'APP_URL', defaultAppUrl(host, port), ['http:', 'https:'])!;
  const frontendUrl = url(env, 'FRONTEND_URL', 'http://localhost:5173', ['http:', 'https:'])!;
  const corsRaw = read(env, 'CORS_ORIGINS');
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) fail('LOG_LEVEL', LOG_LEVELS.join(', '), logLevel);
  const currency = read(env, 'DEFAULT_CURRENCY') ?? 'BRL';
  if (!/^[A-Z]{3}$/.test(currency)) fail('DEFAULT_CURRENCY', 'a 3-letter upper-case currency code', currency);
  const cookie = read(env, 'SESSION_COOKIE') ?? 'gp_session';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cookie)) fail('SESSION_COOKIE', 'letters, digits, _ or -', cookie);
  const domain = read(env, 'SESSION_DOMAIN');
  if (domain !== undefined && !/^\.?[A-Za-z0-9.-]+$/.test(domain)) fail('SESSION_DOMAIN', 'a host name', domain);
  const mailFrom = read(env, 'MAIL_FROM') ?? 'no-reply@localhost';
  if (!/^[^\s@]+@[^\s@]+$/.test(mailFrom)) fail('MAIL_FROM', 'an e-mail address', mailFrom);
  const merchantName = read(env, 'PIX_MERCHANT_NAME') ?? 'CROUPIER';
  if (merchantName.length > 25) fail('PIX_MERCHANT_NAME', 'at most 25 characters', merchantName);
  const merchantCity = read(env, 'PIX_MERCHANT_CITY') ?? 'SAO PAULO';
  if (merchantCity.length > 15) fail('PIX_MERCHANT_CITY', 'at most 15 characters', merchantCity);
  const drawScheduler = read(env, 'DRAW_SCHEDULER') ?? 'on';
  if (drawScheduler !== 'on' && drawScheduler !== 'off') fail('DRAW_SCHEDULER', 'on or off', drawScheduler);
  const logFormat = read(env, 'LOG_FORMAT');
  if (logFormat !== undefined && logFormat !== 'pretty' && logFormat !== 'json') fail('LOG_FORMAT', 'pretty or json', logFormat);
  const metricsToken = read(env, 'METRICS_TOKEN');
  if (metricsToken !== undefined && !METRICS_TOKEN.test(metricsToken)) {
    fail('METRICS_TOKEN', 'at least 16 printable characters without spaces', `${metricsToken.length} characters`);
  }
  // A token alone turns the endpoint on; METRICS_ENABLED=off wins over it.
  const metricsEnabled = read(env, 'METRICS_ENABLED') ?? (metricsToken === undefined ? 'off' : 'on');
  if (metricsEnabled !== 'on' && metricsEnabled !== 'off') fail('METRICS_ENABLED', 'on or off', metricsEnabled);
  const databaseUrl = postgresUrl(env, 'DATABASE_URL', undefined);
  const databaseDirectUrl = postgresUrl(env, 'DATABASE_DIRECT_URL', databaseUrl);
  if (databaseUrl === undefined && databaseDirectUrl !== undefined) {
    // Alone it would leave the service on the embedded database without a word.
    throw new ConfigError('Invalid DATABASE_DIRECT_URL: it needs DATABASE_URL set too (the URL the pool connects to).');
  }
  // A direct URL of its own says DATABASE_URL is a pooler, which keeps no statement between transactions.
  const prepared = read(env, 'DATABASE_PREPARED_STATEMENTS') ?? (databaseDirectUrl === databaseUrl ? 'on' : 'off');
  if (prepared !== 'on' && prepared !== 'off') fail('DATABASE_PREPARED_STATEMENTS', 'on or off', prepared);
  const emailVerification = read(env, 'EMAIL_VERIFICATION') ?? 'off';
  if (emailVerification !== 'on' && emailVerification !== 'off') fail('EMAIL_VERIFICATION', 'on or off', emailVerification);
  const adminTwoFactor = read(env, 'ADMIN_TWO_FACTOR') ?? 'off';
  if (adminTwoFactor !== 'off' && adminTwoFactor !== 'required') fail('ADMIN_TWO_FACTOR', 'off or required', adminTwoFactor);
  const regulation = read(env, 'REGULATION') ?? 'none';
  if (!(REGULATIONS as readonly string[]).includes(regulation)) fail('REGULATION', REGULATIONS.join(' or '), regulation);
  const appLocale = read(env, 'APP_LOCALE') ?? 'en';
  if (!(LOCALES as readonly string[]).includes(appLocale)) fail('APP_LOCALE', LOCALES.join(' or '), appLocale);
  const negotiate = read(env, 'APP_LOCALE_NEGOTIATE') ?? 'off';
  if (negotiate !== 'on' && negotiate !== 'off') fail('APP_LOCALE_NEGOTIATE', 'on or off', negotiate);
  const adminLocale = read(env, 'ADMIN_LOCALE') ?? 'en';
  if (!(ADMIN_LOCALES as readonly string[]).includes(adminLocale)) fail('ADMIN_LOCALE', ADMIN_LOCALES.join(' or '), adminLocale);
  const pixKey = read(env, 'PIX_KEY') ?? generated(dataDir, 'pix.key', randomUUID);
  if (pixKey.length > 77) fail('PIX_KEY', 'at most 77 characters', pixKey);

  return {
    appName: read(env, 'APP_NAME') ?? 'croupier',
    host,
    port,
    dataDir,
    databaseUrl,
    databaseDirectUrl,
    databasePreparedStatements: prepared === 'on',
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    redisUrl: url(env, 'REDIS_URL', undefined, ['redis:', 'rediss:']),
    appKey: appKey(env, dataDir),
    appUrl,
    appUrlSet,
    frontendUrl,
    corsOrigins: (corsRaw ?? frontendUrl).split(',').map((item) => origin('CORS_ORIGINS', item.trim())),
    mailUrl: url(env, 'MAIL_URL', undefined, ['smtp:', 'smtps:']),
    mailFrom,
    sessionCookie: cookie,
    sessionDomain: domain,
    // REGULATION=br: idle sessions end after 30 minutes (Portaria SPA/MF 1.231/2024, docs/regulation.md).
    sessionLifetimeMin:
      regulation === 'br' ? integer(env, 'SESSION_LIFETIME_MIN', 30, 1, 30) : integer(env, 'SESSION_LIFETIME_MIN', 120, 1, 525600),
    sessionCacheS: integer(env, 'SESSION_CACHE_S', 30, 0, 3600),
    passwordTimeoutS: integer(env, 'PASSWORD_TIMEOUT_S', 10800, 1, 31536000),
    paymentSandboxSecret:
      read(env, 'PAYMENT_SANDBOX_SECRET') ?? generated(dataDir, 'sandbox.secret', () => randomBytes(32).toString('hex')),
    logLevel: logLevel as Config['logLevel'],
    defaultCurrency: currency,
    pixKey,
    pixMerchantName: merchantName,
    pixMerchantCity: merchantCity,
    uploadMaxBytes: integer(env, 'UPLOAD_MAX_BYTES', 5242880, 1, 1073741824),
    trustedProxies: proxies(read(env, 'TRUSTED_PROXIES')),
    secureCookies: appUrl.startsWith('https:'),
    drawScheduler: drawScheduler === 'on',
    logFormat,
    metrics: { enabled: metricsEnabled === 'on', token: metricsToken },
    emailVerification: emailVerification === 'on',
    regulation: regulation as Regulation,
    adminTwoFactor,
    appLocale: appLocale as Locale,
    appLocaleNegotiate: negotiate === 'on',
    adminLocale: adminLocale as AdminLocale,
    pixReconcileS: integer(env, 'PIX_RECONCILE_S', 300, 0, 86400),
    pixNotificationLookupsPerMin: integer(env, 'PIX_NOTIFICATION_LOOKUPS_PER_MIN', 6000, 1, 10000000),
    pixPayoutReconcileS: integer(env, 'PIX_PAYOUT_RECONCILE_S', 300, 0, 86400),
    pixPayoutReconcileAfterS: integer(env, 'PIX_PAYOUT_RECONCILE_AFTER_S', 600, 0, 2592000),
  };
}
