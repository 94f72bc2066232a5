import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { serveClusterMetrics } from './platform/metrics/cluster.ts';

/** A worker that ran this long before dying was healthy: its replacement starts without waiting. */
const STABLE_MS = 30_000;
const FIRST_RESTART_MS = 250;
const MAX_RESTART_MS = 30_000;
/** Workers get the server's own grace (src/server.ts) and a little more before they are killed. */
const STOP_GRACE_MS = 15_000;

export class WorkersError extends Error {
  override name = 'WorkersError';
}

/**
 * `--workers N`: a whole number, `0` for one per core; absent means one. The embedded database
 * belongs to one process (src/platform/db/lock.ts), so it refuses more than one worker.
 */
export function workerCount(raw: string | undefined, embedded: boolean, cores = availableParallelism()): number {
  if (raw === undefined) return 1;
  if (!/^\d{1,4}$/.test(raw)) throw new WorkersError(`--workers must be a whole number (0: one per core), got ${JSON.stringify(raw)}.`);
  const count = Number(raw) === 0 ? cores : Number(raw);
  if (count > 1 && embedded) {
    throw new WorkersError(
      `--workers ${raw} needs PostgreSQL: the embedded database serves one process; set DATABASE_URL or drop --workers.`,
    );
  }
  return count;
}

interface Slot {
  worker: Worker | undefined;
  startedAt: number;
  /** The wait before this slot's next restart, doubled by each quick death. */
  delay: number;
  restart: NodeJS.Timeout | undefined;
}

/**
 * The primary of `serve --workers N`: forks N workers (each runs `serve` itself, sharing the port
 * through node:cluster), replaces one that dies (after a wait that grows while they keep dying
 * young), and on SIGTERM or SIGINT passes SIGTERM to every worker, whose graceful shutdown
 * (src/server.ts) drains it. Resolves with the exit code once every worker has gone: 0 when all
 * closed cleanly. A worker that dies before any worker ever listened means the service cannot
 * start (port taken, bad configuration): the primary stops rather than retrying forever.
 * `options.env` is added to each worker's environment; `options.onListening` is called when the
 * first worker listens (the start line is the primary's to say, once).
 */
export function runPrimary(
  count: number,
  log: Logger,
  options: { env?: Record<string, string>; onListening?: (port: number) => void } = {},
): Promise<number> {
  const slots: Slot[] = [];
  const byId = new Map<number, number>();
  let anyListened = false;
  let stopping = false;
  let failed = false;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));

  const fork = (index: number) => {
    const slot = slots[index]!;
    slot.restart = undefined;
    const worker = cluster.fork(options.env);
    slot.worker = worker;
    slot.startedAt = Date.now();
    byId.set(worker.id, index);
  };

  const finishIfEmpty = () => {
    if (slots.every((slot) => slot.worker === undefined)) resolveDone(failed ? 1 : 0);
  };

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping workers');
    const timer = setTimeout(() => {
      log.error('workers did not stop in time; killing them');
      for (const slot of slots) slot.worker?.process.kill('SIGKILL');
    }, STOP_GRACE_MS);
    timer.unref();
    void done.then(() => clearTimeout(timer));
    for (const slot of slots) {
      clearTimeout(slot.restart);
      slot.restart = undefined;
      slot.worker?.process.kill('SIGTERM');
    }
    finishIfEmpty();
  };

  cluster.on('listening', (worker, address) => {
    if (!anyListened) options.onListening?.(address.port);
    anyListened = true;
    log.debug({ worker: worker.process.pid }, 'worker listening');
  });
  cluster.on('exit', (worker, code, signal) => {
    const index = byId.get(worker.id);
    if (index === undefined) return;
    byId.delete(worker.id);
    const slot = slots[index]!;
    slot.worker = undefined;
    const pid = worker.process.pid;
    if (stopping) {
      if (code !== 0) failed = true;
      finishIfEmpty();
      return;
    }
    if (!anyListened) {
      log.error({ worker: pid, code, signal }, 'a worker exited before the service ever listened; stopping');
      failed = true;
      stop('startup failure');
      return;
    }
    slot.delay = Date.now() - slot.startedAt >= STABLE_MS ? FIRST_RESTART_MS : Math.min(slot.delay * 2, MAX_RESTART_MS);
    log.warn({ worker: pid, code, signal, restartInMs: slot.delay }, 'worker died; starting another');
    slot.restart = setTimeout(() => fork(index), slot.delay);
  });

  serveClusterMetrics();
  for (let index = 0; index < count; index++) {
    // Halved once so a first quick death restarts after FIRST_RESTART_MS.
    slots.push({ worker: undefined, startedAt: 0, delay: FIRST_RESTART_MS / 2, restart: undefined });
    fork(index);
  }
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  log.info({ workers: count }, 'started workers');
  return done;
}
