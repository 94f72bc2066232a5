import type { FastifyInstance } from 'fastify';
import { loggableError } from './log-safety.ts';

const EVERY_MS = 10 * 60 * 1000;

declare module 'fastify' {
  interface FastifyInstance {
    /** Sweeps every owner now, as the timer does every ten minutes (tests call it instead of waiting). */
    housekeeping(): Promise<void>;
  }
}

/** Something that keeps expired rows (idle sessions, finished rate-limit windows, ended game sessions) and can drop them. */
export interface Prunable {
  prune(): Promise<number>;
}

/**
 * Asks each owner to delete what has expired. Expiry is already enforced when rows are read;
 * this only keeps the tables small, so each owner decides what "expired" means for its rows.
 */
export async function sweep(owners: Prunable[]): Promise<void> {
  for (const owner of owners) await owner.prune();
}

export function scheduleHousekeeping(app: FastifyInstance, owners: Prunable[]): void {
  let timer: NodeJS.Timeout | undefined;
  app.decorate('housekeeping', () => sweep(owners));
  app.addHook('onReady', async () => {
    timer = setInterval(() => {
      sweep(owners).catch((error: unknown) => app.log.warn({ err: loggableError(error) }, 'housekeeping failed'));
    }, EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}
