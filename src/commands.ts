import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, type Config } from './config.ts';
import { WorkersError } from './cluster.ts';
import { builtInAdapters } from './modules/games/adapters/registry.ts';
import { CATALOGUE_TOPIC } from './modules/games/catalogue/catalogue.ts';
import { formatSyncReport, syncCatalogue, syncChanged, SyncError } from './modules/games/catalogue/sync.ts';
import { formatSeedReport, seedDemo } from './modules/games/demo-provider/seed.ts';
import { importNationalList } from './modules/limits/national-list.ts';
import { dailyReport, isReportDate } from './modules/reports/daily.ts';
import { writeReport } from './modules/reports/files.ts';
import { createOrPromoteAdmin, UsageError } from './modules/users/admin-create.ts';
import { UserIdentity } from './modules/users/identity.ts';
import { formatLedgerReport, verifyLedger } from './modules/wallet/verify.ts';
import { reconcile, registerWebhook } from './modules/pix/commands.ts';
import { PasswordHasher } from './platform/auth/passwords.ts';
import type { CommandAnswer } from './platform/command-channel.ts';
import { Keyring } from './platform/crypto.ts';
import { assertReadableFile, FileArgumentError, makeDirectory } from './platform/file-arguments.ts';
import { loggableError } from './platform/log-safety.ts';
import type { Database } from './platform/db/client.ts';
import { DataDirLockedError } from './platform/db/lock.ts';
import { listMigrations, migrate } from './platform/db/migrate.ts';
import { connectRedis } from './platform/redis.ts';
import { backingSessionStore } from './platform/session/backing-store.ts';
import { SESSIONS_TOPIC, userKey } from './platform/session/cached-store.ts';
import { LocalDiskStorage } from './platform/storage/local-disk.ts';

/**
 * The commands that need the database, written once for the two places they run: the command
 * line's own process (src/cli.ts), and a server holding the embedded database, which carries
 * them out for the command line over its local channel (src/server.ts). Each parses its
 * arguments, then asks `open` for the database; what it prints goes to a transcript, which the
 * command line prints and a server sends back, so both show the same output and exit code.
 */
export class Transcript {
  stdout = '';
  stderr = '';

  out(text: string): void {
    this.stdout += `${text}\n`;
  }

  err(text: string): void {
    this.stderr += `${text}\n`;
  }
}

export interface CommandEnv {
  config: Config;
  database: Database;
  /** Tells every server's caches (this one's too, when a server runs the command) that `topic` (`key` in it) changed. */
  publish(topic: string, key?: string): Promise<void>;
}

/** Runs `work` on a database: the command line opens its own, a server lends its. */
export type Opener = <T>(work: (env: CommandEnv) => Promise<T>) => Promise<T>;

type DatabaseCommand = (args: string[], open: Opener, out: Transcript) => Promise<number>;

/** A change made, then announced; an announcement that fails is said and undoes nothing: caches see the change when their entries age out. */
async function announce(env: CommandEnv, out: Transcript, within: string, topic: string, key?: string): Promise<void> {
  try {
    await env.publish(topic, key);
  } catch (error) {
    out.err(
      `The change is made, but running servers could not be told (${error instanceof Error ? error.message : String(error)}); ` +
        `they see it within ${within}.`,
    );
  }
}

/** Ends every session of `userId` in the store the servers use: Redis with REDIS_URL, the sessions table otherwise. */
async function endSessions(config: Config, database: Database, userId: number): Promise<void> {
  const redis = config.redisUrl === undefined ? undefined : connectRedis(config.redisUrl);
  try {
    await backingSessionStore(database.db, new UserIdentity(), redis, config.sessionLifetimeMin * 60).destroyForUser(userId);
  } finally {
    await redis?.quit();
  }
}

/** The database after the pending migrations: each command migrates first, wherever it runs. */
function migrated<T>(open: Opener, work: (env: CommandEnv) => Promise<T>): Promise<T> {
  return open(async (env) => {
    await migrate(env.database);
    return work(env);
  });
}

