import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { PasswordHasher } from './platform/auth/passwords.ts';
import { notifyInvalidation } from './platform/cache/pg-invalidation.ts';
import { publishInvalidation } from './platform/cache/redis-invalidation.ts';
import { SESSIONS_TOPIC, userKey } from './platform/session/cached-store.ts';
import { Keyring } from './platform/crypto.ts';
import { CATALOGUE_TOPIC } from './modules/games/catalogue/catalogue.ts';
import { formatSeedReport, seedDemo } from './modules/games/demo-provider/seed.ts';
import { createOrPromoteAdmin, UsageError } from './modules/users/admin-create.ts';
import { UserIdentity } from './modules/users/identity.ts';
import { formatLedgerReport, verifyLedger } from './modules/wallet/verify.ts';
import { commandDatabase, openDatabase, type Database } from './platform/db/client.ts';
import { DataDirLockedError } from './platform/db/lock.ts';
import { migrate } from './platform/db/migrate.ts';
import { connectRedis } from './platform/redis.ts';
import { backingSessionStore } from './platform/session/backing-store.ts';
import { LocalDiskStorage } from './platform/storage/local-disk.ts';
import { runPrimary, workerCount, WorkersError } from './cluster.ts';
import { serve } from './server.ts';

const USAGE = `Usage: croupier <command> [options]

Commands:
  serve [--workers N]                         start the HTTP server (migrates first); N processes on one port
                                              (0: one per core; more than 1 needs DATABASE_URL)
  migrate                                     apply pending database migrations
  admin:create --email E --password P [--name N]
                                              create a super-admin, or promote an existing user
                                              (password set to P: their sessions end)
  seed:demo [--password P]                    the demo provider, its games, in-house games and a funded demo
                                              player (demo@example.com); running it again adds nothing
  ledger:verify                               recompute every balance from the ledger; exit 1 on any difference
`;

async function withDatabase<T>(config: Config, work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase(commandDatabase(config));
  try {
    await migrate(database);
    return await work(database);
  } finally {
    await database.close();
  }
}

/**
 * Tells servers running beside this command that it changed what their caches may hold, on the
 * bus they listen to (app.ts): Redis when REDIS_URL is set, PostgreSQL's NOTIFY otherwise. The
 * embedded database belongs to this process, so no server is running to be told. A failure is
 * said on stderr and undoes nothing: the servers then see the change when their entries age out.
 */
async function announce(config: Config, database: Database, within: string, topic: string, key?: string): Promise<void> {
  try {
    if (config.redisUrl !== undefined) {
      const redis = connectRedis(config.redisUrl);
      try {
        await publishInvalidation(redis, topic, key);
      } finally {
        await redis.quit();
      }
    } else if (database.url !== undefined) {
      await notifyInvalidation(database.db, topic, key);
    }
  } catch (error) {
    console.error(
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

async function run(command: string | undefined, args: string[]): Promise<number> {
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args, options: { workers: { type: 'string' } } });
      const config = loadConfig();
      if (cluster.isWorker) {
        await serve(config, { migrated: true });
        return 0;
      }
      const workers = workerCount(values.workers, config.databaseUrl === undefined);
      if (workers === 1) {
        await serve(config);
        return 0;
      }
      // Once, here, so the workers start on a migrated database instead of queueing on its lock.
      const database = await openDatabase(commandDatabase(config));
      try {
        await migrate(database);
      } finally {
        await database.close();
      }
      return runPrimary(workers, pino({ level: config.logLevel }).child({ role: 'primary' }));
    }
    case 'migrate': {
      const config = loadConfig();
      const database = await openDatabase(commandDatabase(config));
      try {
        const applied = await migrate(database);
        console.log(applied.length === 0 ? 'Nothing to migrate.' : `Applied: ${applied.join(', ')}`);
      } finally {
        await database.close();
      }
      return 0;
    }
    case 'admin:create': {
      const { values } = parseArgs({
        args,
        options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
      });
      if (values.email === undefined || values.password === undefined) {
        console.error('admin:create needs --email and --password.');
        return 2;
      }
      const input = { email: values.email, password: values.password, name: values.name };
      const config = loadConfig();
      const id = await withDatabase(config, async (database) => {
        const { id: userId, promoted } = await createOrPromoteAdmin(database.db, new PasswordHasher(), input);
        // Committed: the old password's sessions end (a reset password lets no one stay in), and
        // running servers drop the user's cached sessions now instead of serving the old roles,
        // status and name for up to SESSION_CACHE_S (docs/architecture.md, "Session cache").
        if (promoted) await endSessions(config, database, userId);
        await announce(config, database, `SESSION_CACHE_S (${config.sessionCacheS} s)`, SESSIONS_TOPIC, userKey(userId));
        return userId;
      });
      console.log(id);
      return 0;
    }
    case 'seed:demo': {
      const { values } = parseArgs({ args, options: { password: { type: 'string' } } });
      if (values.password !== undefined && [...values.password].length < 8)
        throw new UsageError('The password must be at least 8 characters.');
      const config = loadConfig();
      const report = await withDatabase(config, async (database) => {
        const seeded = await seedDemo(
          {
            db: database.db,
            keys: new Keyring(config.appKey),
            storage: new LocalDiskStorage(config.dataDir),
            hasher: new PasswordHasher(),
            currency: config.defaultCurrency,
          },
          { password: values.password },
        );
        // Servers beside this command drop their cached catalogue now.
        await announce(config, database, "the catalogue cache's age limit (60 s)", CATALOGUE_TOPIC);
        return seeded;
      });
      console.log(formatSeedReport(report));
      return 0;
    }
    case 'ledger:verify': {
      const report = await withDatabase(loadConfig(), ({ db }) => verifyLedger(db));
      const text = formatLedgerReport(report);
      if (report.problems.length > 0) {
        console.error(text);
        return 1;
      }
      console.log(text);
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      console.error(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    return await run(command, args);
  } catch (error) {
    // Expected failures are one clear line; anything else keeps its stack for the operator.
    if (error instanceof ConfigError || error instanceof DataDirLockedError || error instanceof WorkersError) {
      console.error(error.message);
      return 1;
    }
    if (error instanceof Error && (error.name === 'UsageError' || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS_'))) {
      console.error(error.message);
      return 2;
    }
    console.error(error);
    return 1;
  }
}
