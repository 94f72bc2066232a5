import type { AppContext } from '../../platform/context.ts';
import type { LeaderLock } from '../../platform/db/leader.ts';
import type { Logger } from '../../platform/logger.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { PayoutService, ReconcileReport } from './payouts.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Payout requests and outcomes (built in app.ts): the PIX notification route hands it the items naming a send. */
    payouts: PayoutService;
    /** Payout reconciliation (built in app.ts); tests run a pass by hand with the time they want. */
    payoutReconciler: PayoutReconciler;
  }
}

/** The name of the lock that makes one instance the payout reconciler. */
const RECONCILER_LOCK = 'croupier:payout-reconciler';

/**
 * Runs payout reconciliation (PayoutService.reconcile) every PIX_PAYOUT_RECONCILE_S on the one
 * instance holding the leader lock (docs/withdrawals.md, "Reconciliation"). Every step is safe if
 * two instances ever both run it: a status query changes nothing by itself, and complete and fail
 * are exactly-once transitions.
 *
 * The seam (docs/payments.md, "Payouts through Efí"): `run(now)` is one pass; PIX reconciliation
 * of received payments (PIX_RECONCILE_S) can call it in its own pass instead of this timer.
 */
export class PayoutReconciler {
  readonly #ctx: AppContext;
  readonly #payouts: PayoutService;
  readonly #log: Logger;
  readonly #lock: LeaderLock;
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(ctx: AppContext, payouts: PayoutService, log: Logger, lock?: LeaderLock) {
    this.#ctx = ctx;
    this.#payouts = payouts;
    this.#log = log;
    this.#lock = lock ?? ctx.database.leaderLock(RECONCILER_LOCK);
  }

  /** One pass at `now`, if this instance leads; passes run one after another. Answers undefined when another instance leads. */
  run(now: Date = new Date()): Promise<ReconcileReport | undefined> {
    const pass = this.#queue.then(async () => ((await this.#lock.acquire()) ? this.#payouts.reconcile(now, this.#log) : undefined));
    this.#queue = pass.catch(() => undefined);
    return pass;
  }

  start(): void {
    const every = this.#ctx.config.pixPayoutReconcileS * 1000;
    if (this.#running || every === 0) return;
    this.#running = true;
    const next = () => {
      this.#timer = setTimeout(() => {
        this.run()
          .then((report) => {
            if (report !== undefined && report.checked > 0) this.#log.info({ ...report }, 'payout reconciliation pass');
          })
          .catch((error: unknown) => this.#log.warn({ err: loggableError(error) }, 'payout reconciliation pass failed'))
          .finally(() => {
            if (this.#running) next();
          });
      }, every);
      this.#timer.unref();
    };
    next();
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#queue;
    await this.#lock.release();
  }
}
