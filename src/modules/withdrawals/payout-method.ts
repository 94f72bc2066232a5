import { eq, sql } from 'drizzle-orm';
import { loggedTransaction, type OperationEntry } from '../../platform/admin/operation-log.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Db } from '../../platform/db/client.ts';
import { ConflictError, ValidationError } from '../../platform/errors.ts';
import type { PayoutGateways } from '../payments/gateways/payout.ts';
import { paymentMethods } from '../payments/tables.ts';
import { payoutSettings } from './tables.ts';

/** The method that pays out, as stored: none (the built-in sandbox) or a payment method with its gateway. */
interface StoredChoice {
  paymentMethodId: number | null;
  code: string | null;
  gateway: string | null;
}

/** What pays an approval out: the gateway's code, and the payment method whose account pays (null: the built-in default). */
export interface PayoutChoice {
  paymentMethodId: number | null;
  code: string | null;
  gateway: string;
}

async function storedChoice(db: Db): Promise<StoredChoice> {
  const [row] = await db
    .select({ paymentMethodId: payoutSettings.paymentMethodId, code: paymentMethods.code, gateway: paymentMethods.gateway })
    .from(payoutSettings)
    .leftJoin(paymentMethods, eq(paymentMethods.id, payoutSettings.paymentMethodId))
    .where(eq(payoutSettings.id, 1));
  // The migration inserts the one row; without it the default stands.
  return row ?? { paymentMethodId: null, code: null, gateway: null };
}

/**
 * The payment method that pays approved withdrawals out (docs/api.md section 13b), kept in the
 * database (one row) so every instance reads the same choice, in the approval's own transaction.
 * Its gateway must pay out (the sandbox or `efi`); none chosen is the built-in sandbox.
 */
export class PayoutMethodService {
  readonly #db: Db;
  readonly #payouts: PayoutGateways;

  constructor(ctx: AppContext, payouts: PayoutGateways) {
    this.#db = ctx.db;
    this.#payouts = payouts;
  }

  async current(): Promise<PayoutChoice> {
    const stored = await storedChoice(this.#db);
    return { ...stored, gateway: stored.gateway ?? this.#payouts.current().code };
  }

  /**
   * What pays an approval, read in `tx` (the approval's transaction). A chosen method whose gateway
   * was changed since to one that cannot pay out is a 409, before anything changes.
   */
  async forApproval(tx: Db): Promise<PayoutChoice> {
    const stored = await storedChoice(tx);
    if (stored.paymentMethodId === null) return { ...stored, gateway: this.#payouts.current().code };
    if (stored.gateway === null || this.#payouts.get(stored.gateway) === undefined)
      throw new ConflictError(
        `The payout method ${stored.code} (gateway ${stored.gateway}) cannot pay out; choose another with PUT /api/admin/settings/payouts.`,
        'payout_method_unusable',
      );
    return { ...stored, gateway: stored.gateway };
  }

  /** Chooses the method (null: the built-in sandbox), in the operator's logged transaction; 422 for a method that cannot pay out. */
  async choose(entry: OperationEntry, paymentMethodId: number | null): Promise<PayoutChoice> {
    await loggedTransaction(this.#db, entry, async (tx) => {
      if (paymentMethodId !== null) {
        const [method] = await tx
          .select({ gateway: paymentMethods.gateway })
          .from(paymentMethods)
          .where(eq(paymentMethods.id, paymentMethodId))
          .for('share');
        if (method === undefined) throw ValidationError.field('payment_method_id', 'The selected payment method id is invalid.');
        if (this.#payouts.get(method.gateway) === undefined)
          throw ValidationError.field(
            'payment_method_id',
            `The payment method's gateway (${method.gateway}) cannot pay out: choose a method of a gateway that pays out (${this.#payouts.codes().join(', ')}).`,
          );
      }
      await tx
        .update(payoutSettings)
        .set({ paymentMethodId, updatedBy: entry.userId, updatedAt: sql`now()` })
        .where(eq(payoutSettings.id, 1));
    });
    return this.current();
  }
}