export const DATABASE_COMMANDS: Readonly<Record<string, DatabaseCommand>> = {
  async migrate(_args, open, out) {
    const { applied, created } = await open(async ({ database }) => ({ applied: await migrate(database), created: database.created }));
    // A new DATA_DIR copied from the migrated template comes with every migration (template.ts).
    if (created === 'migrated template')
      out.out(`Created the embedded database from the migrated template: every migration (${listMigrations().length}) applied.`);
    out.out(applied.length === 0 ? 'Nothing to migrate.' : `Applied: ${applied.join(', ')}`);
    return 0;
  },

  async 'admin:create'(args, open, out) {
    const { values } = parseArgs({ args, options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } } });
    if (values.email === undefined || values.password === undefined) {
      out.err('admin:create needs --email and --password.');
      return 2;
    }
    const input = { email: values.email, password: values.password, name: values.name };
    const id = await migrated(open, async (env) => {
      const { config, database } = env;
      const { id: userId, promoted } = await createOrPromoteAdmin(database.db, new PasswordHasher(), input);
      // Committed: the old password's sessions end (a reset password lets no one stay in), and
      // running servers drop the user's cached sessions now instead of serving the old roles,
      // status and name for up to SESSION_CACHE_S (docs/architecture.md, "Session cache").
      if (promoted) await endSessions(config, database, userId);
      await announce(env, out, `SESSION_CACHE_S (${config.sessionCacheS} s)`, SESSIONS_TOPIC, userKey(userId));
      return userId;
    });
    out.out(String(id));
    return 0;
  },

  async 'seed:demo'(args, open, out) {
    const { values } = parseArgs({ args, options: { password: { type: 'string' } } });
    if (values.password !== undefined && [...values.password].length < 8)
      throw new UsageError('The password must be at least 8 characters.');
    const report = await migrated(open, async (env) => {
      const { config, database } = env;
      const seeded = await seedDemo(
        {
          db: database.db,
          keys: new Keyring(config.appKey),
          storage: new LocalDiskStorage(config.dataDir),
          hasher: new PasswordHasher(),
          currency: config.defaultCurrency,
          regulation: config.regulation,
          locale: config.appLocale,
        },
        { password: values.password },
      );
      // Servers drop their cached catalogue now.
      await announce(env, out, "the catalogue cache's age limit (60 s)", CATALOGUE_TOPIC);
      return seeded;
    });
    out.out(formatSeedReport(report));
    return 0;
  },

  async 'report:daily'(args, open, out) {
    const { date, dir } = reportArgs(args);
    // Before the database: a directory that cannot be made stops the command at once.
    await makeDirectory(dir, 0o700);
    const manifest = await migrated(open, async ({ config, database }) =>
      writeReport(await dailyReport(database.db, date, config.defaultCurrency), dir),
    );
    out.out(`Daily report of ${date} (São Paulo) in ${dir}:`);
    for (const file of manifest.files) out.out(`  ${file.name}  ${file.rows} rows  sha256 ${file.sha256}`);
    out.out('  manifest.json');
    return 0;
  },

  async 'exclusions:import'(args, open, out) {
    const file = exclusionsFile(args);
    await assertReadableFile(file);
    const started = Date.now();
    const { cpfs } = await migrated(open, ({ database }) => importNationalList(database.db, file));
    out.out(`National self-exclusion list imported from ${file}: ${cpfs} CPFs (${((Date.now() - started) / 1000).toFixed(1)} s).`);
    return 0;
  },

  async 'games:sync'(args, open, out) {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    if (positionals.length !== 1) throw new UsageError('games:sync needs one provider code: croupier games:sync <provider code>.');
    const code = positionals[0]!;
    try {
      const report = await migrated(open, async (env) => {
        const synced = await syncCatalogue(
          { db: env.database.db, keys: new Keyring(env.config.appKey), adapters: builtInAdapters(), regulation: env.config.regulation },
          code,
        );
        // Servers drop their cached catalogue now, as after an admin's change.
        if (syncChanged(synced)) await announce(env, out, "the catalogue cache's age limit (60 s)", CATALOGUE_TOPIC);
        return synced;
      });
      out.out(formatSyncReport(report));
      return 0;
    } catch (error) {
      if (!(error instanceof SyncError)) throw error;
      out.err(error.message);
      return 1;
    }
  },

  async 'pix:webhook'(args, open, out) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'skip-mtls': { type: 'boolean' } } });
    const [code, ...extra] = positionals;
    if (code === undefined || extra.length > 0)
      throw new UsageError('pix:webhook needs the payment method code: croupier pix:webhook <code>.');
    return migrated(open, (env) => registerWebhook(env, code, { skipMtls: values['skip-mtls'] === true }, out));
  },

  async 'pix:reconcile'(args, open, out) {
    const { values } = parseArgs({ args, options: { from: { type: 'string' }, to: { type: 'string' } } });
    const from = values.from === undefined ? undefined : instant('--from', values.from, 'start');
    const to = values.to === undefined ? undefined : instant('--to', values.to, 'end');
    if (to !== undefined && from === undefined) throw new UsageError('pix:reconcile --to needs --from.');
    if (from !== undefined && to !== undefined && to <= from) throw new UsageError('pix:reconcile: --to must be after --from.');
    return migrated(open, (env) => reconcile(env, { from, to: from === undefined ? undefined : (to ?? new Date()) }, out));
  },

  async 'ledger:verify'(_args, open, out) {
    const report = await migrated(open, ({ database }) => verifyLedger(database.db));
    const text = formatLedgerReport(report);
    if (report.problems.length > 0) {
      out.err(text);
      return 1;
    }
    out.out(text);
    return 0;
  },
};

