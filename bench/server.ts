// The server the benchmarks drive, run in its own process by bench/lib/server.ts: the real app
// (config from the environment, migrations, every route) plus two yardstick routes. With
// BENCH_WORKERS=N above 1 it is the primary of `serve --workers N` (src/cluster.ts): it migrates,
// forks N copies of this file as workers on one port, and reports the port once all listen.
import cluster from 'node:cluster';
import { pino } from 'pino';
import { Type } from 'typebox';
import { runPrimary } from '../src/cluster.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { commandDatabase, one, openDatabase, serverDatabase, sql } from '../src/platform/db/client.ts';
import { migrate } from '../src/platform/db/migrate.ts';

const config = loadConfig();
const workers = Number(process.env.BENCH_WORKERS ?? '1');
if (cluster.isPrimary && workers > 1) {
  const migrating = await openDatabase(commandDatabase(config));
  await migrate(migrating);
  await migrating.close();
  let listening = 0;
  cluster.on('listening', (_worker, address) => {
    if (++listening === workers) if (cluster.isPrimary) process.send?.({ type: 'listening', url: `http://127.0.0.1:${address.port}` });
  });
  // The parent drops the IPC channel when it dies; the workers must not outlive it.
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.exit(await runPrimary(workers, pino({ level: config.logLevel }).child({ role: 'bench primary' })));
}
const database = await openDatabase(serverDatabase(config));
if (cluster.isPrimary) await migrate(database);

const app = await buildApp(config, {
  database,
  extraRoutes: (routes, ctx) => {
    const Ok = Type.Object({ ok: Type.Boolean() });
    // The server's own CPU time, so a bench can report CPU per request next to req/s: it moves
    // far less than throughput when other processes compete for the machine.
    routes.get(
      '/bench/cpu',
      { config: { stateless: true }, schema: { hide: true, response: { 200: Type.Object({ micros: Type.Number() }) } } },
      async () => {
        const usage = process.cpuUsage();
        return { micros: usage.user + usage.system };
      },
    );
    // What the framework alone costs: no session, no database.
    routes.get('/bench/bare', { config: { stateless: true }, schema: { hide: true, response: { 200: Ok } } }, async () => ({ ok: true }));
    // The least a session-checked request can cost: one primary-key lookup on the app's own pool.
    routes.get(
      '/bench/floor',
      {
        config: { stateless: true },
        schema: {
          hide: true,
          querystring: Type.Object({ id: Type.Integer({ minimum: 1, default: 1 }) }),
          response: { 200: Type.Object({ id: Type.Union([Type.Integer(), Type.Null()]) }) },
        },
      },
      async (request) => {
        const { id } = request.query as { id: number };
        const row = await one<{ id: string | number }>(ctx.db, sql`select id from users where id = ${id}`);
        return { id: row === undefined ? null : Number(row.id) };
      },
    );
  },
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  // The database after the app: Fastify runs onClose hooks last-registered first (src/server.ts).
  app
    .close()
    .then(() => database.close())
    .then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// The parent (a worker's primary) drops the IPC channel when it dies; the server must not outlive it.
process.once('disconnect', stop);

await app.listen({ host: config.host, port: config.port });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('The bench server has no TCP address.');
if (cluster.isPrimary) process.send?.({ type: 'listening', url: `http://127.0.0.1:${address.port}` });
