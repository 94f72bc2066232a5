import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.ts';
import { loggableError } from './log-safety.ts';

const EVERY_MS = 10 * 60 * 1000;

/**
 * Deletes what has expired: idle sessions and finished rate-limit windows. Expiry is already
 * enforced when rows are read; this only keeps the tables small.
 */
export async function sweep(ctx: AppContext): Promise<void> {
  await ctx.sessions.store.prune(ctx.sessions.idleSeconds);
  await ctx.db.execute(sql`delete from rate_limits where reset_at < now()`);
}

export function scheduleHousekeeping(app: FastifyInstance, ctx: AppContext): void {
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    timer = setInterval(() => {
      sweep(ctx).catch((error: unknown) => app.log.warn({ err: loggableError(error) }, 'housekeeping failed'));
    }, EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
