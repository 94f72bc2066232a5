import cluster from 'node:cluster';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { carryOut, type Opener } from './commands.ts';
import { defaultAppUrl, type Config } from './config.ts';
import { openCommandChannel, type CommandChannel } from './platform/command-channel.ts';
import { openDatabase, serverDatabase, type Database } from './platform/db/client.ts';
import { DataDirLockedError } from './platform/db/lock.ts';
import { listMigrations, migrate } from './platform/db/migrate.ts';
import { loggableError } from './platform/log-safety.ts';
import { appUrlNote, startupSummary, type StartFacts } from './platform/startup-summary.ts';

/** Seconds a shutdown may take before the process gives up on open connections. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface ServeOptions {
  /** A cluster worker: its primary migrated the database before forking it, and says the start line. */
  migrated?: boolean;
}

/**
 * PORT=0 asks the system for a free port. It is chosen here, before the app is built, so that
 * the default APP_URL and every link made from it name the port the server will listen on.
 */
export async function settlePort(config: Config): Promise<Config> {
  if (config.port !== 0) return config;
  const probe = createServer();
  probe.listen(0, config.host);
  await once(probe, 'listening');
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') return config;
  return { ...config, port: address.port, appUrl: config.appUrlSet ? config.appUrl : defaultAppUrl(config.host, address.port) };
}

/**
 * The embedded database belongs to this process: commands run beside it are carried out here,
 * over a socket in DATA_DIR (src/platform/command-channel.ts), on this process's database and
 * caches. Where the channel cannot open, the server still serves, and says commands must wait.
 */
async function takeCommands(config: Config, database: Database, app: FastifyInstance): Promise<CommandChannel | undefined> {
  // A command carried out here opened no database: the server's was made (or not) at its own start.
  const opened: Database = { ...database, created: undefined };
  const open: Opener = (work) => work({ config, database: opened, publish: (topic, key) => app.invalidation.publish(topic, key) });
  try {
    return await openCommandChannel(
      config.dataDir,
      async (request) => {
        const answer = await carryOut(request, open, (error) =>
          app.log.error({ command: request.command, err: loggableError(error) }, 'command from the command line failed'),
        );
        app.log.info({ command: request.command, code: answer.code }, 'carried out a command for the command line');
        return answer;
      },
      app.log,
    );
  } catch (error) {
    app.log.warn(
      { err: loggableError(error) },
      'commands cannot reach this server (no local socket): stop it before running migrate, admin:create, seed:demo or ledger:verify',
    );
    return undefined;
  }
}

/** How long a server waits for a command holding the embedded database (a seed, a verify) to finish. */
const COMMAND_WAIT_MS = 60_000;

/**
 * The server's database. A command holding the embedded database is short: the server waits for
 * it (saying so once) rather than refusing to start, so the quick start's order does not matter.
 * Another server holding it is refused at once.
 */
async function openServerDatabase(config: Config): Promise<Database> {
  const deadline = Date.now() + COMMAND_WAIT_MS;
  let said = false;
  for (;;) {
    try {
      return await openDatabase(serverDatabase(config));
    } catch (error) {
      if (!(error instanceof DataDirLockedError) || error.holder?.role !== 'command' || Date.now() >= deadline) throw error;
      if (!said)
        process.stderr.write(
          `Waiting for the command (process ${error.holder.pid}) holding the embedded database in ${error.dataDir} to finish…\n`,
        );
      said = true;
      await sleep(250);
    }
  }
}

export async function serve(config: Config, options: ServeOptions = {}): Promise<FastifyInstance> {
  const database = await openServerDatabase(config);
  let app: FastifyInstance;
  let applied: string[] = [];
  let channel: CommandChannel | undefined;
  try {
    if (options.migrated !== true) applied = await migrate(database);
    app = await buildApp(config, { database });
    if (database.kind === 'pglite') channel = await takeCommands(config, database, app);
  } catch (error) {
    await database.close();
    throw error;
  }
  // Closed after the app, not in an onClose hook: Fastify runs those last-registered first, so a
  // hook added here would end the pool before the draw scheduler's tick and the drain had finished.
  // The command channel goes first: a command under way finishes on the open database.
  const close = async () => {
    await channel?.close();
    await app.close();
    await database.close();
  };

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  // A worker whose primary is gone (killed with -9) would serve on unsupervised: it closes too.
  if (cluster.isWorker) process.once('disconnect', () => shutdown('disconnect'));

  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await close();
    throw error;
  }
  if (options.migrated !== true) {
    const port = listeningPort(app, config);
    const { message, startup } = startupSummary({
      config,
      database,
      // migrate() answers the function files it applied too (db/functions/); the line counts migrations.
      migrations: countMigrations(applied, database),
      workers: 1,
      port,
    });
    app.log.info({ startup }, message);
    const note = appUrlNote(config, port);
    if (note !== undefined) app.log.info(note);
  }
  collectStartupGarbage();
  return app;
}

function listeningPort(app: FastifyInstance, config: Config): number {
  const address = app.server.address();
  return address !== null && typeof address === 'object' ? address.port : config.port;
}

/** Long enough for V8 to finish optimising the embedded database's WebAssembly in the background. */
const LATE_COLLECTION_MS = 20_000;

/**
 * A full collection once the server listens, and another when the background compilation of the
 * embedded database's WebAssembly is over. Start-up leaves garbage an idle server never collects:
 * the first start on a fresh DATA_DIR runs initdb in a WebAssembly instance of its own (100+ MB,
 * unreachable once closed, but held while V8 still compiles it), and module loading leaves tens
 * of MB more. Without this the process held 100-200 MB more for as long as nobody used it
 * (docs/deployment.md, "The embedded database's memory").
 */
function collectStartupGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  setTimeout(gc, LATE_COLLECTION_MS).unref();
}

export function countMigrations(applied: string[], database?: Pick<Database, 'created'>): StartFacts['migrations'] {
  const names = new Set(listMigrations().map((migration) => migration.name));
  // A new DATA_DIR copied from the migrated template got every migration with the copy (template.ts).
  if (database?.created === 'migrated template') return { applied: names.size, total: names.size, fromTemplate: true };
  return { applied: applied.filter((name) => names.has(name)).length, total: names.size };
}
