import { safeEqual } from '../../platform/crypto.ts';
import { NotFoundError, WebhookTokenError } from '../../platform/errors.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Logger } from '../../platform/logger.ts';
import { PixApiError } from '../payments/pix-api/errors.ts';
import type { PixMethod, PixMethods } from '../payments/pix-api/methods.ts';
import { END_TO_END_ID, TXID } from '../payments/pix-api/wire.ts';
import type { LookupBudget } from './lookup-budget.ts';
import type { PixReceipts } from './receipts.ts';

/**
 * How long a notification's answer waits for its items: well inside the 5 s a PSP allows. Items
 * still being confirmed then go on in the background (and reconciliation finds any that a stopped
 * process never finished).
 */
export const ANSWER_WITHIN_MS = 4000;
/** Items of one notification read at all; more than a PSP groups in one call, and cheap to bound. */
const MAX_ITEMS = 1000;
/**
 * Distinct payments, charges or sends one notification may have us ask the PSP about: a page of
 * `GET /pix` (API Pix's default, and what reconciliation reads in one call), many times what a
 * PSP groups in one notification. Each copy of an item is asked about once.
 */
export const MAX_LOOKUPS = 100;
/** How many of the look-ups left to reconciliation a log line names. */
const LEFT_NAMED = 10;

export type NotificationItem = Record<string, unknown>;

/** One question to the PSP that a notification's items ask for, however many items ask it. */
type Lookup =
  | { kind: 'payment'; endToEndId: string; unrecorded: boolean }
  | { kind: 'charge'; txid: string }
  | { kind: 'handler'; handler: NotificationHandler; item: NotificationItem };

/**
 * Something a notification's item may be besides a received payment (Efí's payouts name their
 * `gnExtras.idEnvio`): the first handler that accepts an item handles it.
 */
export interface NotificationHandler {
  accepts(item: NotificationItem): boolean;
  handle(method: PixMethod, item: NotificationItem, log: Logger): Promise<void>;
}

/**
 * A PSP's notification (`POST {webhookUrl}/pix` with `{"pix": [...]}`, docs/api.md section 13).
 * It is never proof: each item is confirmed with the PSP (`GET /pix/{e2eid}`, or `GET
 * /cob/{txid}` for an item that names only its charge) and only the PSP's answer is acted on,
 * once per endToEndId. The answer is 200 whatever the items say, after at most ANSWER_WITHIN_MS.
 *
 * What a notification may make us ask is bounded, so nobody can spend the PSP's rate limit
 * through us: each distinct item is asked about once, at most MAX_LOOKUPS a notification, within
 * the method's budget a minute (LookupBudget, PIX_NOTIFICATION_LOOKUPS_PER_MIN). The rest is
 * logged and left to reconciliation, which finds every real payment in the PSP's list.
 */
