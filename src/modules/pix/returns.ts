import type { Logger } from '../../platform/logger.ts';
import type { PixContext } from './context.ts';
import { PixApiError } from '../payments/pix-api/errors.ts';
import type { PixMethods } from '../payments/pix-api/methods.ts';
import type { PixReturn } from '../payments/pix-api/wire.ts';
import { findPixPaymentById, recordReturn, returnsDue, type ReturnUpdate } from './repository.ts';
import type { PixPaymentRow, ReturnState } from './tables.ts';

/** What the payer's bank shows with the money that comes back (API Pix's `descricao`, up to 140 characters), by reason. */
const RETURN_MESSAGE = 'Devolucao: pagamento nao creditado (valor diferente ou cobranca ja encerrada).';
/** REGULATION=br: the payer is told why their money came back (disposition.ts, payerRefusal). */
const OWN_ACCOUNT_MESSAGE = 'Devolucao: so aceitamos pagamentos de conta do proprio apostador (mesmo CPF).';
const MESSAGES: Record<string, string> = { third_party_payer: OWN_ACCOUNT_MESSAGE, player_unverified: OWN_ACCOUNT_MESSAGE };
/** States a return leaves when the PSP tells us something about it. */
const OPEN: readonly ReturnState[] = ['pending', 'unknown', 'requested'];

/** A return as the PSP reports it, in our terms. */
export function returnUpdate(found: PixReturn): ReturnUpdate {
  switch (found.status) {
    case 'EM_PROCESSAMENTO':
      return { status: 'requested', rtrId: found.rtrId ?? null };
    case 'DEVOLVIDO':
      return { status: 'returned', rtrId: found.rtrId ?? null, returnedAt: new Date() };
    case 'NAO_REALIZADO':
      return { status: 'failed', rtrId: found.rtrId ?? null, detail: found.reason ?? 'The PSP could not make the return.' };
  }
}

/**
 * Returns of payments that could not be credited (docs/api.md section 13): `PUT
 * /pix/{e2eid}/devolucao/{id}` with the payment's whole amount, exactly once. The row in
 * pix_payments (unique return id) says it must be made; the call happens after that committed,
 * never inside a transaction; an outcome we cannot know (a timeout, a server error) is recorded
 * as unknown and asked about later (`GET …/devolucao/{id}`), and asked for again only when the
 * PSP says it has no such return. The same id makes asking twice harmless: the PSP refuses an
 * id it already holds.
 */
export class PixReturns {
  readonly #ctx: PixContext;
  readonly #methods: PixMethods;

  constructor(ctx: PixContext, methods: PixMethods) {
    this.#ctx = ctx;
    this.#methods = methods;
  }

  /** Asks for the return of one recorded payment, or learns where it stands. */
  async send(paymentId: number, log: Logger): Promise<ReturnState | undefined> {
    const row = await findPixPaymentById(this.#ctx.db, paymentId);
    if (row?.returnId == null || row.returnStatus === null || !OPEN.includes(row.returnStatus)) return row?.returnStatus ?? undefined;
    const method = await this.#methods.byId(row.paymentMethodId);
    const context = { pixPaymentId: row.id, endToEndId: row.endToEndId, returnId: row.returnId, topupId: row.topupId };
    if (method === undefined) {
      log.error(context, 'PIX return waits: its payment method has no usable API Pix configuration');
      return row.returnStatus;
    }
    const client = method.client;

    // Asked before (or possibly asked): the PSP says whether it holds the return.
    if (row.returnStatus !== 'pending') {
      try {
        return await this.#record(row, returnUpdate(await client.return(row.endToEndId, row.returnId)), log);
      } catch (error) {
        if (!(error instanceof PixApiError && error.notFound)) {
          log.warn({ ...context, psp: error instanceof PixApiError ? error.loggable() : String(error) }, 'PIX return still unknown');
          return row.returnStatus;
        }
        if (row.returnStatus === 'requested') {
          log.error(context, 'the PSP no longer knows a PIX return it had taken; needs an operator');
          return row.returnStatus;
        }
      }
    }

    try {
      const made = await client.requestReturn(row.endToEndId, row.returnId, row.amount, MESSAGES[row.reason ?? ''] ?? RETURN_MESSAGE);
      return await this.#record(row, returnUpdate(made), log);
    } catch (error) {
      if (!(error instanceof PixApiError)) throw error;
      if (error.outcomeUnknown) {
        log.warn({ ...context, psp: error.loggable() }, 'PIX return asked, outcome unknown; it is asked about later');
        await recordReturn(this.#ctx.db, row.id, { status: 'unknown' }, ['pending']);
        return 'unknown';
      }
      // Refused: perhaps because the PSP already holds this id (asked before a crash); it says.
      const held = await client.return(row.endToEndId, row.returnId).catch(() => undefined);
      if (held !== undefined) return this.#record(row, returnUpdate(held), log);
      log.error({ ...context, psp: error.loggable() }, 'the PSP refused a PIX return; needs an operator');
      await recordReturn(this.#ctx.db, row.id, { status: 'refused', detail: error.problem?.detail ?? error.message }, [
        'pending',
        'unknown',
      ]);
      return 'refused';
    }
  }

  async #record(row: PixPaymentRow, update: ReturnUpdate, log: Logger): Promise<ReturnState> {
    if (update.status === 'requested' && row.returnStatus === 'requested') return 'requested';
    const from: readonly ReturnState[] = update.status === 'requested' ? ['pending', 'unknown'] : OPEN;
    if (await recordReturn(this.#ctx.db, row.id, update, from)) {
      const context = { pixPaymentId: row.id, endToEndId: row.endToEndId, returnId: row.returnId, topupId: row.topupId };
      if (update.status === 'failed')
        log.error({ ...context, detail: update.detail }, 'the PSP could not make a PIX return; needs an operator');
      else log.info({ ...context, status: update.status }, 'PIX return recorded');
    }
    return update.status;
  }

  /** Learns what the PSP says of a return it reported (a notification, a listing). */
  async learn(row: PixPaymentRow, reported: PixReturn[], log: Logger): Promise<void> {
    const ours = reported.find((item) => item.id === row.returnId);
    if (ours === undefined || row.returnStatus === null || !OPEN.includes(row.returnStatus)) return;
    await this.#record(row, returnUpdate(ours), log);
  }

  /** Every return not yet final: asked for, asked about, or checked on. Answers how many were looked at. */
  async sweep(log: Logger, limit = 200): Promise<number> {
    const due = await returnsDue(this.#ctx.db, limit);
    for (const row of due) await this.send(row.id, log);
    return due.length;
  }
}
