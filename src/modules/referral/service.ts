import { sql } from 'drizzle-orm';
import type { Regulation } from '../../config.ts';
import type { Db } from '../../platform/db/client.ts';
import { one } from '../../platform/db/client.ts';
import type { AppContext, RegistrationHook } from '../../platform/context.ts';
import type { MoneyEvents } from '../../platform/metrics/money.ts';
import { toCents } from '../../platform/money.ts';
import { currentReferralSettings } from '../settings/repository.ts';
import { TOPUP_STATUS } from '../topups/repository.ts';
import { applyLedgerOperation } from '../wallet/ledger.ts';

/**
 * Registration with `ref`: the referrer receives the `bonus` of the referral settings in force,
 * as a `referral_bonus` line keyed by the new user (so it is paid once per referred user),
 * counted in the metrics once the registration committed.
 */
export function referralSignupHook(currency: string, money: MoneyEvents, regulation: Regulation = 'none'): RegistrationHook {
  return async (tx, user) => {
    if (user.ref === null) return;
    const { settings } = await currentReferralSettings(tx, regulation);
    if (settings.bonus <= 0n) return;
    const outcome = await applyLedgerOperation(tx, {
      userId: user.ref,
      currency,
      type: 'referral_bonus',
      amount: settings.bonus,
      referenceType: 'user',
      referenceId: user.id,
      description: `Referral reward: user #${user.id} registered`,
      idempotencyKey: `referral:signup:${user.id}`,
    });
    if (outcome.replayed) return;
    return () => money.ledgerLine('referral_bonus', settings.bonus);
  };
}

export interface ReferralSummary {
  referredUsers: number;
  referredPaidUsers: number;
  referredPaidTotal: bigint;
}

/** What a player sees of the users they referred. */
export class ReferralService {
  readonly #db: Db;

  constructor(ctx: AppContext) {
    this.#db = ctx.db;
  }

  /** Counted from the records: referred users, those with a paid top-up, and what those top-ups sum to. */
  async summary(userId: number): Promise<ReferralSummary> {
    // Counts and sums are BIGINT/NUMERIC, which both drivers read as text.
    const row = await one<{ users: string; paid_users: string; paid_total: string }>(
      this.#db,
      sql`select
        (select count(*) from users where ref = ${userId}) as users,
        count(distinct t.user_id) as paid_users,
        coalesce(sum(t.amount), 0) as paid_total
        from topups t join users u on u.id = t.user_id
        where u.ref = ${userId} and t.status = ${sql.raw(String(TOPUP_STATUS.paid))}`,
    );
    return {
      referredUsers: Number(row?.users ?? 0),
      referredPaidUsers: Number(row?.paid_users ?? 0),
      referredPaidTotal: toCents(row?.paid_total ?? 0),
    };
  }
}
