import type { LeaderLock } from '../../platform/db/leader.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Logger } from '../../platform/logger.ts';
import { PixApiError } from '../payments/pix-api/errors.ts';
import type { PixMethod, PixMethods } from '../payments/pix-api/methods.ts';
import type { PixContext } from './context.ts';
import type { PixReceipts, Settled } from './receipts.ts';
import { advanceCheckpoint, checkpointOf, expiredCharges, expireTopup } from './repository.ts';
import type { PixReturns } from './returns.ts';

/** The lock that makes one instance the reconciler. */
export const RECONCILE_LOCK = 'croupier:pix-reconcile';
/** Each pass starts this long before the last checkpoint: a payment the PSP lists late is still seen. */
export const OVERLAP_MS = 10 * 60_000;
/** A method never reconciled starts this far back: older top-ups have expired anyway (docs/api.md section 5). */
export const FIRST_LOOKBACK_MS = 24 * 3_600_000;
/** One `GET /pix` window at most (PSPs bound the span a query may cover). */
const WINDOW_MS = 24 * 3_600_000;
/** A charge is asked about this long after its expiry, so a payment made in its last second is settled first. */
export const EXPIRY_GRACE_MS = 2 * 60_000;
const PAGE_SIZE = 100;
const EXPIRY_BATCH = 100;

export interface MethodReport {
  code: string;
  from: Date;
  to: Date;
  /** Payments the PSP listed (with a txid). */
  listed: number;
  credited: number;
  returned: number;
  expired: number;
  failures: number;
}

export interface ReconcileReport {
  /** False when another instance leads: nothing was done. */
  leader: boolean;
  methods: MethodReport[];
  /** Returns asked for, asked about or checked on. */
  returns: number;
  failures: number;
}

export interface ReconcileOptions {
  /** An explicit window (`croupier pix:reconcile --from --to`): the checkpoint neither decides nor moves. */
  from?: Date;
  to?: Date;
  /** The time of the pass (tests move it); default the clock's. */
  now?: Date;
}

/**
 * Reconciliation (docs/api.md section 13, docs/payments.md): for each API Pix method, the
 * payments the PSP lists since the method's checkpoint (`GET /pix`, page by page, with overlap)
 * are settled like a notification's (so one no notification brought is credited, once); pending
 * top-ups past their charge's expiry are asked about (`GET /cob/{txid}`) and expire only when the
 * PSP reports them unpaid; returns not yet final are asked for or about. Every `everyS` seconds
 * on the instance holding the leader lock; `run` does one pass by hand.
 */
