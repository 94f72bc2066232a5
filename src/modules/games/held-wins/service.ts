import { loggedTransaction, type OperationEntry } from '../../../platform/admin/operation-log.ts';
import type { AppContext } from '../../../platform/context.ts';
import { ConflictError, NotFoundError } from '../../../platform/errors.ts';
import { PROVIDER_WIN_HOLD_STATUS, type ProviderWinHold } from '../seamless-wallet/tables.ts';
import { findHeldWin, reviewHeldWin } from './repository.ts';

const DECIDED: Record<number, string> = {
  [PROVIDER_WIN_HOLD_STATUS.released]: 'This win was released already.',
  [PROVIDER_WIN_HOLD_STATUS.refused]: 'This win was refused already.',
};

/**
 * Staff's review of the wins the ceiling held (docs/games.md, "Held wins"): each decision in the
 * operator's logged transaction, made by provider_wallet_win_review (the money rule stays in SQL),
 * once: a second decision on the same win, concurrent or later, is a 409 and changes nothing.
 */
export class HeldWinService {
  readonly #ctx: AppContext;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** Credits the held win, once (its ledger key is the win's transaction id). */
  async release(entry: OperationEntry, id: number, reason: string | null): Promise<ProviderWinHold> {
    const hold = await this.#review(entry, id, true, reason);
    this.#ctx.money.ledgerLine('win', hold.amount);
    return hold;
  }

  /** Credits nothing; the provider's retries are answered WIN_REFUSED from then on. */
  refuse(entry: OperationEntry, id: number, reason: string): Promise<ProviderWinHold> {
    return this.#review(entry, id, false, reason);
  }

  #review(entry: OperationEntry, id: number, release: boolean, reason: string | null): Promise<ProviderWinHold> {
    return loggedTransaction(this.#ctx.db, entry, async (tx) => {
      const reviewed = await reviewHeldWin(tx, { id, release, reviewerId: entry.userId, reason });
      switch (reviewed.outcome) {
        case 'unknown':
          throw new NotFoundError();
        case 'decided':
          throw new ConflictError(DECIDED[reviewed.status!] ?? 'This win was reviewed already.', 'win_reviewed');
        case 'bet_refunded':
          throw new ConflictError('The bet was refunded since the win was held: the win can only be refused.', 'bet_refunded');
        case 'released':
        case 'refused':
          return (await findHeldWin(tx, id))!;
      }
    });
  }
}
