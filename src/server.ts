import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { openDatabase } from './platform/db/client.ts';
import { migrate } from './platform/db/migrate.ts';

/** Seconds a shutdown may take before the process gives up on open connections. */
const SHUTDOWN_GRACE_MS = 10_000;

export async function serve(config: Config): Promise<FastifyInstance> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  let app: FastifyInstance;
  try {
    await migrate(database);
    app = await buildApp(config, { database });
  } catch (error) {
    await database.close();
    throw error;
  }
  app.addHook('onClose', async () => {
    await app.requestsDrained();
    await database.close();
  });

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
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
  return app;
}