export class PixReconciler {
  readonly #ctx: PixContext;
  readonly #methods: PixMethods;
  readonly #receipts: PixReceipts;
  readonly #returns: PixReturns;
  readonly #lock: LeaderLock | undefined;
  readonly #log: Logger;
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    ctx: PixContext,
    parts: { methods: PixMethods; receipts: PixReceipts; returns: PixReturns },
    options: { lock?: LeaderLock; log: Logger },
  ) {
    this.#ctx = ctx;
    this.#methods = parts.methods;
    this.#receipts = parts.receipts;
    this.#returns = parts.returns;
    this.#lock = options.lock;
    this.#log = options.log;
  }

  /** One pass, after any pass in progress; only the leader does anything when a lock is set. */
  run(options: ReconcileOptions = {}): Promise<ReconcileReport> {
    const pass = this.#queue.then(() => this.#pass(options));
    this.#queue = pass.catch(() => undefined);
    return pass;
  }

  /** A pass now, then one every `everyS` seconds. */
  start(everyS: number): void {
    if (this.#running) return;
    this.#running = true;
    const tick = (delay: number) => {
      this.#timer = setTimeout(() => {
        this.run()
          .catch((error: unknown) => this.#log.warn({ err: loggableError(error) }, 'PIX reconciliation failed; the next pass tries again'))
          .finally(() => {
            if (this.#running) tick(everyS * 1000);
          });
      }, delay);
      this.#timer.unref();
    };
    tick(0);
  }

  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#queue;
    await this.#lock?.release();
  }

  async #pass(options: ReconcileOptions): Promise<ReconcileReport> {
    const report: ReconcileReport = { leader: true, methods: [], returns: 0, failures: 0 };
    if (this.#lock !== undefined && !(await this.#lock.acquire())) return { ...report, leader: false };
    const now = options.now ?? new Date();
    for (const method of await this.#methods.all()) {
      const methodReport = await this.#method(method, now, options);
      report.methods.push(methodReport);
      report.failures += methodReport.failures;
    }
    try {
      report.returns = await this.#returns.sweep(this.#log);
    } catch (error) {
      report.failures += 1;
      this.#log.error({ err: loggableError(error) }, 'PIX reconciliation: the returns could not be looked at');
    }
    return report;
  }

  async #method(method: PixMethod, now: Date, options: ReconcileOptions): Promise<MethodReport> {
    const db = this.#ctx.db;
    const explicit = options.from !== undefined || options.to !== undefined;
    const to = options.to ?? now;
    const from =
      options.from ?? new Date(((await checkpointOf(db, method.id))?.getTime() ?? to.getTime() - FIRST_LOOKBACK_MS) - OVERLAP_MS);
    const report: MethodReport = { code: method.code, from, to, listed: 0, credited: 0, returned: 0, expired: 0, failures: 0 };
    const log = this.#log;
    const count = (settled: Settled) => {
      if (settled === 'credited') report.credited += 1;
      if (settled === 'returned') report.returned += 1;
    };

    let listedAll = true;
    for (let start = from.getTime(); start < to.getTime(); start += WINDOW_MS) {
      const window = { from: new Date(start), to: new Date(Math.min(start + WINDOW_MS, to.getTime())) };
      try {
        for (let page = 0, pages = 1; page < pages; page += 1) {
          const answer = await method.client.received({ ...window, page, perPage: PAGE_SIZE, withTxid: true });
          pages = answer.pages;
          for (const payment of answer.items) {
            report.listed += 1;
            try {
              count(await this.#receipts.settle(method, payment, log));
            } catch (error) {
              report.failures += 1;
              log.error(
                { err: loggableError(error), endToEndId: payment.endToEndId },
                'PIX reconciliation: a payment could not be settled',
              );
            }
          }
        }
      } catch (error) {
        listedAll = false;
        report.failures += 1;
        log.error({ ...failure(error), paymentMethodId: method.id }, 'PIX reconciliation: the PSP’s list of payments could not be read');
        break;
      }
    }
    // The checkpoint moves only past a window read whole, and never for a window given by hand.
    if (listedAll && !explicit && report.failures === 0) await advanceCheckpoint(db, method.id, to);

    try {
      await this.#expire(method, now, report, log);
    } catch (error) {
      report.failures += 1;
      log.error({ ...failure(error), paymentMethodId: method.id }, 'PIX reconciliation: expired charges could not be looked at');
    }
    return report;
  }

  /** Pending top-ups past their charge's expiry: the PSP says whether they were paid. */
  async #expire(method: PixMethod, now: Date, report: MethodReport, log: Logger): Promise<void> {
    const due = await expiredCharges(this.#ctx.db, method.id, new Date(now.getTime() - EXPIRY_GRACE_MS), EXPIRY_BATCH);
    for (const topup of due) {
      let charge;
      try {
        charge = await method.client.charge(topup.txid!);
      } catch (error) {
        report.failures += 1;
        log.warn({ ...failure(error), topupId: topup.id }, 'PIX reconciliation: a charge could not be read; its top-up stays pending');
        continue;
      }
      for (const payment of charge.payments) {
        const settled = await this.#receipts.settle(method, { ...payment, txid: payment.txid ?? charge.txid }, log);
        if (settled === 'credited') report.credited += 1;
        if (settled === 'returned') report.returned += 1;
      }
      const pastExpiry = charge.createdAt.getTime() + charge.expiresIn * 1000 <= now.getTime();
      const unpaid = charge.payments.length === 0 && ((charge.status === 'ATIVA' && pastExpiry) || charge.status.startsWith('REMOVIDA'));
      if (unpaid && (await expireTopup(this.#ctx.db, topup.id))) {
        report.expired += 1;
        log.info({ topupId: topup.id, txid: charge.txid }, 'PIX charge expired unpaid; top-up expired');
      }
    }
  }
}

function failure(error: unknown): Record<string, unknown> {
  return error instanceof PixApiError ? { psp: error.loggable() } : { err: loggableError(error) };
}
