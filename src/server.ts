import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openDatabase, serverDatabase } from './platform/db/client.ts';
import { migrate } from './platform/db/migrate.ts';

/** Seconds a shutdown may take before the process gives up on open connections. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface ServeOptions {
  /** A cluster worker: its primary migrated the database before forking it. */
  migrated?: boolean;
}

export async function serve(config: Config, options: ServeOptions = {}): Promise<FastifyInstance> {
  const database = await openDatabase(serverDatabase(config));
  let app: FastifyInstance;
  try {
    if (options.migrated !== true) await migrate(database);
    app = await buildApp(config, { database });
  } catch (error) {
    await database.close();
    throw error;
  }
  // Closed after the app, not in an onClose hook: Fastify runs those last-registered first, so a
  // hook added here would end the pool before the draw scheduler's tick and the drain had finished.
  const close = () => app.close().then(() => database.close());

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
  collectStartupGarbage();
  return app;
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
