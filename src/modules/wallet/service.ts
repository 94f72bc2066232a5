import { randomUUID } from 'node:crypto';
import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { AppContext } from '../../platform/context.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import { formatUnits, parseMoney } from '../../platform/money.ts';
import { applyLedgerOperation, IdempotencyMismatchError, InsufficientFundsError } from './ledger.ts';
import { balancesOf, findBalance } from './repository.ts';
import type { Balance } from './tables.ts';

export interface Adjustment {
  balanceId: number;
  amount: unknown;
  reason: string;
  /** The Idempotency-Key the client sent (platform/http/idempotency-key.ts); without one every request is a new adjustment. */
  idempotencyKey: string | undefined;
}

/** Balances as customers and operators see them, and the one manual way to move money. */
export class WalletService {
  readonly #ctx: AppContext;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  balancesOf(userId: number): Promise<Balance[]> {
    return balancesOf(this.#ctx.db, userId);
  }

  /**
   * One `adjustment` ledger line, in the admin's logged transaction (`entry`: who, from where),
   * counted in the metrics once it committed. With an Idempotency-Key a retry answers the first
   * outcome; the same key for another balance or amount is refused.
   */
  async adjust(entry: OperationEntry, adjustment: Adjustment): Promise<Balance> {
    const adminId = entry.userId;
    const amount = parseMoney('amount', adjustment.amount, { signed: true });
    const sent = adjustment.idempotencyKey;
    const key = sent === undefined ? `adjustment:${randomUUID()}` : `adjustment:${adminId}:${sent}`;
    // Whether this attempt wrote the line (a replayed key did not): reported once the transaction committed.
    let wrote = false;
    const adjusted = await loggedTransaction(this.#ctx.db, entry, async (tx) => {
      wrote = false;
      const balance = await findBalance(tx, adjustment.balanceId);
      if (balance === undefined) throw new NotFoundError();
      try {
        const outcome = await applyLedgerOperation(tx, {
          userId: balance.userId,
          currency: balance.currency,
          type: 'adjustment',
          amount,
          referenceType: 'admin',
          referenceId: adminId,
          description: adjustment.reason,
          idempotencyKey: key,
        });
        wrote = !outcome.replayed;
      } catch (error) {
        if (error instanceof InsufficientFundsError) {
          throw ValidationError.field('amount', `The balance would go below 0; it is ${formatUnits(error.available)}.`);
        }
        // Same key, other balance or amount: a client bug, refused as the IETF Idempotency-Key draft says (422).
        if (error instanceof IdempotencyMismatchError) {
          throw ValidationError.field('idempotency_key', 'The Idempotency-Key was already used for a different adjustment.');
        }
        throw error;
      }
      return (await findBalance(tx, adjustment.balanceId))!;
    });
    if (wrote) this.#ctx.money.ledgerLine('adjustment', amount);
    return adjusted;
  }
}