export class PixNotifications {
  readonly #methods: PixMethods;
  readonly #receipts: PixReceipts;
  readonly #budget: LookupBudget;
  readonly #answerWithinMs: number;
  /** Item handlers tried before the received-payment one (payouts add theirs). */
  readonly handlers: NotificationHandler[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(methods: PixMethods, receipts: PixReceipts, budget: LookupBudget, options: { answerWithinMs?: number } = {}) {
    this.#methods = methods;
    this.#receipts = receipts;
    this.#budget = budget;
    this.#answerWithinMs = options.answerWithinMs ?? ANSWER_WITHIN_MS;
  }

  /**
   * Takes a notification for the method `code`: 404 for a code that names no API Pix method, 401
   * when the method has a webhook token and `token` is not it. Answers how many items it held.
   */
  async accept(code: string, token: string | undefined, items: unknown[] | undefined, log: Logger): Promise<number> {
    const method = await this.#methods.byCode(code);
    if (method === undefined) throw new NotFoundError();
    const expected = method.config.webhookToken;
    if (expected !== undefined && !safeEqual(token ?? '', expected)) throw new WebhookTokenError();
    const list = (items ?? []).slice(0, MAX_ITEMS);
    if ((items?.length ?? 0) > MAX_ITEMS)
      log.warn({ code, items: items!.length }, 'PIX notification with too many items: the rest is left to reconciliation');
    const lookups = [...this.#lookups(method, list, log).values()];
    const made = await this.#allowed(method, lookups, log);
    const work = Promise.allSettled(made.map((lookup) => this.#lookup(method, lookup, log)));
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, this.#answerWithinMs, false).unref();
    });
    const done = await Promise.race([work.then(() => true), deadline]);
    // Answered: its deadline is no longer needed (thousands a second would otherwise wait out their 4 s).
    clearTimeout(timer);
    if (!done) log.info({ code, items: list.length }, 'PIX notification answered while its items are still being confirmed');
    return list.length;
  }

  /** The distinct questions the items ask, in the order they first ask them; what asks none is logged here. */
  #lookups(method: PixMethod, list: unknown[], log: Logger): Map<string, Lookup> {
    const lookups = new Map<string, Lookup>();
    for (const raw of list) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        log.info({ paymentMethodId: method.id }, 'PIX notification item that is not an object; ignored');
        continue;
      }
      const item = raw as NotificationItem;
      const { endToEndId, txid } = item;
      const handler = this.handlers.find((candidate) => candidate.accepts(item));
      if (handler !== undefined) {
        // A handler's item is its own to read: only exact copies are known to ask the same.
        lookups.set(`item:${JSON.stringify(item)}`, { kind: 'handler', handler, item });
      } else if (typeof endToEndId === 'string' && END_TO_END_ID.test(endToEndId)) {
        // An item that reports a return is most likely about a payment recorded before (#payment).
        const unrecorded = item.devolucoes === undefined;
        const seen = lookups.get(`pix:${endToEndId}`);
        if (seen?.kind === 'payment') seen.unrecorded &&= unrecorded;
        else lookups.set(`pix:${endToEndId}`, { kind: 'payment', endToEndId, unrecorded });
      } else if (typeof txid === 'string' && TXID.test(txid)) {
        lookups.set(`cob:${txid}`, { kind: 'charge', txid });
      } else {
        log.info({ paymentMethodId: method.id }, 'PIX notification item names no payment; ignored');
      }
    }
    return lookups;
  }

  /**
   * The look-ups that may be made now: the first MAX_LOOKUPS, as far as the method's budget
   * goes. The rest are left to reconciliation, and the log says how many and why.
   */
  async #allowed(method: PixMethod, lookups: Lookup[], log: Logger): Promise<Lookup[]> {
    const bounded = lookups.slice(0, MAX_LOOKUPS);
    let allowed = 0;
    try {
      allowed = await this.#budget.take(method.id, bounded.length);
    } catch (error) {
      // Without the shared count no look-up is safe to make: reconciliation asks in its own time.
      log.error({ err: loggableError(error), paymentMethodId: method.id }, 'PIX look-up budget unreadable');
    }
    const left = lookups.length - allowed;
    if (left > 0)
      log.warn(
        {
          paymentMethodId: method.id,
          code: method.code,
          lookups: lookups.length,
          made: allowed,
          overBound: lookups.length - bounded.length,
          overBudget: bounded.length - allowed,
          left: lookups.slice(allowed, allowed + LEFT_NAMED).map(describe),
        },
        `PIX notification: ${left} look-ups left to reconciliation (at most ${MAX_LOOKUPS} a notification, and PIX_NOTIFICATION_LOOKUPS_PER_MIN a method)`,
      );
    return bounded.slice(0, allowed);
  }

  async #lookup(method: PixMethod, lookup: Lookup, log: Logger): Promise<void> {
    try {
      if (lookup.kind === 'handler') return await lookup.handler.handle(method, lookup.item, log);
      if (lookup.kind === 'payment') return await this.#payment(method, lookup.endToEndId, lookup.unrecorded, log);
      await this.#charge(method, lookup.txid, log);
    } catch (error) {
      const detail = error instanceof PixApiError ? { psp: error.loggable() } : { err: loggableError(error) };
      log.error({ ...detail, paymentMethodId: method.id }, 'PIX notification item not processed; reconciliation will look at it');
    }
  }

  /**
   * Only the PSP's answer is acted on, so it is asked first; the statement that records the
   * payment says whether it was acted on before (a replay moves nothing). `unrecorded` false (an
   * item reported a return): the payment is most likely recorded, and is looked up first.
   */
  async #payment(method: PixMethod, endToEndId: string, unrecorded: boolean, log: Logger): Promise<void> {
    let confirmed;
    try {
      confirmed = await method.client.payment(endToEndId);
    } catch (error) {
      if (error instanceof PixApiError && error.notFound) {
        log.warn({ paymentMethodId: method.id, endToEndId }, 'PIX notification for a payment the PSP does not know; ignored');
        return;
      }
      throw error;
    }
    await this.#receipts.settle(method, confirmed, log, { unrecorded });
  }

  async #charge(method: PixMethod, txid: string, log: Logger): Promise<void> {
    let charge;
    try {
      charge = await method.client.charge(txid);
    } catch (error) {
      if (error instanceof PixApiError && error.notFound) {
        log.warn({ paymentMethodId: method.id, txid }, 'PIX notification for a charge the PSP does not know; ignored');
        return;
      }
      throw error;
    }
    for (const payment of charge.payments) await this.#receipts.settle(method, { ...payment, txid: payment.txid ?? txid }, log);
  }

  /** Waits for items still being worked on (the app is closing). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }
}

/**
 * At start, one warning a method without a `webhook_token`: anyone who learns its notification
 * URL can post to it, and only the look-up budget stands between them and the PSP's rate limit.
 * The line names the method, never a secret.
 */
export async function warnOfMethodsWithoutToken(methods: PixMethods, log: Logger): Promise<void> {
  for (const method of await methods.all())
    if (method.config.webhookToken === undefined)
      log.warn(
        { paymentMethodId: method.id, code: method.code },
        `PIX payment method ${method.code} has no webhook_token: its notifications are taken from anyone (set one, then run croupier pix:webhook ${method.code})`,
      );
}

/** A look-up as a log line names it: its endToEndId or txid (a handler's item, by its kind only). */
function describe(lookup: Lookup): string {
  if (lookup.kind === 'payment') return lookup.endToEndId;
  if (lookup.kind === 'charge') return `txid ${lookup.txid}`;
  return 'another kind of item';
}
