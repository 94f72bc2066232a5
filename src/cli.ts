import cluster from 'node:cluster';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { commandLineArgs, DATABASE_COMMANDS, expectedFailure, Transcript, type Opener } from './commands.ts';
import { loadConfig, type Config } from './config.ts';
import { notifyInvalidation } from './platform/cache/pg-invalidation.ts';
import { publishInvalidation } from './platform/cache/redis-invalidation.ts';
import { askServer, type CommandAnswer } from './platform/command-channel.ts';
import { commandDatabase, openDatabase, type Database } from './platform/db/client.ts';
import { DataDirLockedError } from './platform/db/lock.ts';
import { migrate } from './platform/db/migrate.ts';
import { logDestination } from './platform/log-output.ts';
import { connectRedis } from './platform/redis.ts';
import { startupSummary } from './platform/startup-summary.ts';
import { runPrimary, workerCount } from './cluster.ts';
import { countMigrations, serve, settlePort } from './server.ts';

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
  games:sync <provider code>                  import the provider's game list into its provider games (Hub88):
                                              new ones created, renamed ones renamed, gone ones disabled
  ledger:verify                               recompute every balance from the ledger; exit 1 on any difference
  report:daily --date YYYY-MM-DD [--out DIR]  that São Paulo day's bettors, bets, top-ups, withdrawals and gross
                                              gaming revenue per game as CSV files and manifest.json
                                              (default DIR: ./report-YYYY-MM-DD)
  exclusions:import FILE                      replace the national self-exclusion list with FILE's CPFs (one a line),
                                              in one transaction (REGULATION=br checks it)
  pix:webhook <code> [--skip-mtls]            tell the PSP of a pix-api/efi payment method to notify this service
                                              (PUT /webhook/{pix_key}; --skip-mtls: Efí's header for TLS ended by a proxy)
  pix:reconcile [--from T --to T]             one PIX reconciliation pass: payments the PSPs list since the checkpoint
                                              (or in the window given), expired charges, pending returns; exit 1 on a failure

While a server holds the embedded database, that server carries out the other commands.
`;

/** How long a command waits for a server that holds the embedded database but does not take commands yet (it is starting). */
const SERVER_START_WAIT_MS = 60_000;
const RETRY_MS = 250;
/** A command a server carries out answers within this (ledger:verify reads every ledger line). */
const ANSWER_WITHIN_MS = 10 * 60_000;

/**
 * Tells servers running beside this command that it changed what their caches may hold, on the
 * bus they listen to (app.ts): Redis when REDIS_URL is set, PostgreSQL's NOTIFY otherwise. The
 * embedded database belongs to this process, so no server is running to be told.
 */
async function publishToServers(config: Config, database: Database, topic: string, key?: string): Promise<void> {
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
}

/** The command's own database: PostgreSQL itself, or the embedded database, locked for this process. */
const ownDatabase: Opener = async (work) => {
  const config = loadConfig();
  const database = await openDatabase(commandDatabase(config));
  try {
    return await work({ config, database, publish: (topic, key) => publishToServers(config, database, topic, key) });
  } finally {
    await database.close();
  }
};

function write(output: Pick<CommandAnswer, 'stdout' | 'stderr'>): void {
  process.stdout.write(output.stdout);
  process.stderr.write(output.stderr);
}

/**
 * A command that needs the database runs on the command's own; when a server holds the embedded
 * database, that server carries it out over its local channel (docs/api.md section 11) and this
 * process prints its output and exits with its code. A server still starting is waited for; one
 * that cannot take commands, or a command holding the database, stops this one at once.
 */
async function runDatabaseCommand(name: string, typed: string[]): Promise<number> {
  const command = DATABASE_COMMANDS[name]!;
  const args = commandLineArgs(name, typed);
  const deadline = Date.now() + SERVER_START_WAIT_MS;
  let waiting = false;
  for (;;) {
    const out = new Transcript();
    try {
      const code = await command(args, ownDatabase, out);
      write(out);
      return code;
    } catch (error) {
      write(out);
      const holder = error instanceof DataDirLockedError ? error.holder : undefined;
      if (!(error instanceof DataDirLockedError) || holder?.role !== 'serve') throw error;
      const server = `the server (process ${holder.pid}) holding the embedded database in ${error.dataDir}`;
      const asked = await askServer(error.dataDir, { command: name, args }, ANSWER_WITHIN_MS);
      if (asked.kind === 'answered') {
        console.error(`Carried out by ${server}.`);
        write(asked.answer);
        return asked.answer.code;
      }
      if (asked.kind === 'failed') {
        console.error(`Not carried out: ${server} cannot take it (${asked.reason}); stop the server first or set DATABASE_URL.`);
        return 1;
      }
      if (Date.now() >= deadline) {
        console.error(
          `Not carried out: ${server} took no command within ${SERVER_START_WAIT_MS / 1000} s; stop it first or set DATABASE_URL.`,
        );
        return 1;
      }
      if (!waiting) console.error(`Waiting for ${server} to finish starting…`);
      waiting = true;
      await sleep(RETRY_MS);
    }
  }
}

async function run(command: string | undefined, args: string[]): Promise<number> {
  if (command !== undefined && Object.hasOwn(DATABASE_COMMANDS, command)) return runDatabaseCommand(command, args);
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args, options: { workers: { type: 'string' } } });
      const loaded = loadConfig();
      if (cluster.isWorker) {
        await serve(loaded, { migrated: true });
        return 0;
      }
      const workers = workerCount(values.workers, loaded.databaseUrl === undefined);
      const config = await settlePort(loaded);
      if (workers === 1) {
        await serve(config);
        return 0;
      }
      // Once, here, so the workers start on a migrated database instead of queueing on its lock.
      const database = await openDatabase(commandDatabase(config));
      let applied: string[];
      try {
        applied = await migrate(database);
      } finally {
        await database.close();
      }
      const log = pino({ level: config.logLevel }, logDestination(config.logFormat, undefined, process.stdout.isTTY === true)).child({
        role: 'primary',
      });
      const migrations = countMigrations(applied, database);
      return runPrimary(workers, log, {
        // Every worker listens on the port chosen here, which the links they make name.
        env: { PORT: String(config.port) },
        onListening: (port) => {
          const { message, startup } = startupSummary({ config, database: database, migrations, workers, port });
          log.info({ startup }, message);
        },
      });
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
    const expected = expectedFailure(error);
    if (expected !== undefined) {
      console.error(expected.line);
      return expected.code;
    }
    console.error(error);
    return 1;
  }
}
