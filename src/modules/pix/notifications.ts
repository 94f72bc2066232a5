import { safeEqual } from '../../platform/crypto.ts';
import { NotFoundError, WebhookTokenError } from '../../platform/errors.ts';
import { loggableError } from '../../platform/log-safety.ts';
import type { Logger } from '../../platform/logger.ts';
import { PixApiError } from '../payments/pix-api/errors.ts';
import type { PixMethod, PixMethods } from '../payments/pix-api/methods.ts';
import { END_TO_END_ID, TXID } from '../payments/pix-api/wire.ts';
import type { PixReceipts } from './receipts.ts';

/**
 * How long a notification's answer waits for its items: well inside the 5 s a PSP allows. Items
 * still being confirmed then go on in the background (and reconciliation finds any that a stopped
 * process never finished).
 */
export const ANSWER_WITHIN_MS = 4000;
/** Items one notification may bring; more than a PSP groups in one call, and cheap to bound. */
const MAX_ITEMS = 1000;

export type NotificationItem = Record<string, unknown>;

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
 */
export class PixNotifications {
  readonly #methods: PixMethods;
  readonly #receipts: PixReceipts;
  readonly #answerWithinMs: number;
  /** Item handlers tried before the received-payment one (payouts add theirs). */
  readonly handlers: NotificationHandler[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();

  constructor(methods: PixMethods, receipts: PixReceipts, options: { answerWithinMs?: number } = {}) {
    this.#methods = methods;
    this.#receipts = receipts;
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
    const work = Promise.allSettled(list.map((item) => this.#item(method, item, log)));
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

  async #item(method: PixMethod, raw: unknown, log: Logger): Promise<void> {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      log.info({ paymentMethodId: method.id }, 'PIX notification item that is not an object; ignored');
      return;
    }
    const item = raw as NotificationItem;
    try {
      for (const handler of this.handlers) if (handler.accepts(item)) return await handler.handle(method, item, log);
      await this.#payment(method, item, log);
    } catch (error) {
      const detail = error instanceof PixApiError ? { psp: error.loggable() } : { err: loggableError(error) };
      log.error({ ...detail, paymentMethodId: method.id }, 'PIX notification item not processed; reconciliation will look at it');
    }
  }

  async #payment(method: PixMethod, item: NotificationItem, log: Logger): Promise<void> {
    const { endToEndId, txid } = item;
    if (typeof endToEndId === 'string' && END_TO_END_ID.test(endToEndId)) {
      // Only the PSP's answer is acted on, so it is asked first; the statement that records the
      // payment says whether it was acted on before (a replay moves nothing). An item that
      // reports a return is most likely about a payment recorded before: it is looked up first.
      const unrecorded = item.devolucoes === undefined;
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
      return;
    }
    if (typeof txid === 'string' && TXID.test(txid)) {
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
      return;
    }
    log.info({ paymentMethodId: method.id }, 'PIX notification item names no payment; ignored');
  }

  /** Waits for items still being worked on (the app is closing). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }
}