/** exclusions:import's one argument, the file, made absolute. */
function exclusionsFile(args: string[]): string {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new UsageError('exclusions:import needs one file: croupier exclusions:import FILE (one CPF a line).');
  return resolve(positionals[0]!);
}

/** report:daily's `--date` (a calendar day) and `--out` (default `./report-<date>`), the directory made absolute. */
function reportArgs(args: string[]): { date: string; dir: string } {
  const { values } = parseArgs({ args, options: { date: { type: 'string' }, out: { type: 'string' } } });
  if (values.date === undefined || !isReportDate(values.date)) throw new UsageError('report:daily needs --date YYYY-MM-DD (2000 to 2999).');
  return { date: values.date, dir: resolve(values.out ?? `report-${values.date}`) };
}

/**
 * The arguments as the command line sends them to a server carrying the command out: a path is
 * made absolute here, where it was typed, since the server's working directory is another.
 */
export function commandLineArgs(command: string, args: string[]): string[] {
  if (command === 'exclusions:import') {
    try {
      return [exclusionsFile(args)];
    } catch {
      return args;
    }
  }
  if (command !== 'report:daily') return args;
  try {
    const { date, dir } = reportArgs(args);
    return ['--date', date, '--out', dir];
  } catch {
    // The command itself says what is wrong.
    return args;
  }
}

/** An ISO 8601 instant, or a bare date meaning the `start` or `end` of that UTC day. */
function instant(option: string, raw: string, edge: 'start' | 'end'): Date {
  const bare = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const at = new Date(bare ? `${raw}T${edge === 'start' ? '00:00:00.000' : '23:59:59.999'}Z` : raw);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw))
    throw new UsageError(`${option} must be an ISO 8601 date or date-time.`);
  return at;
}

/** An expected failure's exit code and its one line; undefined for a fault (whose stack is for the operator). */
export function expectedFailure(error: unknown): { code: number; line: string } | undefined {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof WorkersError ||
    error instanceof FileArgumentError
  ) {
    return { code: 1, line: error.message };
  }
  if (error instanceof Error && (error.name === 'UsageError' || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS_'))) {
    return { code: 2, line: error.message };
  }
  return undefined;
}

/**
 * A server carrying out a command for the command line, on its own database: the same function
 * the command line would run, its output and exit code answered. A fault is logged here (never
 * the arguments, which may hold a password) and answered in one line.
 */
export async function carryOut(
  request: { command: string; args: string[] },
  open: Opener,
  onFault: (error: unknown) => void,
): Promise<CommandAnswer> {
  const out = new Transcript();
  const command = Object.hasOwn(DATABASE_COMMANDS, request.command) ? DATABASE_COMMANDS[request.command] : undefined;
  if (command === undefined) {
    out.err(`A running server does not carry out "${request.command}".`);
    return { code: 2, ...out };
  }
  try {
    return { code: await command(request.args, open, out), ...out };
  } catch (error) {
    const expected = expectedFailure(error);
    if (expected !== undefined) {
      out.err(expected.line);
      return { code: expected.code, ...out };
    }
    onFault(error);
    // The message as the log would keep it: a failed query's parameters (a password hash) stay out.
    out.err(`The server could not carry out ${request.command} (${String(loggableError(error).message)}); its log has the details.`);
    return { code: 1, ...out };
  }
}
